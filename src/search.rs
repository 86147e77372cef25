//! The search: iterative deepening over a negamax alpha-beta search with a
//! quiescence search at the leaves.
//!
//! One `Searcher` runs per search thread. Thread 0 owns the clock and the
//! output; the others (Lazy SMP helpers) search the same root silently and
//! help through the shared transposition table.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use shakmaty::{Move, Piece, Position as _};

use crate::evaluator::Evaluator;
use crate::movepick::{History, MovePicker, QuietHints, is_quiet};
use crate::nnue::Network;
use crate::position::Position;
use crate::see::see_ge;
use crate::tablebase::{Syzygy, Wdl};
use crate::timeman::{Limits, TimeBudget};
use crate::tt::{Bound, TranspositionTable, TtEntry, score_from_tt, score_to_tt};

pub const MATE: i32 = 32_000;
pub const INFINITY: i32 = 32_001;
pub const MAX_PLY: usize = 128;
/// Scores at or beyond this are mates (or mated) within `MAX_PLY`.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
pub const DRAW: i32 = 0;
/// A tablebase win at the node itself; one found `ply` plies away scores
/// `TB_WIN - ply`. Just below the mate range, so that a real mate still
/// beats it and it is never printed as a mate (`format_score`).
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores at or beyond this are tablebase wins (or mates): proven results,
/// stored in the table relative to the node like mates.
pub const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;
/// `score cp` of a tablebase win at the root, less the plies to it (as
/// Stockfish prints them).
pub const TB_WIN_CP: i32 = 20_000;

/// How many nodes pass between looks at the clock.
const CLOCK_CHECK_INTERVAL: u64 = 1024;

/// State shared by every thread of one search, set by `go`, `stop` and
/// `ponderhit` from the UCI thread.
#[derive(Debug, Default)]
pub struct Control {
    pub stop: AtomicBool,
    /// True while a `go ponder` has not yet been answered by `ponderhit`.
    pub pondering: AtomicBool,
    /// Milliseconds after the search started at which the time budget starts
    /// counting (moved forward by `ponderhit`).
    pub budget_origin_ms: AtomicU64,
    /// Nodes of all threads, published in batches.
    pub nodes: AtomicU64,
    /// Successful tablebase probes of all threads.
    pub tb_hits: AtomicU64,
}

impl Control {
    pub fn reset(&self, pondering: bool) {
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(pondering, Ordering::SeqCst);
        self.budget_origin_ms.store(0, Ordering::SeqCst);
        self.nodes.store(0, Ordering::SeqCst);
        self.tb_hits.store(0, Ordering::SeqCst);
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// What one search is asked to do; shared read-only by its threads.
pub struct SearchSetup<'a> {
    pub control: &'a Control,
    pub tt: &'a TranspositionTable,
    pub limits: Limits,
    pub budget: TimeBudget,
    pub start: Instant,
    pub multipv: usize,
    /// Print `info` lines (thread 0 only, and not in bench).
    pub verbose: bool,
    /// Which techniques are on (all, except in ablation experiments).
    pub techniques: Techniques,
    /// The evaluation network.
    pub net: Arc<Network>,
    /// Endgame tablebases, if `SyzygyPath` found any.
    pub syzygy: Option<&'a Syzygy>,
}

impl<'a> SearchSetup<'a> {
    /// A silent one-thread search within `limits` (depth, nodes or
    /// movetime; no clock) for bench, test suites, tests and experiments.
    pub fn quiet(control: &'a Control, tt: &'a TranspositionTable, limits: Limits) -> Self {
        SearchSetup {
            control,
            tt,
            budget: TimeBudget {
                optimum: None,
                maximum: limits.movetime.map(Duration::from_millis),
            },
            limits,
            start: Instant::now(),
            multipv: 1,
            verbose: false,
            techniques: Techniques::ALL,
            net: crate::nnue::embedded(),
            syzygy: None,
        }
    }

    /// Time counted against the budget (after `ponderhit` if pondering).
    fn budget_elapsed(&self) -> Duration {
        let origin = Duration::from_millis(self.control.budget_origin_ms.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(origin)
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
}

/// What a search thread returns.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: u32,
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
}

// Search parameters. Each prunes or reduces only where a match showed it
// pays; see README "Search".
/// Aspiration window half-width at the first try (centipawns).
const ASPIRATION_WINDOW: i32 = 20;
/// Aspiration windows from this depth on.
const ASPIRATION_MIN_DEPTH: u32 = 5;
/// Reverse futility: the static eval beats beta by this much per ply.
const RFP_MARGIN: i32 = 80;
const RFP_MAX_DEPTH: i32 = 7;
/// Null move from this depth on; verified from `NMP_VERIFY_DEPTH` on.
const NMP_MIN_DEPTH: i32 = 3;
const NMP_VERIFY_DEPTH: i32 = 12;
/// Futility pruning of quiet moves: eval + margin can't reach alpha.
const FUTILITY_BASE: i32 = 100;
const FUTILITY_PER_PLY: i32 = 90;
const FUTILITY_MAX_DEPTH: i32 = 7;
/// Late move pruning: at depth d, quiets after 3 + d*d moves are skipped.
const LMP_MAX_DEPTH: i32 = 7;
/// SEE pruning at low depth: a capture is skipped if its exchange loses
/// more than SEE_PRUNE_MARGIN per ply of depth, a quiet move if it puts more
/// than SEE_QUIET_MARGIN per ply en prise.
const SEE_PRUNE_MARGIN: i32 = 90;
const SEE_QUIET_MARGIN: i32 = 60;
const SEE_PRUNE_MAX_DEPTH: i32 = 6;
/// Internal iterative reduction: a node without a hash move is searched
/// one ply shallower from this depth on.
const IIR_MIN_DEPTH: i32 = 4;
/// Enhanced transposition cutoffs: at nodes this deep and this near root.
const ETC_MIN_DEPTH: i32 = 3;
const ETC_MAX_PLY: usize = 2;
/// Singular extensions: from this depth, if the table's move beats every
/// other move by a margin (per ply of depth), it is searched a ply deeper.
const SE_MIN_DEPTH: i32 = 8;
const SE_MARGIN_PER_PLY: i32 = 2;
/// ... provided the table's result is at most this much shallower.
const SE_TT_DEPTH_SLACK: i32 = 3;

/// Where enhanced transposition cutoffs are tried. The defaults are what
/// the measurements chose; `Searcher::with_etc` changes them for experiments
/// (`max_ply: 0` switches ETC off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EtcLimits {
    pub min_depth: i32,
    pub max_ply: usize,
}

impl Default for EtcLimits {
    fn default() -> Self {
        EtcLimits {
            min_depth: ETC_MIN_DEPTH,
            max_ply: ETC_MAX_PLY,
        }
    }
}

/// The search's techniques, each of which can be switched off to measure
/// what it is worth (an ablation match: the full search against the search
/// without one technique). Builds with `--features ablation` expose this as
/// the UCI option `Disable`; normal builds always search with all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Techniques {
    pub aspiration: bool,
    pub check_extension: bool,
    pub null_move: bool,
    pub reverse_futility: bool,
    pub futility: bool,
    pub late_move_pruning: bool,
    pub see_pruning: bool,
    pub late_move_reductions: bool,
    pub internal_iterative_reduction: bool,
    pub enhanced_transposition_cutoffs: bool,
    pub singular_extensions: bool,
    pub killers: bool,
    pub counter_moves: bool,
    pub history: bool,
    pub quiescence_see: bool,
}

/// Where a technique's on/off flag lives in `Techniques`.
type Switch = fn(&mut Techniques) -> &mut bool;

impl Techniques {
    pub const ALL: Techniques = Techniques {
        aspiration: true,
        check_extension: true,
        null_move: true,
        reverse_futility: true,
        futility: true,
        late_move_pruning: true,
        see_pruning: true,
        late_move_reductions: true,
        internal_iterative_reduction: true,
        enhanced_transposition_cutoffs: true,
        singular_extensions: true,
        killers: true,
        counter_moves: true,
        history: true,
        quiescence_see: true,
    };

    /// Each technique's short name, as `Disable` takes it, with its switch:
    /// the one list both the names and the lookup come from.
    const SWITCHES: [(&'static str, Switch); 15] = [
        ("aspiration", |t| &mut t.aspiration),
        ("checkext", |t| &mut t.check_extension),
        ("nullmove", |t| &mut t.null_move),
        ("rfp", |t| &mut t.reverse_futility),
        ("futility", |t| &mut t.futility),
        ("lmp", |t| &mut t.late_move_pruning),
        ("seeprune", |t| &mut t.see_pruning),
        ("lmr", |t| &mut t.late_move_reductions),
        ("iir", |t| &mut t.internal_iterative_reduction),
        ("etc", |t| &mut t.enhanced_transposition_cutoffs),
        ("singular", |t| &mut t.singular_extensions),
        ("killers", |t| &mut t.killers),
        ("countermove", |t| &mut t.counter_moves),
        ("history", |t| &mut t.history),
        ("qsee", |t| &mut t.quiescence_see),
    ];

    /// The short names, as `Disable` takes them.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Self::SWITCHES.iter().map(|&(name, _)| name)
    }

    /// All techniques but those named in a comma- or space-separated list.
    pub fn all_but(list: &str) -> Result<Techniques, String> {
        let mut t = Techniques::ALL;
        for name in list.split([',', ' ']).filter(|n| !n.is_empty()) {
            let name = name.to_ascii_lowercase();
            let (_, switch) = Self::SWITCHES
                .iter()
                .find(|(known, _)| *known == name)
                .ok_or_else(|| {
                    let known: Vec<_> = Self::names().collect();
                    format!("unknown technique '{name}' (known: {})", known.join(", "))
                })?;
            *switch(&mut t) = false;
        }
        Ok(t)
    }
}

/// Late-move reductions, by depth and move number: log-based, as the best
/// engines have them. Reductions grow with both, slowly.
struct ReductionTable([[i32; 64]; 64]);

impl ReductionTable {
    fn new() -> Self {
        let mut t = [[0; 64]; 64];
        for (depth, row) in t.iter_mut().enumerate().skip(1) {
            for (moves, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (depth as f64).ln() * (moves as f64).ln() / 2.25) as i32;
            }
        }
        ReductionTable(t)
    }

    fn get(&self, depth: i32, moves: usize) -> i32 {
        self.0[(depth as usize).min(63)][moves.min(63)]
    }
}

/// What a search thread learns that stays true for the next move of the same
/// game: the move histories, the counter-moves and the evaluation cache. The
/// engine keeps one per thread from move to move (a new search would otherwise
/// relearn its move ordering from nothing), and forgets them on `ucinewgame`.
pub struct SearchMemory {
    history: History,
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
            counter_moves: Box::new([[None; 64]; 12]),
            evaluator: Evaluator::default(),
        }
    }
}

pub struct Searcher<'a> {
    pub pos: Position,
    setup: &'a SearchSetup<'a>,
    thread_id: usize,
    pub nodes: u64,
    /// Nodes not yet added to `Control::nodes`.
    unpublished_nodes: u64,
    seldepth: usize,
    root_moves: Vec<RootMove>,
    pv_index: usize,
    completed_depth: u32,
    pv_table: Vec<[Option<Move>; MAX_PLY]>,
    pv_len: [usize; MAX_PLY + 1],
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    memory: SearchMemory,
    reductions: ReductionTable,
    /// Null moves are off for the rest of a verification search.
    null_move_disabled: bool,
    /// The move a singular-extension search at this ply leaves out.
    excluded: [Option<Move>; MAX_PLY + 1],
    /// The iteration's depth; extensions stop at twice this ply.
    root_depth: u32,
    etc: EtcLimits,
    stopped: bool,
    /// The root's tablebase result when the root moves were ranked by DTZ.
    root_tb: Option<Wdl>,
    pub stats: SearchStats,
}

/// A cutoff's weight in the histories: deeper ones teach more.
fn history_bonus(depth: i32) -> i32 {
    (depth * depth).min(1200) * 8
}

/// `score mate N` in moves (negative when being mated), else `score cp X`;
/// a tablebase win `ply` plies away is `cp 20000 - ply` (never a mate).
pub fn format_score(score: i32) -> String {
    if (TB_WIN_BOUND..MATE_BOUND).contains(&score.abs()) {
        let cp = TB_WIN_CP - (TB_WIN - score.abs());
        format!("cp {}", cp * score.signum())
    } else if score >= MATE_BOUND {
        format!("mate {}", (MATE - score + 1) / 2)
    } else if score <= -MATE {
        "mate 0".to_string() // checkmated already
    } else if score <= -MATE_BOUND {
        format!("mate -{}", (MATE + score) / 2)
    } else {
        format!("cp {score}")
    }
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

fn piece_index(piece: Piece) -> usize {
    piece.role as usize - 1 + 6 * piece.color as usize
}

impl<'a> Searcher<'a> {
    /// A searcher that has learned nothing yet.
    pub fn new(pos: Position, setup: &'a SearchSetup<'a>, thread_id: usize) -> Self {
        Self::with_memory(pos, setup, thread_id, SearchMemory::default())
    }

    /// A searcher that starts from what an earlier search of this thread
    /// learned (see [`SearchMemory`]).
    pub fn with_memory(
        pos: Position,
        setup: &'a SearchSetup<'a>,
        thread_id: usize,
        mut memory: SearchMemory,
    ) -> Self {
        memory.evaluator.use_net(&setup.net);
        Searcher {
            pos,
            setup,
            thread_id,
            nodes: 0,
            unpublished_nodes: 0,
            seldepth: 0,
            root_moves: Vec::new(),
            pv_index: 0,
            completed_depth: 0,
            pv_table: vec![[None; MAX_PLY]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            killers: [[None; 2]; MAX_PLY + 1],
            memory,
            reductions: ReductionTable::new(),
            null_move_disabled: false,
            excluded: [None; MAX_PLY + 1],
            root_depth: 0,
            etc: EtcLimits::default(),
            stopped: false,
            root_tb: None,
            stats: SearchStats::default(),
        }
    }

    /// What this search learned, for the next one.
    pub fn into_memory(self) -> SearchMemory {
        self.memory
    }

    /// Experiments only: try enhanced transposition cutoffs elsewhere.
    pub fn with_etc(mut self, etc: EtcLimits) -> Self {
        self.etc = etc;
        self
    }

    /// The legal root moves, restricted by `searchmoves` if given.
    fn collect_root_moves(&self) -> Vec<RootMove> {
        let legal = self.pos.board().legal_moves();
        let wanted = &self.setup.limits.searchmoves;
        legal
            .into_iter()
            .filter(|m| wanted.is_empty() || wanted.iter().any(|w| *w == self.pos.uci(*m)))
            .map(|mv| RootMove {
                mv,
                score: -INFINITY,
                pv: vec![mv],
                seldepth: 0,
            })
            .collect()
    }

    /// Iterative deepening: depth 1, 2, ... until a limit or `stop`.
    pub fn iterate(&mut self) -> SearchResult {
        self.root_moves = self.collect_root_moves();
        self.keep_best_tablebase_moves();
        if self.root_moves.is_empty() {
            let score = if self.pos.in_check() { -MATE } else { DRAW };
            if self.verbose() {
                println!("info depth 0 score {} tbhits 0", format_score(score));
            }
            return SearchResult {
                best: None,
                ponder: None,
                score,
                depth: 0,
                nodes: 0,
                stats: self.stats,
            };
        }
        let max_depth = self
            .setup
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .clamp(1, MAX_PLY as u32 - 1);
        let multipv = self.setup.multipv.clamp(1, self.root_moves.len());
        // Helpers start one ply deeper on odd threads so that the threads
        // don't all search the same tree in lockstep.
        let first_depth = 1 + (self.thread_id as u32 & 1).min(max_depth - 1);

        for depth in first_depth..=max_depth {
            self.root_depth = depth;
            for pv_index in 0..multipv {
                self.pv_index = pv_index;
                self.seldepth = 0;
                self.aspiration_search(depth);
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                break;
            }
            self.completed_depth = depth;
            if self.verbose() {
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
            nodes: self.nodes,
            stats: self.stats,
        }
    }

    /// Searches the root with a narrow window around the last score,
    /// widening it on each fail until the score falls inside.
    fn aspiration_search(&mut self, depth: u32) {
        let previous = self.root_moves[self.pv_index].score;
        let mut delta = ASPIRATION_WINDOW;
        let (mut alpha, mut beta) = if self.setup.techniques.aspiration
            && depth >= ASPIRATION_MIN_DEPTH
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
            delta += delta / 2;
            if delta > 1000 {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// A failed aspiration search, reported once a search runs long enough
    /// for a GUI to show it.
    fn report_bound(&self, depth: u32, bound: &str) {
        if self.verbose() && self.setup.start.elapsed() >= Duration::from_secs(1) {
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

    /// The table key of this node: the position's key, or for a
    /// singular-extension search (the same position without one move) that
    /// key folded with the excluded move, so that the sub-search's entries
    /// are never mistaken for the full node's.
    fn node_key(&self, ply: usize) -> u64 {
        match self.excluded[ply] {
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

    /// After a completed iteration: is it time to stop?
    fn iteration_limit_reached(&mut self, depth: u32) -> bool {
        let setup = self.setup;
        if setup.control.stopped() {
            return true;
        }
        if let Some(mate) = setup.limits.mate {
            let best = self.root_moves[0].score;
            if best >= MATE_BOUND && (MATE - best + 1) / 2 <= mate as i32 {
                return self.finish_early();
            }
        }
        if setup.limits.depth.is_some_and(|d| depth >= d)
            || setup.limits.soft_nodes.is_some_and(|n| self.nodes >= n)
        {
            return self.finish_early();
        }
        // The next iteration costs a few times this one: don't start one
        // that can't finish.
        if self.thread_id == 0
            && !setup.control.pondering.load(Ordering::Relaxed)
            && let Some(opt) = setup.budget.optimum
            && setup.budget_elapsed() >= opt / 2
        {
            return self.finish_early();
        }
        depth as usize >= MAX_PLY - 1
    }

    /// A limit of our own is reached. Stop the other threads; in `infinite`
    /// or ponder mode the engine waits for `stop`/`ponderhit` before it
    /// answers, which the caller handles.
    fn finish_early(&self) -> bool {
        if self.thread_id == 0 {
            self.setup.control.stop.store(true, Ordering::SeqCst);
        }
        true
    }

    fn report(&self, depth: u32, index: usize, bound: &str) {
        let elapsed = self.setup.start.elapsed();
        let nodes = self.setup.control.nodes.load(Ordering::Relaxed) + self.unpublished_nodes;
        let ms = elapsed.as_millis() as u64;
        let nps = nodes * 1000 / ms.max(1);
        let rm = &self.root_moves[index];
        let pv: Vec<String> = rm.pv.iter().map(|m| self.pos.uci(*m)).collect();
        let bound = if bound.is_empty() {
            String::new()
        } else {
            format!(" {bound}")
        };
        println!(
            "info depth {depth} seldepth {} multipv {} score {}{bound} nodes {nodes} nps {nps} \
             hashfull {} tbhits {} time {ms} pv {}",
            rm.seldepth.max(depth as usize),
            index + 1,
            format_score(self.shown_score(rm.score)),
            self.setup.tt.hashfull(),
            self.setup.control.tb_hits.load(Ordering::Relaxed),
            pv.join(" ")
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
        if self.thread_id != 0 || self.completed_depth == 0 {
            return;
        }
        let setup = self.setup;
        if let Some(limit) = setup.limits.nodes {
            let all = setup.control.nodes.load(Ordering::Relaxed) + self.unpublished_nodes;
            if all >= limit {
                setup.control.stop.store(true, Ordering::SeqCst);
            }
        }
        if self.nodes.is_multiple_of(CLOCK_CHECK_INTERVAL)
            && !setup.control.pondering.load(Ordering::Relaxed)
            && setup
                .budget
                .maximum
                .is_some_and(|max| setup.budget_elapsed() >= max)
        {
            setup.control.stop.store(true, Ordering::SeqCst);
        }
    }

    /// Has this search been told to stop? Depth 1 always completes so that
    /// there is a move to play.
    fn should_stop(&mut self) -> bool {
        if !self.stopped && self.completed_depth > 0 && self.setup.control.stopped() {
            self.stopped = true;
        }
        self.stopped
    }

    /// The root: principal variation search over the root moves from
    /// `pv_index` on (earlier ones are the better MultiPV lines).
    fn search_root(&mut self, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        let depth = depth as i32;
        let mut best = -INFINITY;
        for i in self.pv_index..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            self.make_move(m);
            let score = if i == self.pv_index {
                -self.negamax(depth - 1, -beta, -alpha, 1)
            } else {
                let s = -self.negamax(depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && s < beta {
                    -self.negamax(depth - 1, -beta, -alpha, 1)
                } else {
                    s
                }
            };
            self.pos.unmake();
            if self.should_stop() {
                return best;
            }
            let rm = &mut self.root_moves[i];
            if i == self.pv_index || score > alpha {
                rm.score = score;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(m);
                rm.pv
                    .extend(self.pv_table[1][..self.pv_len[1]].iter().flatten().copied());
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
        }
        best
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv_table.split_at_mut(ply + 1);
        let child_len = self.pv_len[ply + 1];
        head[ply][0] = Some(m);
        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        self.pv_len[ply] = child_len + 1;
    }

    /// Draw by rule inside the search: fifty moves, repetition, or material
    /// that can't mate.
    fn is_draw(&mut self, ply: usize) -> bool {
        if self.pos.is_repetition(ply) {
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

    /// A quiet move caused a cutoff: remember it, and lower the history of
    /// the quiet moves tried before it.
    fn reward_quiet(&mut self, ply: usize, m: Move, depth: i32, tried: &[Move]) {
        let techniques = self.setup.techniques;
        if techniques.history {
            let side = self.pos.turn();
            let bonus = history_bonus(depth);
            self.memory.history.update(side, m, bonus);
            for &q in tried {
                self.memory.history.update(side, q, -bonus);
            }
        }
        if techniques.killers && self.killers[ply][0] != Some(m) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(m);
        }
        if techniques.counter_moves
            && let Some((piece, to)) = self.counter_slot()
        {
            self.memory.counter_moves[piece][to] = Some(m);
        }
    }

    /// A move caused a cutoff: the captures tried before it failed, and if
    /// it is a capture itself, it gets the credit.
    fn reward_capture(&mut self, m: Move, depth: i32, tried: &[Move]) {
        if !self.setup.techniques.history {
            return;
        }
        let side = self.pos.turn();
        let bonus = history_bonus(depth);
        if m.is_capture() {
            self.memory.history.update_capture(side, m, bonus);
        }
        for &c in tried {
            self.memory.history.update_capture(side, c, -bonus);
        }
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

    fn negamax(&mut self, mut depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
        let techniques = self.setup.techniques;
        self.pv_len[ply] = 0;
        let in_check = self.pos.in_check();
        // A singular-extension search: this node again, without one move.
        let excluded = self.excluded[ply];
        // Check extension: a check is searched one ply deeper, so that the
        // horizon never falls in the middle of a forcing sequence.
        if in_check && techniques.check_extension {
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
        if let Some(tb) = self.setup.syzygy
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

        let static_eval = if in_check {
            -INFINITY
        } else {
            self.memory.evaluator.evaluate(&self.pos)
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
            // Reverse futility: so far above beta that a shallow search
            // won't bring it back. Not when beta is a loss (being mated, or
            // a lost table position): then the question is whether a mate
            // comes, which the evaluation can't answer (a net that scores
            // KRvK at +283 hid a mate in 2 behind a mate in 3 to depth 8).
            if techniques.reverse_futility
                && depth <= RFP_MAX_DEPTH
                && eval - RFP_MARGIN * depth >= beta
                && eval < MATE_BOUND
                && beta > -TB_WIN_BOUND
            {
                return eval;
            }
            // Null move: if passing still keeps us above beta, a real move
            // will too. Not with only pawns and king (zugzwang), not twice
            // in a row, not during a verification search.
            if techniques.null_move
                && depth >= NMP_MIN_DEPTH
                && eval >= beta
                && !self.null_move_disabled
                && self.pos.last_move().is_some()
                && self.pos.has_non_pawn_material(self.pos.turn())
                && let Some(score) = self.null_move_cutoff(depth, eval, beta, ply)
            {
                return score;
            }
        }

        // Internal iterative reduction: with no hash move to guide it, this
        // node is likely not worth the full depth.
        if techniques.internal_iterative_reduction
            && excluded.is_none()
            && tt_move.is_none()
            && depth >= IIR_MIN_DEPTH
        {
            depth -= 1;
        }

        if techniques.enhanced_transposition_cutoffs
            && !pv_node
            && excluded.is_none()
            && depth >= self.etc.min_depth
            && ply <= self.etc.max_ply
            && let Some(score) = self.etc_cutoff(depth, beta, ply)
        {
            self.store_tt(ply, None, score, depth, Bound::Lower);
            return score;
        }

        // Singular extension: is the table's move the only good one here?
        let mut tt_move_extension = 0;
        if let (Some(e), Some(m)) = (tt_entry, tt_move)
            && techniques.singular_extensions
            && ply > 0
            && excluded.is_none()
            && depth >= SE_MIN_DEPTH
            && e.depth >= depth - SE_TT_DEPTH_SLACK
            && matches!(e.bound, Bound::Lower | Bound::Exact)
            && e.score.abs() < MATE_BOUND
            && ply < 2 * self.root_depth as usize
        {
            let singular_beta = e.score - SE_MARGIN_PER_PLY * depth;
            self.excluded[ply] = Some(m);
            let score = self.negamax((depth - 1) / 2, singular_beta - 1, singular_beta, ply);
            self.excluded[ply] = None;
            if self.stopped {
                return DRAW;
            }
            if score < singular_beta {
                self.stats.singular_extensions += 1;
                tt_move_extension = 1;
            } else if singular_beta >= beta {
                // Multi-cut: even without the table's move, another move
                // reaches beta; two refutations make this node a cutoff.
                return singular_beta;
            }
        }

        let hints = QuietHints {
            killers: self.killers[ply],
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
        self.killers[ply + 1] = [None; 2];

        while let Some(m) = picker.next(&self.pos, &self.memory.history) {
            if Some(m) == excluded {
                continue;
            }
            let quiet = is_quiet(m);
            if ply > 0 && best > -MATE_BOUND && !in_check {
                // Late move pruning and futility pruning of quiets: once one
                // quiet move is given up on, all later ones are, except
                // checks (a quiet check may mate).
                let late = techniques.late_move_pruning
                    && depth <= LMP_MAX_DEPTH
                    && moves_searched >= (3 + depth * depth) as usize;
                let futile = techniques.futility
                    && depth <= FUTILITY_MAX_DEPTH
                    && eval + FUTILITY_BASE + FUTILITY_PER_PLY * depth <= alpha;
                if !pv_node && quiet && (late || futile) && !self.pos.gives_check(m) {
                    picker.skip_quiets(&self.pos);
                    continue;
                }
                // SEE pruning: a capture that loses more than a margin
                // growing with depth, or a quiet move that puts a piece en
                // prise for more than a smaller one.
                let see_margin = if quiet {
                    SEE_QUIET_MARGIN * depth
                } else {
                    SEE_PRUNE_MARGIN * depth
                };
                if techniques.see_pruning
                    && !pv_node
                    && depth <= SEE_PRUNE_MAX_DEPTH
                    && !see_ge(self.pos.board(), m, -see_margin)
                {
                    continue;
                }
            }

            self.make_move(m);
            let gives_check = self.pos.in_check();
            let extension = if Some(m) == tt_move {
                tt_move_extension
            } else {
                0
            };
            let new_depth = depth - 1 + extension;
            let score = if moves_searched == 0 {
                -self.negamax(new_depth, -beta, -alpha, ply + 1)
            } else {
                // Late move reductions for quiet moves searched late.
                let mut r = 0;
                if techniques.late_move_reductions
                    && depth >= 3
                    && quiet
                    && !gives_check
                    && moves_searched > pv_node as usize
                {
                    r = self.reductions.get(depth, moves_searched);
                    if pv_node {
                        r -= 1;
                    }
                    if hints.killers.contains(&Some(m)) || hints.counter == Some(m) {
                        r -= 1;
                    }
                    r -= self.memory.history.get(!self.pos.turn(), m) / 6000;
                    r = r.clamp(0, new_depth - 1);
                }
                let mut s = -self.negamax(new_depth - r, -alpha - 1, -alpha, ply + 1);
                if s > alpha && r > 0 {
                    s = -self.negamax(new_depth, -alpha - 1, -alpha, ply + 1);
                }
                if s > alpha && s < beta {
                    s = -self.negamax(new_depth, -beta, -alpha, ply + 1);
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
                    self.update_pv(ply, m);
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
        clamped
    }

    /// The tablebase result of this node as a score and the bound it
    /// proves, if `Syzygy::probe_search` has one: a win is at least a win
    /// `ply` plies from the root (a mate may be better), a loss at most
    /// that; draws are exact. A checkmate stays a mate.
    fn probe_tablebase(&mut self, tb: &Syzygy, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        let wdl = tb.probe_search(&self.pos, depth)?;
        if wdl == Wdl::Loss && self.pos.in_check() && self.pos.board().legal_moves().is_empty() {
            return None;
        }
        self.setup.control.tb_hits.fetch_add(1, Ordering::Relaxed);
        Some(tb_score(wdl, ply))
    }

    /// A root in the tablebases: its moves are ranked by DTZ and only those
    /// that keep the best result are searched (`Syzygy::rank_root_moves`),
    /// so that even a one-ply search converts a win and holds a draw.
    fn keep_best_tablebase_moves(&mut self) {
        let Some(tb) = self.setup.syzygy else {
            return;
        };
        let moves: Vec<Move> = self.root_moves.iter().map(|rm| rm.mv).collect();
        let Some(ranks) = tb.rank_root_moves(&mut self.pos, &moves) else {
            return;
        };
        let Some(best) = ranks.iter().max_by_key(|r| r.rank).copied() else {
            return;
        };
        let hits = moves.len() as u64;
        self.setup
            .control
            .tb_hits
            .fetch_add(hits, Ordering::Relaxed);
        let mut ranks = ranks.iter();
        self.root_moves
            .retain(|_| ranks.next().is_some_and(|r| r.rank == best.rank));
        self.root_tb = Some(best.wdl);
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

    /// Null-move pruning: pass, and search the reply with a reduced depth;
    /// if we are still at or above beta, return a cutoff score.
    fn null_move_cutoff(&mut self, depth: i32, eval: i32, beta: i32, ply: usize) -> Option<i32> {
        let r = 3 + depth / 4 + ((eval - beta) / 200).min(3);
        self.pos.make_null();
        self.setup.tt.prefetch(self.pos.key());
        let score = -self.negamax(depth - 1 - r, -beta, -beta + 1, ply + 1);
        self.pos.unmake();
        if self.stopped || score < beta {
            return None;
        }
        // Mates (and tablebase wins) found after a pass are not proven:
        // claim only beta.
        let score = if score >= TB_WIN_BOUND { beta } else { score };
        if depth < NMP_VERIFY_DEPTH {
            return Some(score);
        }
        // Deep nodes: verify with a real reduced search without null moves,
        // so a zugzwang can't fool us at depth.
        self.null_move_disabled = true;
        let verified = self.negamax(depth - 1 - r, beta - 1, beta, ply);
        self.null_move_disabled = false;
        (verified >= beta).then_some(score)
    }

    /// Plays `m`, starting the load of the child's table bucket as soon as
    /// its key is known.
    fn make_move(&mut self, m: Move) {
        let tt = self.setup.tt;
        self.pos.make_announcing(m, |key| tt.prefetch(key));
    }

    fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = 0;
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
            let stand_pat = self.memory.evaluator.evaluate(&self.pos);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        // Captures that lose material can't raise a quiet position's score:
        // the picker leaves them out. Evasions are all searched.
        let mut picker = MovePicker::captures(tt_move, self.setup.techniques.quiescence_see);
        let mut any_move = false;
        while let Some(m) = picker.next(&self.pos, &self.memory.history) {
            any_move = true;
            self.make_move(m);
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
                    self.update_pv(ply, m);
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

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn search_fen(fen: &str, depth: u32) -> SearchResult {
        let control = Control::default();
        let tt = TranspositionTable::new(16).unwrap();
        let setup = SearchSetup::quiet(&control, &tt, Limits::depth(depth));
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let mut s = Searcher::new(pos, &setup, 0);
        s.iterate()
    }

    #[test]
    fn mate_in_one_and_two() {
        let r = search_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 3);
        assert_eq!(format_score(r.score), "mate 1");
        assert_eq!(r.best.unwrap().to(), shakmaty::Square::A8);
        // Mate in 2 with a quiet first move: 1.Kb6 Kb8 2.Rh8#. Net 2 scores
        // KRvK low enough that no mate shows before depth 6; then the mate
        // in 3 (1.Ra1) must not hide this one (reverse futility at a mated
        // beta did, to depth 8).
        let r = search_fen("k7/8/2K5/8/8/8/8/7R w - - 0 1", 6);
        assert_eq!(format_score(r.score), "mate 2");
    }

    #[test]
    fn mated_and_stalemated_positions() {
        let r = search_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", 3);
        assert!(r.best.is_none());
        assert_eq!(r.score, -MATE);
        let r = search_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 3);
        assert!(r.best.is_none());
        assert_eq!(r.score, DRAW);
    }

    #[test]
    fn wins_hanging_queen() {
        let r = search_fen("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", 3);
        assert_eq!(r.best.unwrap().to(), shakmaty::Square::D5);
    }

    #[test]
    fn techniques_by_name() {
        let t = Techniques::all_but("nullmove, LMR").unwrap();
        assert!(!t.null_move && !t.late_move_reductions);
        assert!(t.futility && t.singular_extensions);
        assert_eq!(Techniques::all_but("").unwrap(), Techniques::ALL);
        for name in Techniques::names() {
            assert_ne!(
                Techniques::all_but(name).unwrap(),
                Techniques::ALL,
                "{name}"
            );
        }
        assert!(Techniques::all_but("nullmove,bogus").is_err());
    }

    #[test]
    fn singular_search_has_its_own_table_key() {
        let control = Control::default();
        let tt = TranspositionTable::new(1).unwrap();
        let setup = SearchSetup::quiet(&control, &tt, Limits::depth(1));
        let mut s = Searcher::new(Position::default(), &setup, 0);
        let plain = s.node_key(3);
        let moves = s.pos.board().legal_moves();
        let mut keys = vec![plain];
        for &m in &moves {
            s.excluded[3] = Some(m);
            keys.push(s.node_key(3));
        }
        s.excluded[3] = None;
        assert_eq!(s.node_key(3), plain);
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(
            keys.len(),
            moves.len() + 1,
            "every excluded move its own key"
        );
    }

    #[test]
    fn singular_extensions_happen_and_can_be_switched_off() {
        let fen = "r1bq1rk1/pp2bppp/2n2n2/3p4/3P4/2NB1N2/PP3PPP/R1BQ1RK1 w - - 0 10";
        let singular = |techniques| {
            let control = Control::default();
            let tt = TranspositionTable::new(16).unwrap();
            let setup = SearchSetup {
                techniques,
                ..SearchSetup::quiet(&control, &tt, Limits::depth(11))
            };
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            Searcher::new(pos, &setup, 0)
                .iterate()
                .stats
                .singular_extensions
        };
        assert!(singular(Techniques::ALL) > 0);
        assert_eq!(singular(Techniques::all_but("singular").unwrap()), 0);
    }

    #[test]
    fn every_technique_can_be_switched_off_safely() {
        // Each ablation still finds the mate and a legal move.
        for name in Techniques::names() {
            let control = Control::default();
            let tt = TranspositionTable::new(1).unwrap();
            let setup = SearchSetup {
                techniques: Techniques::all_but(name).unwrap(),
                ..SearchSetup::quiet(&control, &tt, Limits::depth(8))
            };
            let pos = Position::from_fen("k7/8/2K5/8/8/8/8/7R w - - 0 1", CastlingMode::Standard)
                .unwrap();
            let r = Searcher::new(pos, &setup, 0).iterate();
            assert_eq!(format_score(r.score), "mate 2", "without {name}");
        }
    }

    #[test]
    fn score_formatting() {
        assert_eq!(format_score(MATE - 1), "mate 1");
        assert_eq!(format_score(MATE - 3), "mate 2");
        assert_eq!(format_score(-MATE + 2), "mate -1");
        assert_eq!(format_score(-MATE + 4), "mate -2");
        assert_eq!(format_score(35), "cp 35");
        // Tablebase wins are large centipawn values, never mates.
        assert_eq!(format_score(TB_WIN), "cp 20000");
        assert_eq!(format_score(TB_WIN - 5), "cp 19995");
        assert_eq!(format_score(-TB_WIN + 7), "cp -19993");
        assert_eq!(format_score(TB_WIN_BOUND), "cp 19872");
        assert_eq!(format_score(MATE_BOUND), format!("mate {}", MAX_PLY / 2));
    }
}
