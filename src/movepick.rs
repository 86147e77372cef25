//! Move ordering, in stages:
//!
//! 1. the hash move, tried before any move is generated (a cutoff on it, the
//!    common case, costs no move generation at all);
//! 2. then the generated moves, best first: captures that don't lose
//!    material (SEE) by MVV-LVA and queen promotions, the two killers, the
//!    counter-move, quiet moves by history, and losing captures last.
//!
//! The generated moves are scored once and picked by selection: most nodes
//! cut off after a move or two, so sorting the whole list would be wasted.
//! For the same reason a capture's exchange (SEE), which decides whether it
//! is good or losing, is worked out only when the capture is picked.
//! Once pruning gives up on quiet moves, `skip_quiets` drops them in one
//! pass (all but checks).

use arrayvec::ArrayVec;
use shakmaty::{Move, Position as _, Role};

use crate::history::{HISTORY_MAX, History, QuietContext};
use crate::movegen::tactical_moves;
use crate::position::Position;
use crate::see::see_ge;

const GOOD_CAPTURE: i32 = 2_000_000;
const KILLER: i32 = 1_000_000;
const BAD_CAPTURE: i32 = -2_000_000;
const UNDERPROMOTION: i32 = -1_000_000;

/// What a piece is worth when ordering captures: the middlegame material
/// of the Texel-tuned hand-crafted evaluation the net replaced. Kept as
/// they were, because they decide the move order (and so bench and the
/// search): a change here is a search change, to be measured like one.
fn order_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 66,
        Role::Knight => 317,
        Role::Bishop => 330,
        Role::Rook => 480,
        Role::Queen => 1307,
        Role::King => 0,
    }
}

/// MVV-LVA: victims dominate, the attacker breaks ties.
pub fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, order_value);
    let attacker = order_value(m.role());
    victim * 16 - attacker / 16
}

/// A quiet move: neither a capture nor a promotion.
pub fn is_quiet(m: Move) -> bool {
    !m.is_capture() && m.promotion().is_none()
}

/// The quiet moves that refuted earlier moves, for ordering.
#[derive(Clone, Copy, Default)]
pub struct QuietHints {
    pub killers: [Option<Move>; 2],
    pub counter: Option<Move>,
}

#[derive(PartialEq, Eq)]
enum Stage {
    HashMove,
    Generate,
    Rest,
}

pub struct MovePicker {
    hash_move: Option<Move>,
    hints: QuietHints,
    captures_only: bool,
    /// Quiescence out of check: captures that lose material (SEE < 0) are
    /// never returned, so they are never searched.
    skip_losing_captures: bool,
    stage: Stage,
    /// Whether the good-band captures' exchanges were checked when they
    /// were generated (quiescence, which drops the losing ones).
    exchanges_checked: bool,
    moves: ArrayVec<(Move, i32), 270>,
    next: usize,
}

impl MovePicker {
    /// All legal moves. `hash_move` must be legal in the position (the
    /// caller decoded it with `Position::decode_move`).
    pub fn new(hash_move: Option<Move>, hints: QuietHints) -> MovePicker {
        MovePicker {
            hash_move,
            hints,
            captures_only: false,
            skip_losing_captures: false,
            stage: Stage::HashMove,
            exchanges_checked: false,
            moves: ArrayVec::new(),
            next: 0,
        }
    }

    /// Captures and queen promotions only (quiescence), unless in check;
    /// without the losing captures if `skip_losing_captures`.
    pub fn captures(hash_move: Option<Move>, skip_losing_captures: bool) -> MovePicker {
        let mut p = MovePicker::new(hash_move, QuietHints::default());
        p.captures_only = true;
        p.skip_losing_captures = skip_losing_captures;
        p
    }

    fn skips_losing(&self, pos: &Position) -> bool {
        self.captures_only && self.skip_losing_captures && !pos.in_check()
    }

    /// The next move to search; `quiets` holds the node's continuation
    /// rows for scoring quiet moves.
    pub fn next(
        &mut self,
        pos: &Position,
        history: &History,
        quiets: QuietContext,
    ) -> Option<Move> {
        if self.stage == Stage::HashMove {
            self.stage = Stage::Generate;
            if let Some(m) = self.hash_move {
                let wanted = !self.captures_only || !is_quiet(m) || pos.in_check();
                let losing = self.skips_losing(pos) && !see_ge(pos.board(), m, 0);
                if wanted && !losing {
                    return Some(m);
                }
                // A quiet or losing hash move is not searched in quiescence
                // (and not generated again below).
            }
        }
        if self.stage == Stage::Generate {
            self.stage = Stage::Rest;
            self.generate(pos, history, quiets);
        }
        // Selection: most nodes cut off after a move or two, so sorting
        // the whole list would mostly be wasted.
        loop {
            let rest = &mut self.moves[self.next..];
            let (_, first_score) = *rest.first()?;
            let (mut i, mut best) = (0, first_score);
            for (j, &(_, score)) in rest.iter().enumerate().skip(1) {
                if score > best {
                    (i, best) = (j, score);
                }
            }
            // A capture still in the good band hasn't had its exchange
            // checked (see `generate`): check it now that it is wanted. A
            // losing one moves to the bad band, and the next best is looked
            // for. Every other score is final, so the order is the one that
            // checking every capture up front would give.
            let (m, score) = rest[i];
            if !self.exchanges_checked
                && score >= GOOD_CAPTURE - CAPTURE_ORDER_SPAN
                && m.is_capture()
                && !see_ge(pos.board(), m, 0)
            {
                rest[i].1 = score - GOOD_CAPTURE + BAD_CAPTURE;
                continue;
            }
            rest.swap(0, i);
            self.next += 1;
            return Some(m);
        }
    }

    /// From now on no quiet move that doesn't give check (late move pruning
    /// and futility pruning have given up on them; a check may still mate).
    pub fn skip_quiets(&mut self, pos: &Position) {
        if self.stage != Stage::Rest {
            return;
        }
        let mut kept = self.next;
        for i in self.next..self.moves.len() {
            let (m, score) = self.moves[i];
            if !is_quiet_score(score) || pos.gives_check(m) {
                self.moves[kept] = (m, score);
                kept += 1;
            }
        }
        self.moves.truncate(kept);
    }

    fn generate(&mut self, pos: &Position, history: &History, quiets: QuietContext) {
        let board = pos.board();
        let side = board.turn();
        let in_check = pos.in_check();
        let skip_losing = self.skips_losing(pos);
        self.exchanges_checked = skip_losing;
        let moves = if self.captures_only && !in_check {
            tactical_moves(board)
        } else {
            board.legal_moves()
        };
        for &m in &moves {
            if Some(m) == self.hash_move {
                continue;
            }
            let score = if m.is_capture() {
                // Most nodes cut off before their later captures are
                // reached, so the exchange is checked when a capture is
                // picked (`next`). Quiescence drops losing captures, which
                // `next` can't do without changing the order of the rest
                // (its swaps would move a dropped move's neighbours): there
                // they are checked here.
                if skip_losing && !see_ge(board, m, 0) {
                    continue;
                }
                GOOD_CAPTURE + capture_order(m, history.capture(side, m))
            } else if let Some(p) = m.promotion() {
                if p == Role::Queen {
                    GOOD_CAPTURE + order_value(p)
                } else {
                    UNDERPROMOTION
                }
            } else if self.captures_only && !in_check {
                continue;
            } else if Some(m) == self.hints.killers[0] {
                KILLER + 2
            } else if Some(m) == self.hints.killers[1] {
                KILLER + 1
            } else if Some(m) == self.hints.counter {
                KILLER
            } else {
                history.get(side, m) + quiets.continuation(side, m)
            };
            if self.captures_only && !in_check && score == UNDERPROMOTION {
                continue;
            }
            self.moves.push((m, score));
        }
    }
}

/// How far `capture_order` reaches either side of zero: more than a queen
/// victim (8 × 1307), the capture history (±HISTORY_MAX / 16) and the
/// attacker together, and far less than the distance between the bands.
const CAPTURE_ORDER_SPAN: i32 = 100_000;

/// Captures are ordered by the victim (MVV), then by their capture history,
/// which can outweigh a pawn's difference in victims, not more; the
/// cheaper attacker (LVA) breaks ties.
fn capture_order(m: Move, capture_history: i32) -> i32 {
    let victim = m.capture().map_or(0, order_value);
    let attacker = order_value(m.role());
    let order = victim * 8 + capture_history / 16 - attacker / 32;
    debug_assert!(order.abs() < CAPTURE_ORDER_SPAN);
    order
}

/// Quiet moves (killers, counter-move, history) score in this band; captures
/// and promotions outside it.
fn is_quiet_score(score: i32) -> bool {
    // Butterfly history plus two continuation rows, each within ±HISTORY_MAX.
    (-3 * HISTORY_MAX..=KILLER + 2).contains(&score)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Color};

    fn order(fen: &str, hash: Option<&str>, hints: QuietHints, history: &History) -> Vec<String> {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let hash = hash.map(|h| {
            let mut p = pos.clone();
            p.make_uci(h).unwrap()
        });
        let mut picker = MovePicker::new(hash, hints);
        let mut out = Vec::new();
        while let Some(m) = picker.next(&pos, history, QuietContext::default()) {
            out.push(pos.uci(m));
        }
        out
    }

    #[test]
    fn stages_in_order() {
        // White can take a queen with a pawn or the rook, or a defended pawn
        // with the rook (losing the rook).
        let fen = "4k3/8/2p5/3q4/4P3/8/8/3RK3 w - - 0 1";
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let all = pos.board().legal_moves().len();
        let mut history = History::default();
        let mut probe = pos.clone();
        let quiet = probe.make_uci("e1f2").unwrap();
        history.update(Color::White, quiet, 500);
        let mut hints = QuietHints::default();
        hints.killers[0] = Some(probe_move(&pos, "d1c1"));
        let order = order(fen, Some("e1e2"), hints, &history);
        assert_eq!(order.len(), all, "every legal move once");
        assert_eq!(order[0], "e1e2", "hash move first");
        assert_eq!(order[1], "e4d5", "PxQ before RxQ");
        assert_eq!(order[2], "d1d5");
        assert_eq!(order[3], "d1c1", "killer after good captures");
        assert_eq!(order[4], "e1f2", "then history");
    }

    /// The order with every capture's exchange checked up front, as the
    /// picker did before it checked them when picked: the same scores, and
    /// the same selection (first best, swapped to the front).
    fn order_checking_exchanges_first(pos: &Position, history: &History) -> Vec<Move> {
        let board = pos.board();
        let side = board.turn();
        let mut moves: Vec<(Move, i32)> = board
            .legal_moves()
            .iter()
            .map(|&m| {
                let score = if m.is_capture() {
                    let band = if see_ge(board, m, 0) {
                        GOOD_CAPTURE
                    } else {
                        BAD_CAPTURE
                    };
                    band + capture_order(m, history.capture(side, m))
                } else if let Some(p) = m.promotion() {
                    if p == Role::Queen {
                        GOOD_CAPTURE + order_value(p)
                    } else {
                        UNDERPROMOTION
                    }
                } else {
                    history.get(side, m)
                };
                (m, score)
            })
            .collect();
        for k in 0..moves.len() {
            let mut best = k;
            for j in k + 1..moves.len() {
                if moves[j].1 > moves[best].1 {
                    best = j;
                }
            }
            moves.swap(k, best);
        }
        moves.into_iter().map(|(m, _)| m).collect()
    }

    #[test]
    fn exchanges_checked_when_picked_keep_the_order() {
        let mut rng = crate::rng::Rng::new(7);
        let starts = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ];
        let mut compared = 0;
        for fen in starts {
            for _ in 0..20 {
                let mut pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
                let mut history = History::default();
                for _ in 0..40 {
                    let moves = pos.board().legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    // Capture histories that reorder captures within a band.
                    for &m in &moves {
                        let bonus = rng.below(8000) as i32 - 4000;
                        if m.is_capture() {
                            history.update_capture(pos.turn(), m, bonus);
                        } else {
                            history.update(pos.turn(), m, bonus);
                        }
                    }
                    let mut picker = MovePicker::new(None, QuietHints::default());
                    let mut picked = Vec::new();
                    while let Some(m) = picker.next(&pos, &history, QuietContext::default()) {
                        picked.push(m);
                    }
                    assert_eq!(picked, order_checking_exchanges_first(&pos, &history));
                    compared += 1;
                    let m = moves[rng.below(moves.len())];
                    pos.make(m);
                }
            }
        }
        assert!(compared > 1000, "only {compared} positions compared");
    }

    fn probe_move(pos: &Position, uci: &str) -> Move {
        pos.clone().make_uci(uci).unwrap()
    }

    #[test]
    fn losing_captures_last_and_quiescence_skips_quiets() {
        let fen = "4k3/2p5/3p4/8/8/8/8/3RK3 w - - 0 1";
        let order_all = order(fen, None, QuietHints::default(), &History::default());
        assert_eq!(
            order_all.last().unwrap(),
            "d1d6",
            "RxP defended by a pawn goes last"
        );
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let captures = |skip_losing| {
            let mut q = MovePicker::captures(None, skip_losing);
            let mut caps = Vec::new();
            while let Some(m) = q.next(&pos, &History::default(), QuietContext::default()) {
                caps.push(pos.uci(m));
            }
            caps
        };
        assert_eq!(captures(false), vec!["d1d6"]);
        assert!(captures(true).is_empty(), "the losing capture is skipped");
    }
}
