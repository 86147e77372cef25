//! Iterative deepening and the root: depth after depth with aspiration
//! windows, a principal variation search over the root moves (MultiPV,
//! `searchmoves`, tablebase ranking), the limits checked between
//! iterations, and the `info` lines.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use log::debug;
use shakmaty::{Move, Position as _};

use super::{LineInfo, RootMove, SearchResult, Searcher, tb_score};
use crate::channel;
use crate::params;
use crate::score::{DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_WIN_BOUND, format_score};
use crate::tablebase::{RankedBy, Syzygy, Wdl};
use crate::timeman::{soft_limit_scale, soft_limit_share};
use crate::wdl;

/// Failed aspiration windows are reported once a search has run this long,
/// and each root move as it is searched (`currmove`) once it has run
/// `CURRMOVE_AFTER`: a GUI shows them in a long search; a short one would
/// only flood the pipe.
const BOUNDS_AFTER: Duration = Duration::from_secs(1);
const CURRMOVE_AFTER: Duration = Duration::from_secs(3);

/// A root in the tablebases: the moves that keep its best result, and that
/// result. Ranked once a search, by the first thread that gets there.
#[derive(Debug)]
pub struct RankedRoot {
    moves: Vec<Move>,
    wdl: Wdl,
}

impl Searcher<'_> {
    /// The legal root moves, restricted by `searchmoves` if given; the
    /// table's move (an earlier search's best) first.
    fn collect_root_moves(&mut self) -> Vec<RootMove> {
        let legal = self.pos.board().legal_moves();
        let wanted = &self.setup.request.limits.searchmoves;
        let mut moves: Vec<RootMove> = legal
            .into_iter()
            .filter(|m| wanted.is_empty() || wanted.contains(m))
            .map(|mv| RootMove {
                mv,
                score: -INFINITY,
                pv: vec![mv],
                seldepth: 0,
                nodes: 0,
            })
            .collect();
        if let (_, Some(tt_move)) = self.probe_tt(0)
            && let Some(i) = moves.iter().position(|rm| rm.mv == tt_move)
        {
            moves[..=i].rotate_right(1);
        }
        moves
    }

    /// Iterative deepening: depth 1, 2, ... until a limit or `stop`.
    pub fn iterate(&mut self) -> SearchResult {
        self.root_moves = self.collect_root_moves();
        self.keep_best_tablebase_moves();
        // Whatever came before (the ranking's probes, the thread's start,
        // a busy machine) counts: at the hard limit already, the search
        // ends after the first iteration.
        self.check_clock();
        if self.root_moves.is_empty() {
            let (score, chances) = if self.pos.in_check() {
                (-MATE, [0, 0, 1000])
            } else {
                (DRAW, [0, 1000, 0]) // stalemate: a draw for sure
            };
            if self.verbose() {
                channel::send(&format!(
                    "info depth 0 score {}{} tbhits 0",
                    format_score(score),
                    self.wdl_text(chances)
                ));
            }
            return SearchResult {
                best: None,
                ponder: None,
                score,
                depth: 0,
                seldepth: 0,
                pv: Vec::new(),
                nodes: 0,
                stats: self.stats,
            };
        }
        let max_depth = self
            .setup
            .request
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .clamp(1, MAX_PLY as u32 - 1);
        let multipv = self.setup.request.lines().clamp(1, self.root_moves.len());
        // Helpers start one ply deeper on odd threads so that the threads
        // don't all search the same tree in lockstep.
        let first_depth = 1 + (self.thread_id as u32 & 1).min(max_depth - 1);

        self.stack[0].static_eval = if self.pos.in_check() {
            super::NO_EVAL
        } else {
            self.memory.evaluator.evaluate(&self.pos)
        };
        let mut previous_best = self.root_moves[0].mv;
        for depth in first_depth..=max_depth {
            self.root_depth = depth;
            for pv_index in 0..multipv {
                self.pv_index = pv_index;
                self.seldepth = 0;
                self.aspiration_search(depth);
                if self.stopped {
                    break;
                }
                // A later line can score above an earlier one (each is a
                // search of its own, and the earlier only proved the rest
                // no better within its window): the finished lines are
                // ranked again, as Stockfish does, so that they are
                // reported best first and the first is the move played,
                // whichever line a stop interrupts. Stable: equal scores
                // keep the order they were found in.
                self.root_moves[..=pv_index].sort_by_key(|rm| -rm.score);
            }
            if self.stopped {
                break;
            }
            if self.completed_depth > 0 && self.root_moves[0].mv == previous_best {
                self.best_move_stability += 1;
            } else {
                self.best_move_stability = 0;
            }
            previous_best = self.root_moves[0].mv;
            if self.completed_depth == 0 && self.thread_id == 0 {
                debug!(
                    "search: first iteration (depth {depth}) done at {:.1} ms",
                    self.setup.elapsed().as_secs_f64() * 1000.0
                );
            }
            self.completed_depth = depth;
            self.has_move_to_play = true;
            // A search that chooses among its lines (a weakened one) reports
            // only the line it plays, once it has chosen (`engine`): the
            // candidates are not lines the user asked for.
            if self.verbose() && !self.setup.request.chooses_line() {
                for i in 0..multipv {
                    self.report(depth, i, "");
                }
            }
            if self.iteration_limit_reached(depth) {
                break;
            }
        }
        self.publish_nodes();
        // Every make was unmade (null moves included): the stack is back at
        // the root and the repetition counters are the game history's.
        debug_assert!(self.pos.repetition_counts_consistent());
        let best = self.root_moves[0].clone();
        let ponder = best
            .pv
            .get(1)
            .copied()
            .or_else(|| self.tt_move_after(best.mv));
        SearchResult {
            best: Some(best.mv),
            ponder,
            score: self.shown_score(best.score),
            depth: self.completed_depth,
            seldepth: best.seldepth,
            pv: best.pv,
            nodes: self.nodes,
            stats: self.stats,
        }
    }

    /// Searches the root with a narrow window around the last score,
    /// widening it on each fail until the score falls inside.
    fn aspiration_search(&mut self, depth: u32) {
        let previous = self.root_moves[self.pv_index].score;
        let mut delta = params::aspiration_window();
        let (mut alpha, mut beta) = if self.setup.request.techniques.aspiration()
            && depth as i32 >= params::aspiration_min_depth()
            && previous.abs() < MATE_BOUND
        {
            (previous - delta, previous + delta)
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let score = self.search_root(depth, alpha, beta);
            // Stable: moves that proved only "worse" keep their order.
            self.root_moves[self.pv_index..].sort_by_key(|rm| -rm.score);
            if self.stopped {
                return;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
                self.report_bound(depth, "upperbound");
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
                self.report_bound(depth, "lowerbound");
            } else {
                return;
            }
            delta += delta * params::aspiration_growth() / 100;
            if delta > params::aspiration_max_window() {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// A failed aspiration search, reported once a search runs long enough
    /// for a GUI to show it. With several lines only exact scores are
    /// shown, as Stockfish does: a GUI lists MultiPV lines by their number,
    /// and a bound would stand in the list beside exact lines as if it
    /// were one.
    fn report_bound(&self, depth: u32, bound: &str) {
        if self.verbose() && self.setup.request.lines() == 1 && self.setup.elapsed() >= BOUNDS_AFTER
        {
            self.report(depth, self.pv_index, bound);
        }
    }

    fn verbose(&self) -> bool {
        self.setup.verbose && self.thread_id == 0
    }

    /// The table's move for the position after `m` (a ponder move when the
    /// PV was cut short by a table hit).
    fn tt_move_after(&mut self, m: Move) -> Option<Move> {
        self.pos.make(m);
        let reply = self
            .setup
            .tt
            .probe(self.pos.key())
            .and_then(|e| self.pos.decode_move(e.mv));
        self.pos.unmake();
        reply
    }

    /// After a completed iteration: is it time to stop?
    fn iteration_limit_reached(&mut self, depth: u32) -> bool {
        let setup = self.setup;
        if setup.control.stopped() {
            return true;
        }
        if let Some(mate) = setup.request.limits.mate {
            let best = self.root_moves[0].score;
            if best >= MATE_BOUND && (MATE - best + 1) / 2 <= mate as i32 {
                return self.finish_early();
            }
        }
        if setup.request.limits.depth.is_some_and(|d| depth >= d)
            || setup
                .request
                .limits
                .soft_nodes
                .is_some_and(|n| self.nodes >= n)
        {
            return self.finish_early();
        }
        // The next iteration costs a few times this one: don't start one
        // that can't finish. A settled root stops sooner, an unsettled one
        // later (`soft_limit_scale`).
        let soft_limit = setup
            .budget
            .optimum
            .map(|opt| opt.mul_f64(soft_limit_share() * self.soft_limit_scale()));
        if self.thread_id == 0 && setup.spent(soft_limit) {
            return self.finish_early();
        }
        depth as usize >= MAX_PLY - 1
    }

    /// The share of the soft time limit this root deserves: from the
    /// fraction of nodes the best move took and how long it has been best.
    /// Shallow iterations are too short to tell.
    fn soft_limit_scale(&self) -> f64 {
        let total: u64 = self.root_moves.iter().map(|rm| rm.nodes).sum();
        if (self.completed_depth as i32) < params::time_scale_min_depth() || total == 0 {
            return 1.0;
        }
        let best = self.root_moves[0].nodes as f64 / total as f64;
        soft_limit_scale(best, self.best_move_stability)
    }

    /// A limit of our own is reached. Stop the other threads; in `infinite`
    /// or ponder mode the engine waits for `stop`/`ponderhit` before it
    /// answers, which the caller handles.
    fn finish_early(&self) -> bool {
        if self.thread_id == 0 {
            self.setup.control.lifecycle.limit_reached();
        }
        true
    }

    fn report(&self, depth: u32, index: usize, bound: &str) {
        let rm = &self.root_moves[index];
        let pv: Vec<String> = rm.pv.iter().map(|m| self.pos.uci(*m)).collect();
        let score = self.shown_score(rm.score);
        let info = LineInfo {
            depth,
            seldepth: rm.seldepth,
            multipv: index + 1,
            score,
            bound,
            wdl: self.setup.shown_wdl(score),
            nodes: self.setup.control.nodes.load(Ordering::Relaxed) + self.unpublished_nodes,
            time: self.setup.elapsed(),
            hashfull: self.setup.tt.hashfull(),
            tb_hits: self.setup.control.tb_hits.load(Ordering::Relaxed),
            pv: &pv,
        };
        channel::send(&info.to_uci());
    }

    /// ` wdl W D L` when `UCI_ShowWDL` is on (after the score, before any
    /// bound, as Stockfish prints it), else nothing.
    fn wdl_text(&self, chances: [u32; 3]) -> String {
        if self.setup.request.show_wdl {
            wdl::uci_text(chances)
        } else {
            String::new()
        }
    }

    /// The root: principal variation search over the root moves from
    /// `pv_index` on (earlier ones are the better MultiPV lines).
    fn search_root(&mut self, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        let depth = depth as i32;
        let window_alpha = alpha;
        let mut best = -INFINITY;
        for i in self.pv_index..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            if self.verbose() && self.setup.elapsed() >= CURRMOVE_AFTER {
                channel::send(&format!(
                    "info depth {depth} currmove {} currmovenumber {}",
                    self.pos.uci(m),
                    i + 1
                ));
            }
            let nodes_before = self.nodes;
            self.make_move(m, 0);
            self.stack[1].double_extensions = 0;
            let score = if i == self.pv_index {
                -self.negamax(depth - 1, -beta, -alpha, 1, false)
            } else {
                let s = -self.negamax(depth - 1, -alpha - 1, -alpha, 1, true);
                if s > alpha && s < beta {
                    -self.negamax(depth - 1, -beta, -alpha, 1, false)
                } else {
                    s
                }
            };
            self.pos.unmake();
            self.root_moves[i].nodes += self.nodes - nodes_before;
            if self.should_stop() {
                return best;
            }
            let rm = &mut self.root_moves[i];
            if i == self.pv_index || score > alpha {
                rm.score = score;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(m);
                rm.pv.extend_from_slice(self.stack.pv(1));
            } else {
                rm.score = -INFINITY;
            }
            best = best.max(score);
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
            if best > window_alpha && self.soft_nodes_spent() {
                // The best move so far has an exact score at this depth;
                // the rest would only check the alternatives.
                for rm in &mut self.root_moves[i + 1..] {
                    rm.score = -INFINITY;
                }
                self.stopped = self.finish_early();
                return best;
            }
        }
        best
    }

    /// Past the soft node limit, an iteration ends as soon as its best
    /// move has an exact score, instead of running to the hard limit (it
    /// costs a few times the last one): one line on one thread, unless the
    /// limits ask for the iteration to finish.
    fn soft_nodes_spent(&self) -> bool {
        let limits = &self.setup.request.limits;
        self.thread_id == 0
            && self.setup.request.lines() == 1
            && !limits.finish_iteration
            && limits.soft_nodes.is_some_and(|n| self.nodes >= n)
    }

    /// A root in the tablebases: its moves are ranked and only those that
    /// keep the best result are searched (`Syzygy::rank_root_moves`), so
    /// that even a one-ply search converts a win and holds a draw. The
    /// first thread here ranks; the others wait for it and share its
    /// ranking.
    fn keep_best_tablebase_moves(&mut self) {
        let Some(tb) = self.setup.request.syzygy.as_ref() else {
            return;
        };
        let setup = self.setup;
        let ranked = setup.ranked_root.get_or_init(|| self.rank_root(tb));
        if let Some(ranked) = ranked {
            self.root_moves.retain(|rm| ranked.moves.contains(&rm.mv));
            self.root_tb = Some(ranked.wdl);
        }
    }

    /// The ranking of `keep_best_tablebase_moves`. Its probes may read the
    /// disk (milliseconds each on a cold table), so they answer to the
    /// clock: at half the hard limit the DTZ probes give way to the WDL
    /// ranking, and if even that hasn't finished, to none; a `stop` ends
    /// them at once. (Half: the ranking decides a root in the tables more
    /// than any search does, but the first iteration must still fit.)
    fn rank_root(&mut self, tb: &Syzygy) -> Option<RankedRoot> {
        let setup = self.setup;
        let moves: Vec<Move> = self.root_moves.iter().map(|rm| rm.mv).collect();
        let deadline = setup.budget.maximum.map(|m| m / 2);
        let started = Instant::now();
        let mut time_up = || setup.control.stopped() || setup.spent(deadline);
        let ranking = tb.rank_root_moves(&mut self.pos, &moves, &mut time_up);
        debug!(
            "syzygy: root ranking {} in {:.1} ms, {} ms into the search",
            match &ranking {
                Some(r) if r.by == RankedBy::Dtz => "by DTZ",
                Some(_) => "by WDL (DTZ did not finish)",
                None => "none",
            },
            started.elapsed().as_secs_f64() * 1000.0,
            setup.elapsed().as_millis()
        );
        let ranking = ranking?;
        let best = ranking.ranks.iter().max_by_key(|r| r.rank).copied()?;
        setup
            .control
            .tb_hits
            .fetch_add(moves.len() as u64, Ordering::Relaxed);
        let kept = moves
            .iter()
            .zip(&ranking.ranks)
            .filter(|(_, r)| r.rank == best.rank)
            .map(|(m, _)| *m)
            .collect();
        Some(RankedRoot {
            moves: kept,
            wdl: best.wdl,
        })
    }

    /// The score shown for a root move: the search's, unless the root was
    /// ranked by the tablebases and the search found no mate or tablebase
    /// result of its own; then the root's tablebase result.
    fn shown_score(&self, score: i32) -> i32 {
        match self.root_tb {
            Some(wdl) if score.abs() < TB_WIN_BOUND => tb_score(wdl, 0).0,
            _ => score,
        }
    }
}
