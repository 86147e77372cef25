//! The main search: negamax alpha-beta with a principal variation search
//! over each node's moves, the table, tablebases, pruning (`pruning`),
//! extensions and reductions, and the move-ordering feedback (killers,
//! counter-moves, histories) its cutoffs give.

use std::sync::atomic::Ordering;
use std::time::Instant;

use arrayvec::ArrayVec;
use shakmaty::{Move, Position as _};

use super::pruning::{
    double_extension_applies, double_extensions_allowed, history_prunes,
    internal_iterative_reduction_applies, late_move_prunes, late_move_reduction,
    late_move_reductions_apply, null_move_needs_verification, null_move_reduction,
    null_move_worth_trying, quiets_futile, reverse_futility_prunes, see_pruning_threshold,
    singular_beta, singular_search_depth, singular_test_applies,
};
use super::{NO_EVAL, Searcher, tb_score};
use crate::history::{PieceTo, piece_index, stat_bonus, stat_malus};
use crate::movepick::{MovePicker, QuietHints, is_quiet};
use crate::params;
use crate::score::{DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_WIN_BOUND};
use crate::see::see_ge;
use crate::tablebase::{Syzygy, Wdl};
use crate::tt::{Bound, score_from_tt};

impl Searcher<'_> {
    /// The score of the node at `ply` searched to `depth` within (alpha,
    /// beta). `cut_node`: a null-window node expected to fail high (the
    /// first child of an expected fail-low node, a reduced late move);
    /// its late moves are reduced more.
    pub(super) fn negamax(
        &mut self,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        let techniques = self.setup.request.techniques;
        self.stack.clear_pv(ply);
        let in_check = self.pos.in_check();
        // A singular-extension search: this node again, without one move.
        let excluded = self.stack[ply].excluded;
        // Check extension: a check is searched one ply deeper, so that the
        // horizon never falls in the middle of a forcing sequence.
        if in_check && techniques.check_extension() {
            depth += 1;
        }
        // Before the horizon check: a draw on the last ply is still a draw.
        if self.is_draw(ply) {
            return DRAW;
        }
        if depth <= 0 {
            return self.quiescence(alpha, beta, ply);
        }
        self.count_node();
        if self.should_stop() {
            return DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return self.memory.evaluator.evaluate(&self.pos);
        }
        self.seldepth = self.seldepth.max(ply);
        // Mate distance pruning: no line from here can mate faster than a
        // mate already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let pv_node = beta - alpha > 1;

        let (tt_entry, tt_move) = self.probe_tt(ply);
        if let Some(e) = tt_entry
            && !pv_node
            && e.cuts(depth, alpha, beta)
        {
            self.stats.tt_cutoffs += 1;
            return e.score;
        }

        // Endgame tablebases: a proven result ends the node if its bound
        // decides the window; at a PV node it bounds what the search finds.
        let mut tb_bounds = (-INFINITY, INFINITY);
        if let Some(tb) = self.setup.request.syzygy.as_ref()
            && excluded.is_none()
            && let Some((score, bound)) = self.probe_tablebase(tb, depth, ply)
        {
            if bound == Bound::Exact
                || (bound == Bound::Lower && score >= beta)
                || (bound == Bound::Upper && score <= alpha)
            {
                let depth = (depth + 6).min(MAX_PLY as i32 - 1);
                self.store_tt(ply, None, score, depth, bound);
                return score;
            }
            if pv_node {
                tb_bounds = match bound {
                    Bound::Lower => (score, INFINITY),
                    _ => (-INFINITY, score),
                };
            }
        }

        // The net's evaluation and the same corrected by the correction
        // histories: pruning works from the corrected one.
        let (raw_eval, static_eval) = if in_check {
            (NO_EVAL, NO_EVAL)
        } else {
            self.corrected_eval(ply)
        };
        self.stack[ply].static_eval = static_eval;
        let improving = self.improving(ply);
        // Where the improving flag is switched off, each rule that reads it
        // takes the side that acts as the rule did without it.
        let (rfp_improving, lmp_improving, lmr_improving) = if techniques.improving() {
            (improving, improving, improving)
        } else {
            (false, true, true)
        };
        // The table's score, where its bound allows, is a better estimate.
        let eval = match tt_entry {
            Some(e)
                if !in_check
                    && e.score.abs() < MATE_BOUND
                    && (e.bound == Bound::Exact
                        || (e.bound == Bound::Lower && e.score > static_eval)
                        || (e.bound == Bound::Upper && e.score < static_eval)) =>
            {
                e.score
            }
            _ => static_eval,
        };

        // A singular-extension search only asks how the other moves fare:
        // it skips everything before the move loop.
        if !pv_node && !in_check && excluded.is_none() {
            if techniques.reverse_futility()
                && reverse_futility_prunes(depth, eval, beta, rfp_improving)
            {
                return eval;
            }
            // Null move: if passing still keeps us above beta, a real move
            // will too. Not with only pawns and king (zugzwang), not twice
            // in a row, not during a verification search.
            if techniques.null_move()
                && null_move_worth_trying(depth, eval, beta)
                && !self.null_move_disabled
                && self.pos.last_move().is_some()
                && self.pos.has_non_pawn_material(self.pos.turn())
                && let Some(score) = self.null_move_cutoff(depth, eval, beta, ply, cut_node)
            {
                return score;
            }
        }

        if techniques.internal_iterative_reduction()
            && excluded.is_none()
            && tt_move.is_none()
            && internal_iterative_reduction_applies(depth)
        {
            depth -= 1;
        }

        if techniques.enhanced_transposition_cutoffs()
            && !pv_node
            && excluded.is_none()
            && depth >= params::etc_min_depth()
            && ply as i32 <= params::etc_max_ply()
            && let Some(score) = self.etc_cutoff(depth, beta, ply)
        {
            self.store_tt(ply, None, score, depth, Bound::Lower);
            return score;
        }

        // Singular extension: is the table's move the only good one here?
        let mut tt_move_extension = 0;
        if let (Some(e), Some(m)) = (tt_entry, tt_move)
            && techniques.singular_extensions()
            && ply > 0
            && excluded.is_none()
            && singular_test_applies(depth, e.depth)
            && matches!(e.bound, Bound::Lower | Bound::Exact)
            && e.score.abs() < MATE_BOUND
            && ply < 2 * self.root_depth as usize
        {
            let singular_beta = singular_beta(e.score, depth);
            self.stack[ply].excluded = Some(m);
            let score = self.negamax(
                singular_search_depth(depth),
                singular_beta - 1,
                singular_beta,
                ply,
                cut_node,
            );
            self.stack[ply].excluded = None;
            if self.stopped {
                return DRAW;
            }
            if score < singular_beta {
                self.stats.singular_extensions += 1;
                // Singular by a wide margin: two plies deeper, a bounded
                // number of times on one path.
                let wide = techniques.double_extensions()
                    && !pv_node
                    && double_extension_applies(score, singular_beta)
                    && double_extensions_allowed(self.stack[ply].double_extensions);
                tt_move_extension = if wide { 2 } else { 1 };
            } else if singular_beta >= beta {
                // Multi-cut: even without the table's move, another move
                // reaches beta; two refutations make this node a cutoff.
                return singular_beta;
            } else if techniques.negative_extensions() && (e.score >= beta || cut_node) {
                // Another move nearly matches the table's, which is then
                // not worth its full depth: it already beats beta, or the
                // node is expected to fail high anyway.
                tt_move_extension = -1;
            }
        }

        let hints = QuietHints {
            killers: self.stack[ply].killers,
            counter: self
                .counter_slot()
                .and_then(|(piece, to)| self.memory.counter_moves[piece][to]),
        };
        let mut picker = MovePicker::new(tt_move, hints);
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut moves_searched = 0usize;
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let mut captures_tried: ArrayVec<Move, 32> = ArrayVec::new();
        self.stack[ply + 1].killers = [None; 2];

        while let Some(m) = picker.next(&self.pos, &self.memory.history, self.quiet_context(ply)) {
            if Some(m) == excluded {
                continue;
            }
            let quiet = is_quiet(m);
            let side = self.pos.turn();

            let refutation = hints.killers.contains(&Some(m)) || hints.counter == Some(m);
            if ply > 0 && best > -MATE_BOUND && !in_check {
                // Late move pruning and futility pruning of quiets: once one
                // quiet move is given up on, all later ones are, except
                // checks (a quiet check may mate).
                let late = techniques.late_move_pruning()
                    && late_move_prunes(depth, moves_searched, lmp_improving);
                let futile = techniques.futility() && quiets_futile(depth, eval, alpha);
                if !pv_node && quiet && (late || futile) && !self.pos.gives_check(m) {
                    picker.skip_quiets(&self.pos);
                    continue;
                }
                if techniques.history_pruning()
                    && !pv_node
                    && quiet
                    && !refutation
                    && history_prunes(depth, self.quiet_history(ply, side, m))
                {
                    continue;
                }
                if techniques.see_pruning()
                    && !pv_node
                    && let Some(threshold) = see_pruning_threshold(depth, quiet)
                    && !see_ge(self.pos.board(), m, threshold)
                {
                    continue;
                }
            }

            self.make_move(m, ply);
            let gives_check = self.pos.in_check();
            let extension = if Some(m) == tt_move {
                tt_move_extension
            } else {
                0
            };
            let new_depth = depth - 1 + extension;
            self.stack[ply + 1].double_extensions =
                self.stack[ply].double_extensions + u8::from(extension >= 2);
            let score = if moves_searched == 0 {
                // The first child of a PV node is a PV node; otherwise
                // children of cut-nodes are expected all-nodes and back.
                -self.negamax(new_depth, -beta, -alpha, ply + 1, !pv_node && !cut_node)
            } else {
                // Late move reductions for quiet moves searched late.
                let mut r = 0;
                if techniques.late_move_reductions()
                    && late_move_reductions_apply(depth)
                    && quiet
                    && !gives_check
                    && moves_searched > pv_node as usize
                {
                    r = late_move_reduction(
                        self.reductions.get(depth, moves_searched),
                        pv_node,
                        refutation,
                        lmr_improving,
                        cut_node && techniques.cut_node_reductions(),
                        self.quiet_history(ply, side, m),
                    )
                    .clamp(0, new_depth - 1);
                }
                // A reduced search expects the move to fail low, i.e. the
                // child to fail high: a cut-node.
                let child_cut = r > 0 || !cut_node;
                let mut s = -self.negamax(new_depth - r, -alpha - 1, -alpha, ply + 1, child_cut);
                if s > alpha && r > 0 {
                    s = -self.negamax(new_depth, -alpha - 1, -alpha, ply + 1, !cut_node);
                }
                if s > alpha && s < beta {
                    s = -self.negamax(new_depth, -beta, -alpha, ply + 1, false);
                }
                s
            };
            self.pos.unmake();
            moves_searched += 1;
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
                        if quiet {
                            self.reward_quiet(ply, m, depth, &quiets_tried);
                        }
                        self.reward_capture(m, depth, &captures_tried);
                        break;
                    }
                }
            }
            if Some(m) != best_move {
                if quiet {
                    let _ = quiets_tried.try_push(m);
                } else if m.is_capture() {
                    let _ = captures_tried.try_push(m);
                }
            }
        }

        if moves_searched == 0 {
            // Without its excluded move a node may have nothing left: the
            // excluded move is then singular by definition.
            if excluded.is_some() {
                return alpha;
            }
            // No legal move (pruning never skips the first one).
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }
        // A tablebase bound that the search could not see beyond: the
        // result is that bound, and only a bound.
        let clamped = best.clamp(tb_bounds.0, tb_bounds.1);
        let bound = match clamped.cmp(&best) {
            std::cmp::Ordering::Greater => Bound::Lower,
            std::cmp::Ordering::Less => Bound::Upper,
            std::cmp::Ordering::Equal => Bound::of_result(best, original_alpha, beta),
        };
        self.store_tt(ply, best_move, clamped, depth, bound);
        // What the search found against the static evaluation, where the
        // bound says which way it erred: a lesson for the correction
        // histories. Not from a capture's score (the exchange, not the
        // position, decides it), nor from proven results.
        if self.setup.request.techniques.correction_history()
            && !in_check
            && excluded.is_none()
            && best_move.is_none_or(is_quiet)
            && clamped.abs() < TB_WIN_BOUND
            && !(bound == Bound::Lower && clamped <= static_eval)
            && !(bound == Bound::Upper && clamped >= static_eval)
        {
            let keys = self.correction_keys(ply);
            self.memory
                .corrections
                .update(&keys, depth, clamped - raw_eval);
        }
        clamped
    }

    /// Butterfly and continuation history of the quiet move `m` by `side` at
    /// `ply`: how it fared here before. Looked up only where a rule needs it.
    fn quiet_history(&self, ply: usize, side: shakmaty::Color, m: Move) -> i32 {
        self.memory.history.get(side, m) + self.quiet_context(ply).continuation(side, m)
    }

    /// Draw by rule inside the search: fifty moves, repetition, or material
    /// that can't mate.
    fn is_draw(&mut self, ply: usize) -> bool {
        let repetition = self.pos.check_repetition(ply);
        self.stats.repetitions.count(repetition);
        if repetition.is_draw() {
            return true;
        }
        if self.pos.piece_count() <= 4 && self.pos.is_insufficient_material() {
            return true;
        }
        // Mate on the hundredth ply still counts: only a position with a
        // legal move is drawn by the fifty-move rule.
        self.pos.is_fifty_move_draw()
            && (!self.pos.in_check() || !self.pos.board().legal_moves().is_empty())
    }

    /// The tablebase result of this node as a score and the bound it
    /// proves, if `Syzygy::probe_search` has one: a win is at least a win
    /// `ply` plies from the root (a mate may be better), a loss at most
    /// that; draws are exact. A checkmate stays a mate.
    ///
    /// A probe may read the disk (a cold table: milliseconds), so none
    /// starts once the hard time limit is nearer than the slowest probe of
    /// this search took: the node is searched as if outside the tables.
    fn probe_tablebase(&mut self, tb: &Syzygy, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        if !tb.probes(&self.pos, depth) {
            return None;
        }
        if self
            .setup
            .time_to_hard_limit()
            .is_some_and(|left| left <= self.slowest_probe)
        {
            self.stats.tb_probes_skipped += 1;
            return None;
        }
        let started = Instant::now();
        let wdl = tb.probe_search(&self.pos, depth);
        let took = started.elapsed();
        self.slowest_probe = self.slowest_probe.max(took);
        self.stats.tb_probes += 1;
        self.stats.tb_probe_time += took;
        let wdl = wdl?;
        if wdl == Wdl::Loss && self.pos.in_check() && self.pos.board().legal_moves().is_empty() {
            return None;
        }
        self.setup.control.tb_hits.fetch_add(1, Ordering::Relaxed);
        Some(tb_score(wdl, ply))
    }

    /// Null-move pruning: pass, and search the reply with a reduced depth;
    /// if we are still at or above beta, return a cutoff score.
    fn null_move_cutoff(
        &mut self,
        depth: i32,
        eval: i32,
        beta: i32,
        ply: usize,
        cut_node: bool,
    ) -> Option<i32> {
        let r = null_move_reduction(depth, eval, beta);
        self.stack[ply].moved = None;
        self.stack[ply + 1].double_extensions = self.stack[ply].double_extensions;
        self.pos.make_null();
        self.setup.tt.prefetch(self.pos.key());
        let score = -self.negamax(depth - 1 - r, -beta, -beta + 1, ply + 1, !cut_node);
        self.pos.unmake();
        if self.stopped || score < beta {
            return None;
        }
        // Mates (and tablebase wins) found after a pass are not proven:
        // claim only beta.
        let score = if score >= TB_WIN_BOUND { beta } else { score };
        if !null_move_needs_verification(depth) {
            return Some(score);
        }
        // Verify with a real reduced search without null moves.
        self.null_move_disabled = true;
        let verified = self.negamax(depth - 1 - r, beta - 1, beta, ply, cut_node);
        self.null_move_disabled = false;
        (verified >= beta).then_some(score)
    }

    /// Enhanced transposition cutoff: before searching a node's moves, look
    /// the children up; if one is known to refute this node (its score for
    /// us reaches beta at enough depth), there is nothing to search.
    fn etc_cutoff(&mut self, depth: i32, beta: i32, ply: usize) -> Option<i32> {
        for m in self.pos.board().legal_moves() {
            self.stats.etc_probes += 1;
            let key = self.pos.key_after(m);
            let Some(e) = self.setup.tt.probe(key) else {
                continue;
            };
            let child_score = -score_from_tt(e.score, ply + 1);
            // The child's upper bound (or exact score) is our lower bound.
            if e.depth >= depth - 1
                && matches!(e.bound, Bound::Upper | Bound::Exact)
                && child_score >= beta
            {
                // A child that repeats or ends the game in a way the table
                // can't see is caught when it is searched; play safe and
                // trust only ordinary scores.
                if child_score.abs() < MATE_BOUND {
                    self.stats.etc_cutoffs += 1;
                    return Some(child_score);
                }
            }
        }
        None
    }

    /// The counter-move slot for the move that led to this position.
    fn counter_slot(&self) -> Option<(usize, usize)> {
        let m = self.pos.last_move()?;
        let piece = m.role().of(!self.pos.turn());
        let to = match m {
            Move::Castle { king, .. } => king,
            _ => m.to(),
        };
        Some((piece_index(piece), to.to_usize()))
    }

    /// A quiet move caused a cutoff: remember it, and lower the histories
    /// of the quiet moves tried before it.
    fn reward_quiet(&mut self, ply: usize, m: Move, depth: i32, tried: &[Move]) {
        let techniques = self.setup.request.techniques;
        let side = self.pos.turn();
        let bonus = stat_bonus(depth);
        let malus = stat_malus(depth);
        if techniques.history() {
            self.memory.history.update(side, m, bonus);
            for &q in tried {
                self.memory.history.update(side, q, -malus);
            }
        }
        if techniques.continuation_history() {
            for back in [1, 2] {
                let Some(earlier) = self.stack.moved_back(ply, back) else {
                    continue;
                };
                let continuation = &mut self.memory.continuation;
                continuation.update(earlier, PieceTo::of(side, m), bonus);
                for &q in tried {
                    continuation.update(earlier, PieceTo::of(side, q), -malus);
                }
            }
        }
        let killers = &mut self.stack[ply].killers;
        if techniques.killers() && killers[0] != Some(m) {
            killers[1] = killers[0];
            killers[0] = Some(m);
        }
        if techniques.counter_moves()
            && let Some((piece, to)) = self.counter_slot()
        {
            self.memory.counter_moves[piece][to] = Some(m);
        }
    }

    /// A move caused a cutoff: the captures tried before it failed, and if
    /// it is a capture itself, it gets the credit.
    fn reward_capture(&mut self, m: Move, depth: i32, tried: &[Move]) {
        if !self.setup.request.techniques.history() {
            return;
        }
        let side = self.pos.turn();
        if m.is_capture() {
            self.memory
                .history
                .update_capture(side, m, stat_bonus(depth));
        }
        let malus = stat_malus(depth);
        for &c in tried {
            self.memory.history.update_capture(side, c, -malus);
        }
    }
}
