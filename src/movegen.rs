//! Legal moves in two parts: the captures and promotions (`tactical_moves`)
//! and the quiet moves (`quiet_moves`), so that the move picker generates
//! the quiet moves only when it reaches them, and quiescence never does.
//!
//! shakmaty's `legal_moves()` generates everything at once (its
//! `capture_moves()` generates every legal move and drops the quiet ones);
//! most nodes cut off on the table's move or a capture before any quiet move
//! is wanted. Here the pieces aim at the enemy's pieces (pawns also at the
//! promotion squares in front of them) or at the empty squares, and pinned
//! pieces keep to their pin line. Both need a side that is not in check
//! (evasions come from `legal_moves()`); tests check that the two together
//! are exactly the legal moves.
//!
//! The tactical moves come out in exactly the order `legal_moves()` gives
//! them after filtering: en passant, pawn captures (to the west, then the
//! east), pawn pushes to promote, knights, bishops, rooks, queens, king.

use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, File, Move, MoveList, Position as _, Rank, Role, Square,
    attacks,
};

/// Appends the captures and promotions of the side to move, which must not
/// be in check (evasions come from `legal_moves()`), to `moves`.
pub fn tactical_moves(pos: &Chess, moves: &mut MoveList) {
    debug_assert!(!pos.is_check());
    let board = pos.board();
    let us = pos.turn();
    let them = board.by_color(!us);
    let occupied = board.occupied();
    let Some(king) = board.king_of(us) else {
        moves.extend(pos.capture_moves());
        return;
    };
    let start = moves.len();

    // En passant has its own legality test (two pawns leave one rank).
    if pos.maybe_ep_square().is_some() {
        moves.extend(pos.en_passant_moves());
    }

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
            push_promotions(moves, offset(to, -shift), to, board.role_at(to));
        }
    }
    let pushes = shift_by(pawns, forward) & !occupied & Bitboard::BACKRANKS;
    for to in pushes {
        push_promotions(moves, offset(to, -forward), to, None);
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

    keep_to_pin_lines(pos, king, moves, start);
}

/// Appends the quiet moves (neither captures nor promotions) of the side to
/// move, which must not be in check, to `moves`: pawn pushes, piece moves to
/// empty squares, castling, and king moves to squares no enemy piece
/// attacks.
pub fn quiet_moves(pos: &Chess, moves: &mut MoveList) {
    debug_assert!(!pos.is_check());
    let board = pos.board();
    let us = pos.turn();
    let occupied = board.occupied();
    let empty = !occupied;
    let Some(king) = board.king_of(us) else {
        let all = pos.legal_moves();
        moves.extend(
            all.iter()
                .copied()
                .filter(|m| !m.is_capture() && !m.is_promotion()),
        );
        return;
    };
    let start = moves.len();

    let pawns = board.by_piece(Role::Pawn.of(us));
    let forward = match us {
        Color::White => 8,
        Color::Black => -8,
    };
    // A push to the last rank promotes: that is a tactical move.
    let single = shift_by(pawns, forward) & empty & !Bitboard::BACKRANKS;
    let double =
        shift_by(single, forward) & empty & Bitboard::from_rank(us.relative_rank(Rank::Fourth));
    for to in single {
        moves.push(normal(Role::Pawn, offset(to, -forward), None, to, None));
    }
    for to in double {
        moves.push(normal(Role::Pawn, offset(to, -2 * forward), None, to, None));
    }

    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        let piece = role.of(us);
        for from in board.by_piece(piece) {
            for to in attacks::attacks(from, piece, occupied) & empty {
                moves.push(normal(role, from, None, to, None));
            }
        }
    }
    // Not in check: see `tactical_moves` for why the full occupancy gives
    // the right attackers of the king's new square.
    for to in attacks::king_attacks(king) & empty {
        if board.attacks_to(to, !us, occupied).is_empty() {
            moves.push(normal(Role::King, king, None, to, None));
        }
    }

    keep_to_pin_lines(pos, king, moves, start);
    // shakmaty checks castling's own rules (rights, empty and safe squares).
    if pos.castles().has_color(us) {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            moves.extend(pos.castling_moves(side));
        }
    }
}

/// Whether `m`, a move found in some other position (the table's move, a
/// killer, a counter-move), is legal here: `Chess::is_legal`'s answer,
/// without generating the moves that could reach its square. Castling and
/// en passant are left to shakmaty.
pub fn is_legal(pos: &Chess, m: Move) -> bool {
    let Move::Normal {
        role,
        from,
        capture,
        to,
        promotion,
    } = m
    else {
        return pos.is_legal(m);
    };
    let board = pos.board();
    let us = pos.turn();
    let occupied = board.occupied();
    let Some(king) = board.king_of(us) else {
        return pos.is_legal(m);
    };
    let checkers = pos.checkers();
    let target_is_right = match capture {
        None => !occupied.contains(to),
        Some(Role::King) => false,
        Some(victim) => board.piece_at(to) == Some(victim.of(!us)),
    };
    if board.piece_at(from) != Some(role.of(us)) || !target_is_right {
        return false;
    }
    let reaches = match role {
        Role::Pawn => {
            let forward = match us {
                Color::White => 8,
                Color::Black => -8,
            };
            let step = to.to_u32() as i32 - from.to_u32() as i32;
            let moves_so = if capture.is_some() {
                attacks::pawn_attacks(us, from).contains(to)
            } else {
                step == forward
                    || (step == 2 * forward
                        && from.rank() == us.relative_rank(Rank::Second)
                        && !occupied.contains(offset(from, forward)))
            };
            // A pawn that reaches the last rank promotes, and only there.
            let promotes_right = match promotion {
                None => !Bitboard::BACKRANKS.contains(to),
                Some(Role::Pawn | Role::King) => false,
                Some(_) => Bitboard::BACKRANKS.contains(to),
            };
            moves_so && promotes_right
        }
        _ if promotion.is_some() => false,
        // Onto a square no piece of theirs attacks once the king has left
        // its own (a slider checking along the line would still reach it).
        Role::King => {
            return attacks::king_attacks(from).contains(to)
                && board
                    .attacks_to(to, !us, occupied ^ Bitboard::from(from))
                    .is_empty();
        }
        _ => attacks::attacks(from, role.of(us), occupied).contains(to),
    };
    // In check, any other move must take the one checker or step between
    // it and the king; against two checkers only the king can move.
    let answers_check = match checkers.single_square() {
        _ if checkers.is_empty() => true,
        None => false,
        Some(checker) => to == checker || attacks::between(king, checker).contains(to),
    };
    reaches
        && answers_check
        && (!pinned_pieces(pos, king).contains(from) || attacks::aligned(from, to, king))
}

/// Drops the moves from `start` on that take a pinned piece off its pin
/// line (en passant and castling, checked already, stay).
fn keep_to_pin_lines(pos: &Chess, king: Square, moves: &mut MoveList, start: usize) {
    let pinned = pinned_pieces(pos, king);
    if pinned.is_empty() {
        return;
    }
    let mut kept = start;
    for i in start..moves.len() {
        let m = moves[i];
        let legal = match m {
            Move::Normal { from, to, .. } => {
                !pinned.contains(from) || attacks::aligned(from, to, king)
            }
            _ => true,
        };
        if legal {
            moves[kept] = m;
            kept += 1;
        }
    }
    moves.truncate(kept);
}

/// Our pieces that alone stand between our king and an enemy slider.
fn pinned_pieces(pos: &Chess, king: Square) -> Bitboard {
    let board = pos.board();
    sole_blockers(board, king, board.by_color(!pos.turn()))
}

/// The pieces (of either side) that alone stand between `king` and a rook,
/// bishop or queen among `sliders` on its line: pinned pieces where the
/// sliders are the king's enemies, pieces that uncover a check where they
/// are the king's enemies' own.
pub fn sole_blockers(board: &shakmaty::Board, king: Square, sliders: Bitboard) -> Bitboard {
    let snipers = (attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens());
    let mut blockers = Bitboard::EMPTY;
    for sniper in snipers & sliders {
        let between = attacks::between(king, sniper) & board.occupied();
        if !between.more_than_one() {
            blockers |= between;
        }
    }
    blockers
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

    /// The legal moves in a canonical order, to compare lists as sets.
    fn sorted(moves: impl IntoIterator<Item = Move>) -> Vec<String> {
        let mut uci: Vec<String> = moves
            .into_iter()
            .map(|m| m.to_uci(CastlingMode::Chess960).to_string())
            .collect();
        uci.sort();
        uci
    }

    /// `ours` and `theirs`: some legal moves of the positions two plies and
    /// one ply before, whose side to move is this one's and the other.
    fn check_tree(pos: &Chess, depth: u32, ours: &[Move], theirs: &[Move], checked: &mut usize) {
        // Moves of this position and of earlier ones, as hash moves and
        // killers: the cheap legality test answers as shakmaty's.
        let mut moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        for &m in moves.iter().chain(ours).chain(theirs) {
            assert_eq!(
                is_legal(pos, m),
                pos.is_legal(m),
                "{m:?} in {}",
                Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
            );
        }
        if !pos.is_check() {
            let mut tactical = MoveList::new();
            tactical_moves(pos, &mut tactical);
            let mut quiet = MoveList::new();
            quiet_moves(pos, &mut quiet);
            assert!(quiet.iter().all(|m| !m.is_capture() && !m.is_promotion()));
            assert_eq!(
                sorted(tactical.iter().copied().chain(quiet)),
                sorted(pos.legal_moves()),
                "tactical and quiet moves are the legal moves in {}",
                Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
            );
            assert_eq!(
                tactical.to_vec(),
                reference(pos),
                "{}",
                Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
            );
            *checked += 1;
        }
        if depth == 0 {
            return;
        }
        // A few of each kind, to keep the test quick.
        moves.sort_by_key(|m| (m.is_capture(), m.is_promotion(), m.role()));
        let some: Vec<Move> = moves
            .iter()
            .step_by(moves.len() / 12 + 1)
            .copied()
            .collect();
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            check_tree(&child, depth - 1, theirs, &some, checked);
        }
    }

    #[test]
    fn tactical_moves_in_legal_order_and_quiet_moves_the_rest() {
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
            check_tree(&pos, 3, &[], &[], &mut checked);
        }
        assert!(checked > 100_000, "only {checked} positions compared");
    }
}
