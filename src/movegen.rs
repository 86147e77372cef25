//! Legal captures and promotions only, for the quiescence search.
//!
//! shakmaty's `capture_moves()` generates every legal move and then drops
//! the quiet ones; most quiescence nodes need only a handful of captures, so
//! generating the quiet moves was most of their cost. Here the pieces aim at
//! the enemy's pieces only (pawns also at the promotion squares in front of
//! them), and pinned pieces keep to their pin line.
//!
//! The moves come out in exactly the order `legal_moves()` gives them after
//! filtering: en passant, pawn captures (to the west, then the east), pawn
//! pushes to promote, knights, bishops, rooks, queens, king. The move picker
//! breaks ties between equal scores by that order, so the search is the same
//! node for node; a test checks the two lists are equal.

use shakmaty::{
    Bitboard, Chess, Color, File, Move, MoveList, Position as _, Role, Square, attacks,
};

/// Captures and promotions of the side to move, which must not be in check
/// (evasions come from `legal_moves()`).
pub fn tactical_moves(pos: &Chess) -> MoveList {
    debug_assert!(!pos.is_check());
    let board = pos.board();
    let us = pos.turn();
    let them = board.by_color(!us);
    let occupied = board.occupied();
    let Some(king) = board.king_of(us) else {
        return pos.capture_moves();
    };

    // En passant has its own legality test (two pawns leave one rank).
    let mut moves = pos.en_passant_moves();

    let pawns = board.by_piece(Role::Pawn.of(us));
    let (west, east, forward) = match us {
        Color::White => (7, 9, 8),
        Color::Black => (-9, -7, -8),
    };
    // A pawn on the edge file has no capture toward that edge.
    for (shift, edge) in [(west, File::A), (east, File::H)] {
        let targets = shift_by(pawns & !Bitboard::from_file(edge), shift) & them;
        for to in targets & !Bitboard::BACKRANKS {
            let from = offset(to, -shift);
            moves.push(normal(Role::Pawn, from, board.role_at(to), to, None));
        }
        for to in targets & Bitboard::BACKRANKS {
            push_promotions(&mut moves, offset(to, -shift), to, board.role_at(to));
        }
    }
    let pushes = shift_by(pawns, forward) & !occupied & Bitboard::BACKRANKS;
    for to in pushes {
        push_promotions(&mut moves, offset(to, -forward), to, None);
    }

    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        let piece = role.of(us);
        for from in board.by_piece(piece) {
            for to in attacks::attacks(from, piece, occupied) & them {
                moves.push(normal(role, from, board.role_at(to), to, None));
            }
        }
    }
    // Not in check, so no enemy slider looks through the king's square:
    // the full occupancy gives the right attackers of `to`.
    for to in attacks::king_attacks(king) & them {
        if board.attacks_to(to, !us, occupied).is_empty() {
            moves.push(normal(Role::King, king, board.role_at(to), to, None));
        }
    }

    let pinned = pinned_pieces(pos, king);
    if pinned.any() {
        moves.retain(|m| match *m {
            Move::Normal { from, to, .. } => {
                !pinned.contains(from) || attacks::aligned(from, to, king)
            }
            _ => true, // en passant: already checked
        });
    }
    moves
}

/// Our pieces that alone stand between our king and an enemy slider.
fn pinned_pieces(pos: &Chess, king: Square) -> Bitboard {
    let board = pos.board();
    let them = board.by_color(!pos.turn());
    let snipers = (attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens());
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers & them {
        let between = attacks::between(king, sniper) & board.occupied();
        if !between.more_than_one() {
            pinned |= between;
        }
    }
    pinned
}

fn shift_by(b: Bitboard, by: i32) -> Bitboard {
    if by >= 0 {
        Bitboard(b.0 << by)
    } else {
        Bitboard(b.0 >> -by)
    }
}

fn offset(sq: Square, by: i32) -> Square {
    Square::new((sq.to_u32() as i32 + by) as u32)
}

fn normal(
    role: Role,
    from: Square,
    capture: Option<Role>,
    to: Square,
    promotion: Option<Role>,
) -> Move {
    Move::Normal {
        role,
        from,
        capture,
        to,
        promotion,
    }
}

fn push_promotions(moves: &mut MoveList, from: Square, to: Square, capture: Option<Role>) {
    for promotion in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
        moves.push(normal(Role::Pawn, from, capture, to, Some(promotion)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    /// What `tactical_moves` must equal: every legal move, filtered.
    fn reference(pos: &Chess) -> Vec<Move> {
        let mut all = pos.legal_moves();
        all.retain(|m| m.is_capture() || m.is_promotion());
        all.to_vec()
    }

    fn check_tree(pos: &Chess, depth: u32, checked: &mut usize) {
        if !pos.is_check() {
            assert_eq!(
                tactical_moves(pos).to_vec(),
                reference(pos),
                "{}",
                Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
            );
            *checked += 1;
        }
        if depth == 0 {
            return;
        }
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            check_tree(&child, depth - 1, checked);
        }
    }

    #[test]
    fn same_moves_in_the_same_order_as_filtered_legal_moves() {
        // Pins, en passant (also the rank-pinned kind), promotions with and
        // without capture, castling rights: the perft positions' trees.
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 3",
            "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
            "4k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1",
        ];
        let mut checked = 0;
        for fen in fens {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            check_tree(&pos, 3, &mut checked);
        }
        assert!(checked > 100_000, "only {checked} positions compared");
    }
}
