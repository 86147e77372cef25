//! The pruning and reduction rules of the main search, each a small
//! predicate on the node's numbers, beside the parameters it uses. Each
//! prunes or reduces only where a match showed it pays (docs/search.md).
//! Whether a rule is switched on (`Techniques`) and the node's context (a PV
//! node, in check, a singular search) are `negamax`'s business. The numbers
//! are `params`' (tunable, with `--features tune`).

use crate::params;
use crate::score::{MATE_BOUND, TB_WIN_BOUND};

/// Reverse futility: the evaluation is so far above beta that a shallow
/// search won't bring it back. Not when beta is a loss (being mated, or a
/// lost table position): then the question is whether a mate comes, which
/// the evaluation can't answer (a net that scores KRvK at +283 hid a mate
/// in 2 behind a mate in 3 to depth 8).
/// An improving position gets one ply less of margin: its evaluation is
/// less likely to fall back.
pub(super) fn reverse_futility_prunes(depth: i32, eval: i32, beta: i32, improving: bool) -> bool {
    depth <= params::rfp_max_depth()
        && eval - params::rfp_margin() * (depth - i32::from(improving)) >= beta
        && eval < MATE_BOUND
        && beta > -TB_WIN_BOUND
}

/// Null move: worth a try where the evaluation is at or above beta and
/// enough depth is left for the reduced search to mean something.
pub(super) fn null_move_worth_trying(depth: i32, eval: i32, beta: i32) -> bool {
    depth >= params::nmp_min_depth() && eval >= beta
}

/// How much shallower the search after a pass is: more at depth, and more
/// the further the evaluation is above beta.
pub(super) fn null_move_reduction(depth: i32, eval: i32, beta: i32) -> i32 {
    params::nmp_base()
        + depth / params::nmp_depth_divisor()
        + ((eval - beta) / params::nmp_eval_divisor()).min(params::nmp_eval_max())
}

/// Deep null-move cutoffs are verified by a real search, so that a
/// zugzwang can't fool the search at depth.
pub(super) fn null_move_needs_verification(depth: i32) -> bool {
    depth >= params::nmp_verify_depth()
}

/// Internal iterative reduction: with no hash move to guide it, a node this
/// deep is likely not worth the full depth.
pub(super) fn internal_iterative_reduction_applies(depth: i32) -> bool {
    depth >= params::iir_min_depth()
}

/// Late move pruning: this many moves into a shallow node, the quiet moves
/// left are given up on; half as many where the position isn't improving.
pub(super) fn late_move_prunes(depth: i32, moves_searched: usize, improving: bool) -> bool {
    let limit = (params::lmp_base() + depth * depth) / (2 - i32::from(improving));
    depth <= params::lmp_max_depth() && moves_searched >= limit as usize
}

/// History pruning: at a shallow node, a quiet move whose histories (the
/// butterfly and continuation tables together) are this bad per ply of
/// depth is not searched.
pub(super) fn history_prunes(depth: i32, quiet_history: i32) -> bool {
    depth <= params::history_prune_max_depth()
        && quiet_history < -params::history_prune_margin() * depth
}

/// Late move reductions: a quiet move with a good history is reduced less,
/// one with a bad history more, by a ply per this much history.
fn late_move_reduction_by_history(quiet_history: i32) -> i32 {
    quiet_history / params::lmr_history_divisor()
}

/// Futility pruning: at a shallow node whose evaluation is far below alpha,
/// no quiet move is likely to bring it back up.
pub(super) fn quiets_futile(depth: i32, eval: i32, alpha: i32) -> bool {
    depth <= params::futility_max_depth()
        && eval + params::futility_base() + params::futility_per_ply() * depth <= alpha
}

/// SEE pruning: at a shallow node, the exchange result below which a move
/// is skipped: a capture that loses more than a margin growing with depth,
/// or a quiet move that puts a piece en prise for more than a smaller one.
/// `None` where the node is too deep to prune.
pub(super) fn see_pruning_threshold(depth: i32, quiet: bool) -> Option<i32> {
    if depth > params::see_max_depth() {
        return None;
    }
    let margin_per_ply = if quiet {
        params::see_quiet_margin()
    } else {
        params::see_capture_margin()
    };
    Some(-margin_per_ply * depth)
}

/// Singular extensions: worth testing at a deep node whose table entry was
/// searched nearly as deep.
pub(super) fn singular_test_applies(depth: i32, tt_depth: i32) -> bool {
    depth >= params::singular_min_depth() && tt_depth >= depth - params::singular_tt_depth_slack()
}

/// The bound every other move must stay below for the table's move to be
/// singular: the table's score less a margin growing with depth.
pub(super) fn singular_beta(tt_score: i32, depth: i32) -> i32 {
    tt_score - params::singular_margin() * depth / 16
}

/// The depth of the search without the table's move.
pub(super) fn singular_search_depth(depth: i32) -> i32 {
    (depth - 1) * params::singular_depth_share() / 100
}

/// Double extension: every other move stayed below the singular bound by a
/// wide margin.
pub(super) fn double_extension_applies(score: i32, singular_beta: i32) -> bool {
    score < singular_beta - params::double_extension_margin()
}

/// Late move reductions apply from this depth on.
pub(super) fn late_move_reductions_apply(depth: i32) -> bool {
    depth >= params::lmr_min_depth()
}

/// At most this many double extensions on one path.
pub(super) fn double_extensions_allowed(on_path: u8) -> bool {
    i32::from(on_path) < params::double_extension_max()
}

/// Late move reductions of a quiet move: the table's, adjusted for the
/// node and the move (each adjustment in whole plies).
pub(super) fn late_move_reduction(
    table: i32,
    pv_node: bool,
    refutation: bool,
    improving: bool,
    cut_node: bool,
    quiet_history: i32,
) -> i32 {
    let mut r = table;
    if pv_node {
        r -= params::lmr_pv();
    }
    if refutation {
        r -= params::lmr_refutation();
    }
    if !improving {
        r += params::lmr_not_improving();
    }
    if cut_node {
        r += params::lmr_cut_node();
    }
    r - late_move_reduction_by_history(quiet_history)
}

/// Late-move reductions, by depth and move number: log-based, as the best
/// engines have them. Reductions grow with both, slowly.
pub(super) struct ReductionTable([[i32; 64]; 64]);

impl ReductionTable {
    /// The table for the parameters now in use (a tune build's options
    /// change them between searches).
    pub(super) fn new() -> Self {
        let base = f64::from(params::lmr_base()) / 100.0;
        let divisor = f64::from(params::lmr_divisor()) / 100.0;
        let mut t = [[0; 64]; 64];
        for (depth, row) in t.iter_mut().enumerate().skip(1) {
            for (moves, r) in row.iter_mut().enumerate().skip(1) {
                *r = (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32;
            }
        }
        ReductionTable(t)
    }

    pub(super) fn get(&self, depth: i32, moves: usize) -> i32 {
        self.0[(depth as usize).min(63)][moves.min(63)]
    }
}
