//! Quiescence search: at the horizon, captures (and evasions in check) are
//! searched until the position is quiet, so that the evaluation never
//! judges a position in the middle of an exchange.

use super::Searcher;
use crate::history::QuietContext;
use crate::movepick::MovePicker;
use crate::score::{DRAW, INFINITY, MATE, MAX_PLY};
use crate::tt::Bound;

impl Searcher<'_> {
    pub(super) fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.stack.clear_pv(ply);
        self.count_node();
        if self.should_stop() {
            return DRAW;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return self.memory.evaluator.evaluate(&self.pos);
        }
        let (tt_entry, tt_move) = self.probe_tt(ply);
        if let Some(e) = tt_entry
            && e.cuts(0, alpha, beta)
        {
            self.stats.tt_cutoffs += 1;
            return e.score;
        }
        let original_alpha = alpha;
        let in_check = self.pos.in_check();
        let mut best = -INFINITY;
        let mut best_move = None;
        if !in_check {
            let (_, stand_pat) = self.corrected_eval(ply);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        // Captures that lose material can't raise a quiet position's score:
        // the picker leaves them out. Evasions are all searched.
        let mut picker =
            MovePicker::captures(tt_move, self.setup.request.techniques.quiescence_see());
        let mut any_move = false;
        while let Some(m) = picker.next(&self.pos, &self.memory.history, QuietContext::default()) {
            any_move = true;
            self.make_move(m, ply);
            let score = -self.quiescence(-beta, -alpha, ply + 1);
            self.pos.unmake();
            if self.stopped {
                return DRAW;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    self.stack.update_pv(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && !any_move {
            return -MATE + ply as i32;
        }
        let bound = Bound::of_result(best, original_alpha, beta);
        self.store_tt(ply, best_move, best, 0, bound);
        best
    }
}
