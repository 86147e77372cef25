//! Static exchange evaluation: does a move win at least `threshold`
//! centipawns once every capture on its target square has been played out,
//! each side taking with its least valuable attacker and free to stop?
//!
//! Used to order captures (losing ones last) and to prune losing captures
//! in the quiescence search and at low depth.

use shakmaty::attacks::{bishop_attacks, rook_attacks};
use shakmaty::{Bitboard, Chess, Color, Move, Position as _, Role, Square};

/// Exchange values: the king's is large so that capturing it never pays.
pub fn see_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 950,
        Role::King => 20_000,
    }
}

const ROLES_BY_VALUE: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// Is the exchange started by `m` worth at least `threshold`?
pub fn see_ge(pos: &Chess, m: Move, threshold: i32) -> bool {
    let (from, to) = match m {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        // Castling moves no material.
        Move::Castle { .. } | Move::Put { .. } => return threshold <= 0,
    };
    let board = pos.board();
    let mut swap = m.capture().map_or(0, see_value) - threshold;
    if let Some(p) = m.promotion() {
        swap += see_value(p) - see_value(Role::Pawn);
    }
    if swap < 0 {
        return false;
    }
    let moved = m.promotion().unwrap_or(m.role());
    swap = see_value(moved) - swap;
    if swap <= 0 {
        return true;
    }

    let mut occupied = board.occupied() ^ Bitboard::from(from) ^ Bitboard::from(to);
    if let Move::EnPassant { .. } = m {
        occupied ^= Bitboard::from(Square::from_coords(to.file(), from.rank()));
    }
    let diagonal = board.bishops_and_queens();
    let straight = board.rooks_and_queens();
    let mut attackers = attackers_to(pos, to, occupied);
    let mut side = pos.turn();
    let mut result = true;
    loop {
        side = !side;
        attackers &= occupied;
        let ours = attackers & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        result = !result;
        let (role, sq) = least_valuable(pos, ours);
        if role == Role::King {
            // The king may only take if nothing defends the square.
            return if (attackers & board.by_color(!side)).any() {
                !result
            } else {
                result
            };
        }
        swap = see_value(role) - swap;
        if swap < i32::from(result) {
            break;
        }
        occupied ^= Bitboard::from(sq);
        // Sliders behind the piece that just took join in (x-rays).
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= bishop_attacks(to, occupied) & diagonal;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= rook_attacks(to, occupied) & straight;
        }
    }
    result
}

fn attackers_to(pos: &Chess, sq: Square, occupied: Bitboard) -> Bitboard {
    let b = pos.board();
    b.attacks_to(sq, Color::White, occupied) | b.attacks_to(sq, Color::Black, occupied)
}

fn least_valuable(pos: &Chess, attackers: Bitboard) -> (Role, Square) {
    let b = pos.board();
    for role in ROLES_BY_VALUE {
        if let Some(sq) = (attackers & b.by_role(role)).first() {
            return (role, sq);
        }
    }
    unreachable!("attackers is not empty")
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn see(fen: &str, uci: &str, threshold: i32) -> bool {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        see_ge(&pos, m, threshold)
    }

    #[test]
    fn free_pawn_is_won() {
        let fen = "4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1";
        assert!(see(fen, "d1d5", 100));
        assert!(!see(fen, "d1d5", 101));
    }

    #[test]
    fn defended_pawn_costs_the_rook() {
        let fen = "4k3/2p5/3p4/8/8/8/8/3RK3 w - - 0 1";
        assert!(!see(fen, "d1d6", 0));
        assert!(see(fen, "d1d6", -400));
    }

    #[test]
    fn xray_support_counts() {
        // Rxd5 is defended by the rook behind it (Qxd5 ... Rxd5).
        let fen = "3r2k1/8/8/3p4/8/8/3R4/3R2K1 w - - 0 1";
        assert!(see(fen, "d2d5", 0));
    }

    #[test]
    fn quiet_moves_and_hanging_pieces() {
        // A quiet move to a safe square is even; to a square a pawn
        // attacks it loses the knight.
        assert!(see("4k3/8/4p3/8/8/8/8/3NK3 w - - 0 1", "d1c3", 0));
        assert!(!see("4k3/8/4p3/8/8/4N3/8/4K3 w - - 0 1", "e3d5", 0));
    }
}
