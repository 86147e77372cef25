//! Move ordering: the best move known for the position first (hash or PV
//! move), then captures by MVV-LVA (most valuable victim, least valuable
//! attacker), promotions, and quiet moves last.
//!
//! Moves are scored once and picked one at a time by selection: a cutoff on
//! an early move then costs no sorting of the rest.

use arrayvec::ArrayVec;
use shakmaty::{Move, MoveList, Role};

use crate::eval::piece_value;

const HASH_MOVE: i32 = 1_000_000;
const CAPTURE_BASE: i32 = 100_000;
const PROMOTION_BASE: i32 = 90_000;

/// MVV-LVA: victims dominate, the attacker breaks ties.
pub fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, piece_value);
    let attacker = piece_value(m.role());
    victim * 16 - attacker / 16
}

pub struct MovePicker {
    moves: ArrayVec<(Move, i32), 270>,
    next: usize,
}

impl MovePicker {
    /// Orders `moves`; `best` (hash or PV move) goes first if present.
    pub fn new(moves: MoveList, best: Option<Move>) -> MovePicker {
        let scored = moves
            .into_iter()
            .map(|m| {
                let score = if Some(m) == best {
                    HASH_MOVE
                } else if m.is_capture() {
                    CAPTURE_BASE + mvv_lva(m)
                } else if let Some(p) = m.promotion() {
                    PROMOTION_BASE + piece_value(p) - if p == Role::Queen { 0 } else { 2000 }
                } else {
                    0
                };
                (m, score)
            })
            .collect();
        MovePicker {
            moves: scored,
            next: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

impl Iterator for MovePicker {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let rest = &mut self.moves[self.next..];
        let (best_idx, _) = rest
            .iter()
            .enumerate()
            .max_by_key(|(i, (_, s))| (*s, -(*i as i32)))?;
        rest.swap(0, best_idx);
        self.next += 1;
        Some(rest[0].0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Position as _};

    use crate::position::Position;

    #[test]
    fn hash_move_then_best_capture_first() {
        // White can take a queen with a pawn or with the rook.
        let pos = Position::from_fen("4k3/8/8/3q4/4P3/8/8/3RK3 w - - 0 1", CastlingMode::Standard)
            .unwrap();
        let moves = pos.board().legal_moves();
        let quiet = *moves.iter().find(|m| !m.is_capture()).unwrap();
        let order: Vec<Move> = MovePicker::new(moves.clone(), Some(quiet)).collect();
        assert_eq!(order.len(), moves.len());
        assert_eq!(order[0], quiet);
        assert_eq!(order[1].role(), Role::Pawn, "PxQ before RxQ");
        assert_eq!(order[2].role(), Role::Rook);
    }
}
