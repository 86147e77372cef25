//! Move ordering, in stages, each generated only when it is reached:
//!
//! 1. the hash move, tried before any move is generated (a cutoff on it, the
//!    common case, costs no move generation at all);
//! 2. the captures and promotions (`tactical_moves`): captures that don't
//!    lose material (SEE), by victim, then capture history, then the
//!    cheaper attacker (`capture_order`), and queen promotions;
//! 3. the two killers and the counter-move, each checked to be legal here;
//! 4. the quiet moves (`quiet_moves`), by history: generated and scored
//!    only now, since most nodes that cut off do so before this stage;
//! 5. underpromotions, then the captures that lose material.
//!
//! Within a stage the moves are picked by selection, not sorted: most nodes
//! cut off after a move or two. For the same reason a capture's exchange
//! (SEE), which decides whether it is good or losing, is worked out only
//! when the capture is picked. Moves of equal score come in the order they
//! were generated. Once pruning gives up on quiet moves, `skip_quiets`
//! drops them (all but checks).
//!
//! In check, the evasions come from `legal_moves()`, split into the same
//! stages.

use arrayvec::ArrayVec;
use shakmaty::{Move, MoveList, Position as _, Role};

use crate::history::{History, QuietContext};
use crate::movegen::{is_legal, quiet_moves, tactical_moves};
use crate::position::{CheckSquares, Position};
use crate::see::see_ge;

const GOOD_CAPTURE: i32 = 2_000_000;
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

impl QuietHints {
    /// The killers, then the counter-move, each once.
    fn get(&self, index: usize) -> Option<Move> {
        let [first, second] = self.killers;
        match index {
            0 => first,
            1 => second.filter(|&m| Some(m) != first),
            _ => self.counter.filter(|&m| !self.killers.contains(&Some(m))),
        }
    }

    fn contains(&self, m: Move) -> bool {
        self.killers.contains(&Some(m)) || self.counter == Some(m)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    HashMove,
    GenerateTactical,
    GoodTactical,
    /// The killers and the counter-move; the number is the next to try.
    Refutations(usize),
    GenerateQuiets,
    Quiets,
    /// Underpromotions and losing captures.
    BadTactical,
}

pub struct MovePicker {
    hash_move: Option<Move>,
    hints: QuietHints,
    captures_only: bool,
    /// Quiescence out of check: captures that lose material (SEE < 0) are
    /// never returned, so they are never searched.
    skip_losing_captures: bool,
    /// Pruning gave up on quiet moves: only those that give check are
    /// left, found with these squares.
    skip_quiets: Option<CheckSquares>,
    stage: Stage,
    /// Whether the good-band captures' exchanges were checked when they
    /// were generated (quiescence, which drops the losing ones).
    exchanges_checked: bool,
    /// The tactical moves at `..tactical_end`, then the quiet moves; the
    /// generators write into it, and `scores` holds the score of each.
    moves: MoveList,
    scores: ArrayVec<i32, 256>,
    next_tactical: usize,
    tactical_end: usize,
    next_quiet: usize,
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
            skip_quiets: None,
            stage: Stage::HashMove,
            exchanges_checked: false,
            moves: MoveList::new(),
            scores: ArrayVec::new(),
            next_tactical: 0,
            tactical_end: 0,
            next_quiet: 0,
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

    /// Quiet moves are skipped: quiescence out of check.
    fn tactical_only(&self, pos: &Position) -> bool {
        self.captures_only && !pos.in_check()
    }

    fn skips_losing(&self, pos: &Position) -> bool {
        self.tactical_only(pos) && self.skip_losing_captures
    }

    /// The next move to search; `quiets` holds the node's continuation
    /// rows for scoring quiet moves.
    pub fn next(
        &mut self,
        pos: &Position,
        history: &History,
        quiets: QuietContext,
    ) -> Option<Move> {
        loop {
            match self.stage {
                Stage::HashMove => {
                    self.stage = Stage::GenerateTactical;
                    if let Some(m) = self.hash_move {
                        let wanted = !self.tactical_only(pos) || !is_quiet(m);
                        let losing = self.skips_losing(pos) && !see_ge(pos.board(), m, 0);
                        if wanted && !losing {
                            return Some(m);
                        }
                        // A quiet or losing hash move is not searched in
                        // quiescence (and not generated again below).
                    }
                }
                Stage::GenerateTactical => {
                    self.generate_tactical(pos, history);
                    self.stage = Stage::GoodTactical;
                }
                Stage::GoodTactical => {
                    if let Some(m) = self.pick_good_tactical(pos) {
                        return Some(m);
                    }
                    self.stage = if self.tactical_only(pos) {
                        Stage::BadTactical
                    } else {
                        Stage::Refutations(0)
                    };
                }
                Stage::Refutations(index) => {
                    if index == 3 {
                        self.stage = Stage::GenerateQuiets;
                        continue;
                    }
                    self.stage = Stage::Refutations(index + 1);
                    if let Some(m) = self.hints.get(index)
                        && Some(m) != self.hash_move
                        && is_legal(pos.board(), m)
                        && self.skip_quiets.is_none_or(|c| c.gives_check(pos, m))
                    {
                        return Some(m);
                    }
                }
                Stage::GenerateQuiets => {
                    self.generate_quiets(pos, history, quiets);
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    if let Some(i) = best_index(&self.scores[self.next_quiet..]) {
                        let m = self.take(self.next_quiet, i);
                        self.next_quiet += 1;
                        return Some(m);
                    }
                    self.stage = Stage::BadTactical;
                }
                Stage::BadTactical => {
                    let i = best_index(&self.scores[self.next_tactical..self.tactical_end])?;
                    let m = self.take(self.next_tactical, i);
                    self.next_tactical += 1;
                    return Some(m);
                }
            }
        }
    }

    /// From now on no quiet move that doesn't give check (late move pruning
    /// and futility pruning have given up on them; a check may still mate).
    pub fn skip_quiets(&mut self, pos: &Position) {
        if self.skip_quiets.is_some() {
            return;
        }
        let checks = pos.check_squares();
        self.skip_quiets = Some(checks);
        if self.stage == Stage::Quiets {
            let mut kept = self.next_quiet;
            for i in self.next_quiet..self.moves.len() {
                let m = self.moves[i];
                if checks.gives_check(pos, m) {
                    self.moves[kept] = m;
                    self.scores[kept] = self.scores[i];
                    kept += 1;
                }
            }
            self.moves.truncate(kept);
            self.scores.truncate(kept);
        }
    }

    /// The move at `start + i`, moved to `start`, the moves between shifted
    /// one place on: the rest keep their order, so moves of equal score come
    /// in generation order. (Swapping instead would move the move at `start`
    /// behind its equals, an arbitrary order that pawn endings such as the
    /// Lasker–Reichhelm one are sensitive to.)
    fn take(&mut self, start: usize, i: usize) -> Move {
        self.moves[start..=start + i].rotate_right(1);
        self.scores[start..=start + i].rotate_right(1);
        self.moves[start]
    }

    /// The best good capture or queen promotion left, if any. A capture
    /// still in the good band hasn't had its exchange checked (see
    /// `generate_tactical`): it is checked now that it is wanted, and a
    /// losing one moves to the bad band while the next best is looked for.
    /// Every other score is final, so the order is the one that checking
    /// every capture up front would give.
    fn pick_good_tactical(&mut self, pos: &Position) -> Option<Move> {
        loop {
            let i = self.next_tactical
                + best_index(&self.scores[self.next_tactical..self.tactical_end])?;
            let (m, score) = (self.moves[i], self.scores[i]);
            if score < GOOD_CAPTURE - CAPTURE_ORDER_SPAN {
                return None;
            }
            if !self.exchanges_checked && m.is_capture() && !see_ge(pos.board(), m, 0) {
                self.scores[i] = score - GOOD_CAPTURE + BAD_CAPTURE;
                continue;
            }
            let i = i - self.next_tactical;
            let m = self.take(self.next_tactical, i);
            self.next_tactical += 1;
            return Some(m);
        }
    }

    fn generate_tactical(&mut self, pos: &Position, history: &History) {
        let board = pos.board();
        let side = board.turn();
        let tactical_only = self.tactical_only(pos);
        let skip_losing = self.skips_losing(pos);
        self.exchanges_checked = skip_losing;
        if pos.in_check() {
            let evasions = board.legal_moves();
            self.moves
                .extend(evasions.iter().copied().filter(|&m| !is_quiet(m)));
        } else {
            tactical_moves(board, &mut self.moves);
        }
        let hash_move = self.hash_move;
        self.keep_scored(0, |m| {
            if Some(m) == hash_move {
                return None;
            }
            if m.is_capture() {
                // Most nodes cut off before their later captures are
                // reached, so the exchange is checked when a capture is
                // picked. Quiescence drops losing captures, which the
                // selection can't do without changing the order of the rest
                // (its swaps would move a dropped move's neighbours): there
                // they are checked here.
                if skip_losing && !see_ge(board, m, 0) {
                    return None;
                }
                Some(GOOD_CAPTURE + capture_order(m, history.capture(side, m)))
            } else if m.promotion() == Some(Role::Queen) {
                Some(GOOD_CAPTURE + order_value(Role::Queen))
            } else if tactical_only {
                None
            } else {
                Some(UNDERPROMOTION)
            }
        });
        self.tactical_end = self.moves.len();
        self.next_quiet = self.tactical_end;
    }

    fn generate_quiets(&mut self, pos: &Position, history: &History, quiets: QuietContext) {
        let board = pos.board();
        let side = board.turn();
        let start = self.moves.len();
        if pos.in_check() {
            let evasions = board.legal_moves();
            self.moves
                .extend(evasions.iter().copied().filter(|&m| is_quiet(m)));
        } else {
            quiet_moves(board, &mut self.moves);
        }
        let (hash_move, hints, skip_quiets) = (self.hash_move, self.hints, self.skip_quiets);
        self.keep_scored(start, |m| {
            // The hash move and the refutations were tried already.
            if Some(m) == hash_move || hints.contains(m) {
                return None;
            }
            if skip_quiets.is_some_and(|c| !c.gives_check(pos, m)) {
                return None;
            }
            Some(history.get(side, m) + quiets.continuation(side, m))
        });
    }

    /// Scores the moves generated from `start` on, dropping those `score`
    /// has none for.
    fn keep_scored(&mut self, start: usize, mut score: impl FnMut(Move) -> Option<i32>) {
        let mut kept = start;
        for i in start..self.moves.len() {
            let m = self.moves[i];
            if let Some(s) = score(m) {
                self.moves[kept] = m;
                self.scores.push(s);
                kept += 1;
            }
        }
        self.moves.truncate(kept);
    }
}

/// The index of the first best score, if any.
fn best_index(scores: &[i32]) -> Option<usize> {
    let first = *scores.first()?;
    let (mut i, mut best) = (0, first);
    for (j, &score) in scores.iter().enumerate().skip(1) {
        if score > best {
            (i, best) = (j, score);
        }
    }
    Some(i)
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

    /// What each move of the position scores with every capture's exchange
    /// checked up front: the order the stages must give, up to ties.
    fn scores_checking_exchanges_first(
        pos: &Position,
        history: &History,
        hints: QuietHints,
    ) -> Vec<(Move, i32)> {
        let board = pos.board();
        let side = board.turn();
        board
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
                } else if let Some(i) = (0..3).find(|&i| hints.get(i) == Some(m)) {
                    // Killers and counter-move: after the good captures, in
                    // their order, before every other quiet move.
                    1_000_000 - i as i32
                } else {
                    history.get(side, m)
                };
                (m, score)
            })
            .collect()
    }

    #[test]
    fn stages_keep_the_order_of_scoring_everything_up_front() {
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
                let mut earlier_quiets: Vec<Move> = Vec::new();
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
                    // Refutations as a search finds them: a quiet move of
                    // this position or of an earlier one (often illegal
                    // here, or a capture now), the counter-move sometimes
                    // one of the killers.
                    let quiets: Vec<Move> =
                        moves.iter().copied().filter(|&m| is_quiet(m)).collect();
                    let mut pick = |from: &[Move]| {
                        (!from.is_empty() && rng.below(4) > 0).then(|| from[rng.below(from.len())])
                    };
                    let hints = QuietHints {
                        killers: [pick(&quiets), pick(&earlier_quiets)],
                        counter: pick(&[quiets.clone(), earlier_quiets.clone()].concat()),
                    };
                    earlier_quiets = quiets;
                    let mut picker = MovePicker::new(None, hints);
                    let mut picked = Vec::new();
                    while let Some(m) = picker.next(&pos, &history, QuietContext::default()) {
                        picked.push(m);
                    }
                    let mut unique = picked.clone();
                    unique.sort_by_key(|&m| pos.uci(m));
                    unique.dedup();
                    assert_eq!(unique.len(), picked.len(), "no move twice");
                    let expected = scores_checking_exchanges_first(&pos, &history, hints);
                    assert_eq!(picked.len(), expected.len(), "every move once");
                    let score = |m: Move| expected.iter().find(|e| e.0 == m).unwrap().1;
                    assert!(
                        picked.windows(2).all(|w| score(w[0]) >= score(w[1])),
                        "best first, stage by stage"
                    );
                    let mut generated = MoveList::new();
                    if pos.in_check() {
                        generated = moves.clone();
                    } else {
                        tactical_moves(pos.board(), &mut generated);
                        quiet_moves(pos.board(), &mut generated);
                    }
                    let index = |m: Move| generated.iter().position(|&g| g == m).unwrap();
                    assert!(
                        picked
                            .windows(2)
                            .all(|w| score(w[0]) != score(w[1]) || index(w[0]) < index(w[1])),
                        "equal scores in generation order"
                    );
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
