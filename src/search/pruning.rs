//! The pruning and reduction rules of the main search, each a small
//! predicate on the node's numbers, beside the parameters it uses. Each
//! prunes or reduces only where a match showed it pays (docs/search.md).
//! Whether a rule is switched on (`Techniques`) and the node's context (a PV
//! node, in check, a singular search) are `negamax`'s business.

use crate::score::{MATE_BOUND, TB_WIN_BOUND};

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
/// Singular extensions: from this depth, if the table's move beats every
/// other move by a margin (per ply of depth), it is searched a ply deeper.
const SE_MIN_DEPTH: i32 = 8;
const SE_MARGIN_PER_PLY: i32 = 2;
/// ... provided the table's result is at most this much shallower.
const SE_TT_DEPTH_SLACK: i32 = 3;
/// Double extensions: the table's move is singular by this margin.
const DOUBLE_EXTENSION_MARGIN: i32 = 20;
/// At most this many double extensions on one path.
pub(super) const MAX_DOUBLE_EXTENSIONS: u8 = 6;
/// Late move reductions from this depth on.
const LMR_MIN_DEPTH: i32 = 3;
/// Late move reductions change by a ply per this much quiet history.
const LMR_HISTORY_DIVISOR: i32 = 8192;
/// History pruning of quiet moves: at most this deep, below this much
/// history per ply.
const HISTORY_PRUNE_MAX_DEPTH: i32 = 4;
const HISTORY_PRUNE_MARGIN: i32 = 3000;

/// Reverse futility: the evaluation is so far above beta that a shallow
/// search won't bring it back. Not when beta is a loss (being mated, or a
/// lost table position): then the question is whether a mate comes, which
/// the evaluation can't answer (a net that scores KRvK at +283 hid a mate
/// in 2 behind a mate in 3 to depth 8).
/// An improving position gets one ply less of margin: its evaluation is
/// less likely to fall back.
pub(super) fn reverse_futility_prunes(depth: i32, eval: i32, beta: i32, improving: bool) -> bool {
    depth <= RFP_MAX_DEPTH
        && eval - RFP_MARGIN * (depth - i32::from(improving)) >= beta
        && eval < MATE_BOUND
        && beta > -TB_WIN_BOUND
}

/// Null move: worth a try where the evaluation is at or above beta and
/// enough depth is left for the reduced search to mean something.
pub(super) fn null_move_worth_trying(depth: i32, eval: i32, beta: i32) -> bool {
    depth >= NMP_MIN_DEPTH && eval >= beta
}

/// How much shallower the search after a pass is: more at depth, and more
/// the further the evaluation is above beta.
pub(super) fn null_move_reduction(depth: i32, eval: i32, beta: i32) -> i32 {
    3 + depth / 4 + ((eval - beta) / 200).min(3)
}

/// Deep null-move cutoffs are verified by a real search, so that a
/// zugzwang can't fool the search at depth.
pub(super) fn null_move_needs_verification(depth: i32) -> bool {
    depth >= NMP_VERIFY_DEPTH
}

/// Internal iterative reduction: with no hash move to guide it, a node this
/// deep is likely not worth the full depth.
pub(super) fn internal_iterative_reduction_applies(depth: i32) -> bool {
    depth >= IIR_MIN_DEPTH
}

/// Late move pruning: this many moves into a shallow node, the quiet moves
/// left are given up on; half as many where the position isn't improving.
pub(super) fn late_move_prunes(depth: i32, moves_searched: usize, improving: bool) -> bool {
    let limit = (3 + depth * depth) / (2 - i32::from(improving));
    depth <= LMP_MAX_DEPTH && moves_searched >= limit as usize
}

/// History pruning: at a shallow node, a quiet move whose histories (the
/// butterfly and continuation tables together) are this bad per ply of
/// depth is not searched.
pub(super) fn history_prunes(depth: i32, quiet_history: i32) -> bool {
    depth <= HISTORY_PRUNE_MAX_DEPTH && quiet_history < -HISTORY_PRUNE_MARGIN * depth
}

/// Late move reductions: a quiet move with a good history is reduced less,
/// one with a bad history more, by a ply per this much history.
pub(super) fn late_move_reduction_by_history(quiet_history: i32) -> i32 {
    quiet_history / LMR_HISTORY_DIVISOR
}

/// Futility pruning: at a shallow node whose evaluation is far below alpha,
/// no quiet move is likely to bring it back up.
pub(super) fn quiets_futile(depth: i32, eval: i32, alpha: i32) -> bool {
    depth <= FUTILITY_MAX_DEPTH && eval + FUTILITY_BASE + FUTILITY_PER_PLY * depth <= alpha
}

/// SEE pruning: at a shallow node, the exchange result below which a move
/// is skipped: a capture that loses more than a margin growing with depth,
/// or a quiet move that puts a piece en prise for more than a smaller one.
/// `None` where the node is too deep to prune.
pub(super) fn see_pruning_threshold(depth: i32, quiet: bool) -> Option<i32> {
    if depth > SEE_PRUNE_MAX_DEPTH {
        return None;
    }
    let margin_per_ply = if quiet {
        SEE_QUIET_MARGIN
    } else {
        SEE_PRUNE_MARGIN
    };
    Some(-margin_per_ply * depth)
}

/// Singular extensions: worth testing at a deep node whose table entry was
/// searched nearly as deep.
pub(super) fn singular_test_applies(depth: i32, tt_depth: i32) -> bool {
    depth >= SE_MIN_DEPTH && tt_depth >= depth - SE_TT_DEPTH_SLACK
}

/// The bound every other move must stay below for the table's move to be
/// singular: the table's score less a margin growing with depth.
pub(super) fn singular_beta(tt_score: i32, depth: i32) -> i32 {
    tt_score - SE_MARGIN_PER_PLY * depth
}

/// The depth of the search without the table's move.
pub(super) fn singular_search_depth(depth: i32) -> i32 {
    (depth - 1) / 2
}

/// Double extension: every other move stayed below the singular bound by a
/// wide margin.
pub(super) fn double_extension_applies(score: i32, singular_beta: i32) -> bool {
    score < singular_beta - DOUBLE_EXTENSION_MARGIN
}

/// Late move reductions apply from this depth on.
pub(super) fn late_move_reductions_apply(depth: i32) -> bool {
    depth >= LMR_MIN_DEPTH
}

/// Late-move reductions, by depth and move number: log-based, as the best
/// engines have them. Reductions grow with both, slowly.
pub(super) struct ReductionTable([[i32; 64]; 64]);

impl ReductionTable {
    pub(super) fn new() -> Self {
        let mut t = [[0; 64]; 64];
        for (depth, row) in t.iter_mut().enumerate().skip(1) {
            for (moves, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (depth as f64).ln() * (moves as f64).ln() / 2.25) as i32;
            }
        }
        ReductionTable(t)
    }

    pub(super) fn get(&self, depth: i32, moves: usize) -> i32 {
        self.0[(depth as usize).min(63)][moves.min(63)]
    }
}
