//! The search: iterative deepening over a negamax alpha-beta search with a
//! quiescence search at the leaves.
//!
//! One `Searcher` runs per search thread. Thread 0 owns the clock and the
//! output; the others (Lazy SMP helpers) search the same root silently and
//! help through the shared transposition table.
//!
//! - `root`: iterative deepening, aspiration windows, the root moves, limits
//!   and `info` output;
//! - `negamax`: the search of a node, with its table, tablebase,
//!   extension and history logic;
//! - `pruning`: the pruning and reduction rules as small predicates, with
//!   their parameters;
//! - `quiescence`: captures until the position is quiet;
//! - `smp`: which thread's result a Lazy SMP search plays;
//! - `stack`: what the search keeps for each ply of its path;
//! - `info`: the `info` line of a root line;
//! - `lifecycle`: a search's phases (pondering, searching, stopping, done),
//!   shared with the UCI thread;
//! - `techniques`: the switches of ablation experiments.
//!
//! This file holds what they share: what a search is asked
//! (`SearchRequest`), what its threads share (`SearchSetup`, `Control`),
//! what a thread keeps from move to move (`SearchMemory`) and for one search
//! (`Searcher`), and the table, node-counting and move helpers.

mod info;
mod lifecycle;
mod negamax;
mod pruning;
mod quiescence;
mod root;
mod smp;
mod stack;
mod techniques;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use shakmaty::{Move, Position as _};

use crate::evaluator::Evaluator;
use crate::history::{
    ContinuationHistory, CorrectionHistory, CorrectionKeys, History, PieceTo, QuietContext,
};
use crate::nnue::Network;
use crate::position::{Position, RepetitionStats};
use crate::strength::Strength;
use crate::tablebase::{Syzygy, Wdl};
use crate::timeman::{Limits, TimeBudget};
use crate::tt::{Bound, TranspositionTable, TtEntry, score_from_tt, score_to_tt};
use crate::wdl;
use pruning::ReductionTable;
use stack::SearchStack;

pub use crate::score::{
    DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_WIN, TB_WIN_BOUND, TB_WIN_CP, format_score,
};
pub use info::LineInfo;
pub use lifecycle::Lifecycle;
pub use root::RankedRoot;
pub use smp::best_thread;
pub use techniques::Techniques;

/// The static evaluation of a node in check: none (below every score).
const NO_EVAL: i32 = -INFINITY;

/// How many nodes pass between looks at the clock.
const CLOCK_CHECK_INTERVAL: u64 = 1024;

/// State shared by every thread of one search and the UCI thread: its
/// life cycle (`go`, `stop`, `ponderhit` and the search's own limits move
/// it) and the counts its `info` lines report.
#[derive(Debug, Default)]
pub struct Control {
    pub lifecycle: Lifecycle,
    /// Nodes of all threads, published in batches.
    pub nodes: AtomicU64,
    /// Successful tablebase probes of all threads.
    pub tb_hits: AtomicU64,
}

impl Control {
    /// A new search begins (on the opponent's time if `pondering`).
    pub fn start(&self, pondering: bool) {
        self.lifecycle.start(pondering);
        self.nodes.store(0, Ordering::SeqCst);
        self.tb_hits.store(0, Ordering::SeqCst);
    }

    pub fn stopped(&self) -> bool {
        self.lifecycle.must_stop()
    }
}

/// What one search is asked to do, whoever asks: `go` (the UCI loop builds
/// it, the engine fits it to the strength level and the clock), bench, a
/// test suite, data generation or a test. Every thread of the search reads
/// it through its `SearchSetup`.
#[derive(Clone)]
pub struct SearchRequest {
    /// When the `go` line was read: the clock counts from then, so that
    /// whatever kept the engine from starting at once (a previous search
    /// to join, a command before it) is paid from the same budget.
    pub received: Instant,
    pub position: Position,
    pub limits: Limits,
    pub threads: usize,
    pub multipv: usize,
    /// `info` lines carry the win/draw/loss chances (`UCI_ShowWDL`).
    pub show_wdl: bool,
    pub move_overhead_ms: u64,
    /// Which techniques are on (all, except in ablation experiments).
    pub techniques: Techniques,
    /// The evaluation network.
    pub net: Arc<Network>,
    /// Endgame tablebases, if any are loaded and probing is on.
    pub syzygy: Option<Syzygy>,
    /// `UCI_LimitStrength`: play at this level (`None`: full strength).
    pub strength: Option<Strength>,
}

impl SearchRequest {
    /// A search of `position` within `limits` at full strength on one
    /// thread with the embedded net, no tablebases and no clock overhead:
    /// what bench, test suites, data generation and tests ask (`..` sets
    /// the rest).
    pub fn new(position: Position, limits: Limits) -> Self {
        SearchRequest {
            received: Instant::now(),
            position,
            limits,
            threads: 1,
            multipv: 1,
            show_wdl: false,
            move_overhead_ms: 0,
            techniques: Techniques::ALL,
            net: crate::nnue::embedded(),
            syzygy: None,
            strength: None,
        }
    }

    /// Does the search choose its move among candidate lines (a weakened
    /// search, `strength`) rather than play its best line?
    pub fn chooses_line(&self) -> bool {
        self.strength.as_ref().is_some_and(|s| s.level.chooses())
    }

    /// The root lines the search ranks: `multipv`, or the level's
    /// candidate lines where a weakened search chooses among more.
    pub fn lines(&self) -> usize {
        match &self.strength {
            Some(s) if s.level.chooses() => self.multipv.max(s.level.lines),
            _ => self.multipv,
        }
    }
}

/// What the threads of one search share: the request, the engine's table
/// and control flags, and what the search works out once (the time budget,
/// the root's tablebase ranking).
pub struct SearchSetup<'a> {
    pub request: &'a SearchRequest,
    pub control: &'a Control,
    pub tt: &'a TranspositionTable,
    pub budget: TimeBudget,
    /// Print `info` lines (thread 0 only, and not in bench).
    pub verbose: bool,
    /// The root's tablebase ranking, made by the first thread to need it
    /// and read by the others (`None` inside: the root isn't ranked).
    /// Filled by the search: leave it empty.
    pub ranked_root: OnceLock<Option<RankedRoot>>,
}

impl<'a> SearchSetup<'a> {
    /// A silent search of `request` (its depth, nodes or movetime; no
    /// clock) for bench, test suites, data generation, tests and
    /// experiments.
    pub fn quiet(
        request: &'a SearchRequest,
        control: &'a Control,
        tt: &'a TranspositionTable,
    ) -> Self {
        SearchSetup {
            request,
            control,
            tt,
            budget: TimeBudget {
                optimum: None,
                maximum: request.limits.movetime.map(Duration::from_millis),
            },
            verbose: false,
            ranked_root: OnceLock::new(),
        }
    }

    /// Time since the request was made (for `go`, since its line was
    /// read): what the clock counts and `info` lines report.
    pub fn elapsed(&self) -> Duration {
        self.request.received.elapsed()
    }

    /// The win/draw/loss chances of a root score by the model, where
    /// `UCI_ShowWDL` asks for them in `info` lines.
    pub fn shown_wdl(&self, score: i32) -> Option<[u32; 3]> {
        let board = self.request.position.board().board();
        self.request
            .show_wdl
            .then(|| wdl::MODEL.per_mille(score, wdl::material(board)))
    }

    /// Time counted against the budget (after `ponderhit` if pondering).
    fn budget_elapsed(&self) -> Duration {
        self.elapsed()
            .saturating_sub(self.control.lifecycle.budget_origin())
    }

    /// Has the search spent `limit` of its budget? Never while pondering:
    /// the budget counts from `ponderhit`.
    fn spent(&self, limit: Option<Duration>) -> bool {
        limit.is_some_and(|limit| {
            !self.control.lifecycle.pondering() && self.budget_elapsed() >= limit
        })
    }

    /// The time left before the hard limit (`None`: no hard limit, or
    /// pondering).
    fn time_to_hard_limit(&self) -> Option<Duration> {
        let maximum = self.budget.maximum?;
        if self.control.lifecycle.pondering() {
            return None;
        }
        Some(maximum.saturating_sub(self.budget_elapsed()))
    }
}

#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    /// Score of the last completed search of this move, or -INFINITY if it
    /// only proved to be worse than the best.
    pub score: i32,
    pub pv: Vec<Move>,
    pub seldepth: usize,
    /// Nodes searched under this move in the whole search (time management).
    pub nodes: u64,
}

/// What a search thread returns.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    /// The last completed iteration's depth.
    pub depth: u32,
    /// The deepest ply its line's search reached.
    pub seldepth: usize,
    /// The principal variation from the root (empty without a legal move).
    pub pv: Vec<Move>,
    pub nodes: u64,
    pub stats: SearchStats,
}

/// Counters for measurements and the debug log.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchStats {
    pub tt_probes: u64,
    pub tt_hits: u64,
    pub tt_cutoffs: u64,
    /// Stored moves that were not legal in the probing position: a key
    /// collision (type-1 error) or a torn entry, caught before use.
    pub tt_move_rejections: u64,
    /// Enhanced transposition cutoffs: nodes decided by a child's entry.
    pub etc_probes: u64,
    pub etc_cutoffs: u64,
    /// Table moves searched a ply deeper as singular.
    pub singular_extensions: u64,
    /// Tablebase probes made in the search (not the root's ranking), the
    /// time they took, and those skipped because the hard time limit was
    /// nearer than the slowest probe had taken.
    pub tb_probes: u64,
    pub tb_probe_time: Duration,
    pub tb_probes_skipped: u64,
    pub repetitions: RepetitionStats,
}

/// What a search thread learns that stays true for the next move of the same
/// game: the move histories, the counter-moves and the evaluation cache. The
/// engine keeps one per thread from move to move (a new search would otherwise
/// relearn its move ordering from nothing), and forgets them on `ucinewgame`.
pub struct SearchMemory {
    history: History,
    continuation: ContinuationHistory,
    /// How wrong the static evaluation was, by structure and moves.
    corrections: CorrectionHistory,
    /// The quiet reply that refuted a move, by the moved piece and target.
    counter_moves: Box<[[Option<Move>; 64]; 12]>,
    /// The evaluation, with its cache of positions this thread has seen
    /// and the net's accumulators.
    evaluator: Evaluator,
}

impl Default for SearchMemory {
    fn default() -> Self {
        SearchMemory {
            history: History::default(),
            continuation: ContinuationHistory::default(),
            corrections: CorrectionHistory::default(),
            counter_moves: Box::new([[None; 64]; 12]),
            evaluator: Evaluator::default(),
        }
    }
}

/// One thread's search of one position: per search, what it keeps along
/// its path (`stack`: PV, killers, excluded moves), at the root and for
/// counting and stopping; per thread, across the moves of a game, its
/// `SearchMemory`; shared with the other threads, the `SearchSetup`.
pub struct Searcher<'a> {
    // What the search shares with its other threads.
    setup: &'a SearchSetup<'a>,
    thread_id: usize,
    // What this thread keeps from one search to the next.
    memory: SearchMemory,
    // The path from the root to the node being searched.
    pub pos: Position,
    /// What the search keeps for each ply of the path.
    stack: SearchStack,
    /// Null moves are off for the rest of a verification search.
    null_move_disabled: bool,
    // The root and its iterations.
    root_moves: Vec<RootMove>,
    /// The MultiPV line being searched (earlier ones are better lines).
    pv_index: usize,
    /// The iteration's depth; extensions stop at twice this ply.
    root_depth: u32,
    completed_depth: u32,
    /// Completed iterations in a row that ended with the same best move.
    best_move_stability: u32,
    /// The root's tablebase result when the root moves were ranked (by
    /// DTZ, or by WDL where the clock left no time for DTZ).
    root_tb: Option<Wdl>,
    /// Late move reductions by depth and move number, for this search's
    /// parameters.
    reductions: ReductionTable,
    // Counting and stopping.
    pub nodes: u64,
    /// Nodes not yet added to `Control::nodes`.
    unpublished_nodes: u64,
    seldepth: usize,
    stopped: bool,
    /// A stop (the user's or a limit's) is obeyed only once the first
    /// iteration is done: it takes microseconds, and before it ends the
    /// move in hand is whichever root move came first, not the best of
    /// them (a `stop` at once beside a mate in one played another move).
    /// Helpers need none: their votes count only after a completed
    /// iteration.
    has_move_to_play: bool,
    /// The slowest tablebase probe of this search so far: no probe starts
    /// nearer than this to the hard time limit (a cold table's probe reads
    /// the disk).
    slowest_probe: Duration,
    pub stats: SearchStats,
}

/// A tablebase result `ply` plies from the root as a score, with the bound
/// it proves. With the fifty-move rule on, a cursed win (a win the rule
/// spoils) is a draw nudged up, a blessed loss a draw nudged down.
fn tb_score(wdl: Wdl, ply: usize) -> (i32, Bound) {
    let ply = ply as i32;
    match wdl {
        Wdl::Win => (TB_WIN - ply, Bound::Lower),
        Wdl::Loss => (-TB_WIN + ply, Bound::Upper),
        Wdl::CursedWin => (DRAW + 2, Bound::Exact),
        Wdl::BlessedLoss => (DRAW - 2, Bound::Exact),
        Wdl::Draw => (DRAW, Bound::Exact),
    }
}

impl<'a> Searcher<'a> {
    /// A searcher of the setup's position that has learned nothing yet.
    pub fn new(setup: &'a SearchSetup<'a>, thread_id: usize) -> Self {
        Self::with_memory(setup, thread_id, SearchMemory::default())
    }

    /// A searcher that starts from what an earlier search of this thread
    /// learned (see [`SearchMemory`]).
    pub fn with_memory(
        setup: &'a SearchSetup<'a>,
        thread_id: usize,
        mut memory: SearchMemory,
    ) -> Self {
        memory.evaluator.use_net(&setup.request.net);
        Searcher {
            pos: setup.request.position.clone(),
            setup,
            thread_id,
            nodes: 0,
            unpublished_nodes: 0,
            seldepth: 0,
            root_moves: Vec::new(),
            pv_index: 0,
            completed_depth: 0,
            best_move_stability: 0,
            stack: SearchStack::default(),
            memory,
            reductions: ReductionTable::new(),
            null_move_disabled: false,
            root_depth: 0,
            stopped: false,
            has_move_to_play: thread_id != 0,
            slowest_probe: Duration::ZERO,
            root_tb: None,
            stats: SearchStats::default(),
        }
    }

    /// The root moves as the last search ranked them, best first; the
    /// first `MultiPV` have lines and scores of their own (`strength`
    /// chooses among them).
    pub fn root_moves(&self) -> &[RootMove] {
        &self.root_moves
    }

    /// What this search learned, for the next one.
    pub fn into_memory(self) -> SearchMemory {
        self.memory
    }

    /// The table key of this node: the position's key, or for a
    /// singular-extension search (the same position without one move) that
    /// key folded with the excluded move, so that the sub-search's entries
    /// are never mistaken for the full node's.
    fn node_key(&self, ply: usize) -> u64 {
        match self.stack[ply].excluded {
            None => self.pos.key(),
            // An odd multiplier maps every non-zero move code to a non-zero
            // scramble, so the folded key always differs from the plain one.
            Some(m) => {
                let code = u64::from(Position::encode_move(m)) + 1;
                self.pos.key() ^ code.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            }
        }
    }

    /// The table's entry for the current position with its mate score
    /// converted to this ply, and its move if that is legal here.
    fn probe_tt(&mut self, ply: usize) -> (Option<TtEntry>, Option<Move>) {
        self.stats.tt_probes += 1;
        let Some(mut entry) = self.setup.tt.probe(self.node_key(ply)) else {
            return (None, None);
        };
        self.stats.tt_hits += 1;
        entry.score = score_from_tt(entry.score, ply);
        let mv = if entry.mv == 0 {
            None
        } else {
            let decoded = self.pos.decode_move(entry.mv);
            if decoded.is_none() {
                self.stats.tt_move_rejections += 1;
            }
            decoded
        };
        (Some(entry), mv)
    }

    fn store_tt(&self, ply: usize, best_move: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let code = best_move.map_or(0, Position::encode_move);
        self.setup.tt.store(
            self.node_key(ply),
            code,
            score_to_tt(score, ply),
            depth,
            bound,
            self.pos.piece_count(),
        );
    }

    fn publish_nodes(&mut self) {
        self.setup
            .control
            .nodes
            .fetch_add(self.unpublished_nodes, Ordering::Relaxed);
        self.unpublished_nodes = 0;
    }

    /// Counts a node and, every so often, looks at the limits.
    fn count_node(&mut self) {
        self.nodes += 1;
        self.unpublished_nodes += 1;
        if self.unpublished_nodes >= CLOCK_CHECK_INTERVAL {
            self.publish_nodes();
        }
        if self.thread_id != 0 {
            return;
        }
        let setup = self.setup;
        if self.completed_depth > 0
            && let Some(limit) = setup.request.limits.nodes
        {
            let all = setup.control.nodes.load(Ordering::Relaxed) + self.unpublished_nodes;
            if all >= limit {
                setup.control.lifecycle.limit_reached();
            }
        }
        if self.nodes.is_multiple_of(CLOCK_CHECK_INTERVAL) {
            self.check_clock();
        }
    }

    /// The main thread stops the search at the hard time limit, looked at
    /// from the first node on, since whatever came before it (a cold
    /// table, a loaded machine) counts against the same clock: past it,
    /// the search ends with its first iteration (`has_move_to_play`),
    /// which probes no table.
    fn check_clock(&self) {
        let setup = self.setup;
        if self.thread_id == 0 && setup.spent(setup.budget.maximum) {
            setup.control.lifecycle.limit_reached();
        }
    }

    /// Has this search been told to stop? Not before its first iteration
    /// is done (`has_move_to_play`).
    fn should_stop(&mut self) -> bool {
        if !self.stopped && self.has_move_to_play && self.setup.control.stopped() {
            self.stopped = true;
        }
        self.stopped
    }

    /// The continuation rows of the node at `ply`: after the moves one and
    /// two plies back.
    fn quiet_context(&self, ply: usize) -> QuietContext<'_> {
        let row = |back: usize| {
            let earlier = self.stack.moved_back(ply, back)?;
            Some(self.memory.continuation.row(earlier))
        };
        QuietContext {
            rows: [row(1), row(2)],
        }
    }

    /// The keys of the node at `ply` in the correction histories.
    fn correction_keys(&self, ply: usize) -> CorrectionKeys {
        let structure = self.pos.structure_keys();
        let back = |n: usize| self.stack.moved_back(ply, n);
        CorrectionKeys {
            side: self.pos.turn(),
            pawns: structure.pawns,
            non_pawns: structure.non_pawns,
            minors: structure.minors,
            moves: back(2).zip(back(1)),
        }
    }

    /// The static evaluation of the node at `ply` (not in check), corrected
    /// by what the correction histories learned, inside the range of
    /// ordinary scores. Returns (raw, corrected).
    fn corrected_eval(&mut self, ply: usize) -> (i32, i32) {
        let raw = self.memory.evaluator.evaluate(&self.pos);
        if !self.setup.request.techniques.correction_history() {
            return (raw, raw);
        }
        let correction = self
            .memory
            .corrections
            .correction(&self.correction_keys(ply));
        let limit = TB_WIN_BOUND - 1;
        (raw, (raw + correction).clamp(-limit, limit))
    }

    /// Is the side to move at `ply` doing better than at its last move
    /// (the static evaluation above the one two plies back, or four where
    /// that one was in check)? Margins tighten where it isn't.
    fn improving(&self, ply: usize) -> bool {
        let now = self.stack[ply].static_eval;
        if now == NO_EVAL {
            return false;
        }
        let earlier = [2, 4]
            .into_iter()
            .filter_map(|back| self.stack.static_eval_back(ply, back))
            .find(|&e| e != NO_EVAL);
        earlier.is_none_or(|e| now > e)
    }

    /// Plays `m` at `ply`, starting the load of the child's table bucket as soon as
    /// its key is known.
    fn make_move(&mut self, m: Move, ply: usize) {
        self.stack[ply].moved = Some(PieceTo::of(self.pos.turn(), m));
        let tt = self.setup.tt;
        self.pos.make_announcing(m, |key| tt.prefetch(key));
    }
}

#[cfg(test)]
mod tests;
