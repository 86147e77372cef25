//! The search's tunable numbers in one table: every margin, depth, factor
//! and weight that the search, the histories and the time manager use, with
//! the range a tuner may move it in.
//!
//! Each parameter is read through a function of its name
//! (`params::rfp_margin()`). In a normal build that function is a constant:
//! the compiler sees the number, as if it were written in place. In a build
//! with `--features tune` it reads the value last set, so that a tuner can
//! change it through a UCI option of the same name (`uci::options`), and
//! `lasker spsa` prints the table in OpenBench's SPSA format.
//!
//! Values are integers. Where a rule wants a fraction, the parameter is in
//! the unit its comment gives (hundredths, 1/1024ths) and the rule divides.
//! The units were chosen so that the hand-set numbers the search had before
//! it was tunable computed exactly what they did as literals. The defaults
//! now are SPSA's, rounded (issue 45): run 1 tuned all but the time
//! manager's at 20,000 nodes a move, run 2 the time manager's at 2+0.02;
//! their final states are `tests/spsa/runs/run1.json` and `run2.json`.
//!
//! `step` is SPSA's perturbation at the end of a run (OpenBench's `c_end`):
//! about a twentieth of the range, at least 1.

#[cfg(feature = "tune")]
use std::sync::atomic::{AtomicI32, Ordering};

/// One tunable parameter: its name (also its UCI option's name), its
/// default, the range it may take and its SPSA step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub step: i32,
}

/// SPSA's learning rate at the end of a run (OpenBench's `r_end`), the same
/// for every parameter.
pub const R_END: f64 = 0.002;

impl Param {
    /// The parameter as a line of OpenBench's SPSA input:
    /// `name, int, value, min, max, c_end, r_end`.
    pub fn openbench_line(&self, value: i32) -> String {
        format!(
            "{}, int, {value}, {}, {}, {}, {R_END}",
            self.name, self.min, self.max, self.step
        )
    }
}

/// Defines the table (`PARAMS`) and a function per parameter.
macro_rules! params {
    ($( $(#[doc = $doc:literal])* $name:ident = $default:literal, $min:literal..=$max:literal, step $step:literal; )*) => {
        /// Every tunable parameter, in the order of this file.
        pub const PARAMS: &[Param] = &[
            $( Param { name: stringify!($name), default: $default, min: $min, max: $max, step: $step }, )*
        ];

        /// Each parameter's place in `PARAMS` (and in `VALUES`).
        #[allow(non_camel_case_types, dead_code)]
        #[derive(Clone, Copy)]
        enum Index { $( $name, )* }

        /// The values the tune build's search reads: the defaults until a
        /// UCI option sets one. Atomics: the search threads read them while
        /// `setoption` (between searches) writes them.
        #[cfg(feature = "tune")]
        static VALUES: [AtomicI32; PARAMS.len()] = [ $( AtomicI32::new($default), )* ];

        $(
            $(#[doc = $doc])*
            #[cfg(not(feature = "tune"))]
            #[inline(always)]
            pub const fn $name() -> i32 {
                $default
            }

            $(#[doc = $doc])*
            #[cfg(feature = "tune")]
            #[inline]
            pub fn $name() -> i32 {
                VALUES[Index::$name as usize].load(Ordering::Relaxed)
            }
        )*
    };
}

params! {
    // Reverse futility pruning (`search/pruning.rs`).
    /// The static evaluation beats beta by this much per ply of depth.
    rfp_margin = 81, 30..=160, step 8;
    /// ... at most this deep.
    rfp_max_depth = 7, 3..=12, step 1;

    // Null move.
    /// Tried from this depth on.
    nmp_min_depth = 4, 1..=6, step 1;
    /// The reduction: this many plies, plus a ply per `nmp_depth_divisor` of
    /// depth, plus a ply per `nmp_eval_divisor` centipawns of evaluation
    /// above beta, at most `nmp_eval_max` of those.
    nmp_base = 4, 1..=6, step 1;
    nmp_depth_divisor = 4, 2..=8, step 1;
    nmp_eval_divisor = 208, 80..=400, step 20;
    nmp_eval_max = 3, 1..=6, step 1;
    /// Cutoffs from this depth on are verified by a search without null
    /// moves.
    nmp_verify_depth = 12, 6..=20, step 1;

    // Futility pruning of quiet moves.
    /// The evaluation plus `futility_base` plus `futility_per_ply` per ply
    /// can't reach alpha ...
    futility_base = 98, 20..=250, step 10;
    futility_per_ply = 91, 30..=200, step 8;
    /// ... at most this deep.
    futility_max_depth = 8, 3..=12, step 1;

    // Late move pruning.
    /// At depth d, the quiet moves after `lmp_base` + d² are skipped (half
    /// as many where the position isn't improving) ...
    lmp_base = 4, 0..=8, step 1;
    /// ... at most this deep.
    lmp_max_depth = 7, 3..=12, step 1;

    // SEE pruning.
    /// A capture that loses more than this per ply of depth is skipped ...
    see_capture_margin = 90, 30..=200, step 8;
    /// ... a quiet move that puts more than this per ply en prise ...
    see_quiet_margin = 59, 20..=150, step 6;
    /// ... at most this deep.
    see_max_depth = 6, 2..=10, step 1;

    // History pruning.
    /// A quiet move whose histories are below minus this per ply ...
    history_prune_margin = 2960, 1000..=6000, step 200;
    /// ... at most this deep, is skipped (0: never).
    history_prune_max_depth = 4, 0..=8, step 1;

    // Internal iterative reduction.
    /// A node without a hash move is searched a ply shallower from this
    /// depth on.
    iir_min_depth = 4, 2..=8, step 1;

    // Singular extensions.
    /// Tested from this depth on ...
    singular_min_depth = 6, 4..=12, step 1;
    /// ... where the table's result is at most this much shallower.
    singular_tt_depth_slack = 2, 1..=6, step 1;
    /// The other moves must stay below the table's score less this many
    /// sixteenths of a centipawn per ply of depth.
    singular_margin = 32, 8..=96, step 4;
    /// Singular by this much more: two plies deeper ...
    double_extension_margin = 20, 0..=60, step 3;
    /// ... at most this many times on one path.
    double_extension_max = 6, 2..=12, step 1;
    /// The test searches the other moves this many hundredths as deep as
    /// the node (less a ply).
    singular_depth_share = 50, 30..=70, step 2;

    // Enhanced transposition cutoffs: the children's table entries are
    // looked up before a node's moves are searched ...
    /// ... from this depth on ...
    etc_min_depth = 3, 1..=8, step 1;
    /// ... at most this many plies from the root (0: nowhere).
    etc_max_ply = 2, 0..=8, step 1;

    // Late move reductions.
    /// From this depth on.
    lmr_min_depth = 3, 2..=5, step 1;
    /// The table: `lmr_base` + ln(depth) · ln(move number) /
    /// `lmr_divisor`, both in hundredths.
    lmr_base = 74, 0..=150, step 8;
    lmr_divisor = 226, 150..=400, step 12;
    /// A ply less or more per this much quiet history.
    lmr_history_divisor = 7826, 4096..=16384, step 512;
    /// Plies less at a PV node ... (the ranges of this and
    /// `lmr_not_improving` reach -1, a ply the other way, because SPSA run 1
    /// drove both toward 0: issue 45 widens a bound a tuned value reaches)
    lmr_pv = 0, -1..=3, step 1;
    /// ... for a killer or the counter-move ...
    lmr_refutation = 1, 0..=3, step 1;
    /// ... and more where the position isn't improving ...
    lmr_not_improving = 0, -1..=3, step 1;
    /// ... and at an expected cut-node.
    lmr_cut_node = 1, 0..=4, step 1;

    // Histories (`history.rs`): what a cutoff at depth d teaches its move,
    // scale · d − offset up to max, and the moves tried before it the same
    // as a malus.
    history_bonus_scale = 296, 100..=600, step 25;
    history_bonus_offset = 193, 0..=500, step 25;
    history_bonus_max = 2395, 1000..=4000, step 150;
    history_malus_scale = 300, 100..=600, step 25;
    history_malus_offset = 195, 0..=500, step 25;
    history_malus_max = 2462, 1000..=4000, step 150;

    // Correction histories: each table's weight in the correction, in
    // 1/1024ths of its value ...
    correction_pawn_weight = 528, 128..=1024, step 32;
    correction_non_pawn_weight = 272, 64..=768, step 24;
    correction_minor_weight = 256, 64..=768, step 24;
    correction_continuation_weight = 269, 64..=768, step 24;
    /// ... and the most one search's lesson weighs, out of 256 (its depth d
    /// gives it d² + 2d + 1).
    correction_update_max = 130, 32..=224, step 8;

    // Aspiration windows (`search/root.rs`).
    /// The first window's half-width in centipawns ...
    aspiration_window = 21, 8..=50, step 3;
    /// ... widened by this many percent after each fail ...
    aspiration_growth = 54, 20..=150, step 8;
    /// ... from this depth on; a window wider than this many centipawns
    /// gives way to the full one.
    aspiration_min_depth = 5, 2..=8, step 1;
    aspiration_max_window = 1000, 40..=3000, step 100;

    // Lazy SMP's vote (`search/smp.rs`).
    /// A thread's vote weighs its score above the worst thread's plus this
    /// (so that the worst thread's vote still counts), times its depth.
    smp_vote_offset = 14, 0..=50, step 2;

    // Time (`timeman.rs`).
    /// A clock without `movestogo` is shared as if this many moves were to
    /// come ...
    time_moves_to_go = 29, 15..=50, step 2;
    /// ... plus this many percent of the increment, once the clock holds
    /// `time_full_increment_clock` increments (in proportion below).
    time_increment_share = 75, 40..=100, step 5;
    time_full_increment_clock = 20, 5..=40, step 2;
    /// The hard limit: this many percent of the optimum ...
    time_hard_factor = 396, 200..=600, step 25;
    /// ... but at most this many percent of the clock.
    time_hard_share = 80, 50..=95, step 3;
    /// No iteration starts after this many percent of the optimum (scaled
    /// as follows) ...
    time_soft_share = 66, 40..=90, step 4;
    /// ... times (`time_node_base` − the best move's share of the nodes) ·
    /// `time_node_scale`, in hundredths ...
    time_node_base = 151, 100..=250, step 8;
    time_node_scale = 137, 80..=200, step 8;
    /// ... times this many hundredths after 0, 1, 2, 3 and 4 or more
    /// iterations with the same best move ...
    time_stability_0 = 150, 100..=250, step 8;
    time_stability_1 = 120, 80..=200, step 6;
    time_stability_2 = 100, 60..=150, step 5;
    time_stability_3 = 90, 50..=130, step 5;
    time_stability_4 = 80, 40..=120, step 5;
    /// ... from this iteration on (before it, neither scales the limit).
    time_scale_min_depth = 6, 3..=10, step 1;

    // The transposition table's replacement (`tt.rs`).
    /// A store for the same position keeps an entry of this search that is
    /// more than this many plies deeper (unless the new one is exact) ...
    tt_keep_deeper_margin = 3, 0..=8, step 1;
    /// ... and among the others the victim is the shallowest, an entry of
    /// an earlier search counting this many plies shallower per search.
    tt_age_plies = 8, 2..=16, step 1;
}

/// Where the parameter of this name stands in `PARAMS` (case-insensitive,
/// as UCI options are).
fn position(name: &str) -> Option<usize> {
    PARAMS
        .iter()
        .position(|p| p.name.eq_ignore_ascii_case(name))
}

/// The parameter of this name (case-insensitive, as UCI options are).
pub fn find(name: &str) -> Option<&'static Param> {
    position(name).map(|i| &PARAMS[i])
}

/// Sets a parameter of the tune build. Errors where the name is unknown or
/// the value is out of its range; then nothing changes.
#[cfg(feature = "tune")]
pub fn set(name: &str, value: i32) -> Result<(), String> {
    let index = position(name).ok_or_else(|| format!("unknown parameter '{name}'"))?;
    let p = &PARAMS[index];
    if !(p.min..=p.max).contains(&value) {
        return Err(format!(
            "{}: {value} is out of range {}..{}",
            p.name, p.min, p.max
        ));
    }
    VALUES[index].store(value, Ordering::Relaxed);
    Ok(())
}

/// A parameter's value now: its default, except where a tune build's UCI
/// option set another.
pub fn value(p: &Param) -> i32 {
    #[cfg(feature = "tune")]
    if let Some(index) = position(p.name) {
        return VALUES[index].load(Ordering::Relaxed);
    }
    p.default
}

/// The table in OpenBench's SPSA input format, one line a parameter, with
/// the values in use.
pub fn openbench_lines() -> impl Iterator<Item = String> {
    PARAMS.iter().map(|p| p.openbench_line(value(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_is_named_once_and_its_default_is_in_range() {
        for (i, p) in PARAMS.iter().enumerate() {
            assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
            assert!(p.step >= 1 && p.step <= p.max - p.min, "{p:?}");
            assert!(
                PARAMS[..i]
                    .iter()
                    .all(|q| !q.name.eq_ignore_ascii_case(p.name)),
                "{} twice",
                p.name
            );
            assert!(
                p.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            );
        }
        assert!((30..=80).contains(&PARAMS.len()), "{}", PARAMS.len());
    }

    #[test]
    fn the_functions_give_the_table_values() {
        assert_eq!(rfp_margin(), find("rfp_margin").unwrap().default);
        assert_eq!(
            time_stability_4(),
            find("TIME_STABILITY_4").unwrap().default
        );
        assert!(find("no_such_parameter").is_none());
    }

    #[test]
    fn openbench_lines_parse_back_to_the_table() {
        let lines: Vec<String> = openbench_lines().collect();
        assert_eq!(lines.len(), PARAMS.len());
        for (line, p) in lines.iter().zip(PARAMS) {
            let fields: Vec<&str> = line.split(", ").collect();
            assert_eq!(fields.len(), 7, "{line}");
            assert_eq!(fields[0], p.name);
            assert_eq!(fields[1], "int");
            let numbers: Vec<i32> = fields[2..6].iter().map(|f| f.parse().unwrap()).collect();
            assert_eq!(numbers, [value(p), p.min, p.max, p.step], "{line}");
            assert_eq!(fields[6].parse::<f64>().unwrap(), R_END);
        }
    }
}
