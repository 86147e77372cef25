//! Search limits (`go` parameters) and the time they allow.
//!
//! Two budgets come out of a clock: the *optimum*, after which no new
//! iteration is started, and the *maximum*, at which a running iteration is
//! abandoned. Both leave `Move Overhead` for the GUI and the pipe, and the
//! maximum never exceeds a fixed share of the remaining clock, so a short
//! clock can't make the engine lose on time.

use std::time::Duration;

use shakmaty::{Color, Move};

use crate::params;

/// What `go` asked for. `None` means "no such limit".
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// No new iteration starts once this many nodes are searched, and with
    /// one line, unless `finish_iteration`, a running one ends once its
    /// best move has an exact score (a node budget whose searches end on a
    /// scored move: `genfens`, strength levels).
    pub soft_nodes: Option<u64>,
    /// Past `soft_nodes`, the running iteration still searches every root
    /// move (up to `nodes`): data generation's deeper labels.
    pub finish_iteration: bool,
    pub movetime: Option<u64>,
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u32>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    /// Root moves to consider, legal ones (empty: all).
    pub searchmoves: Vec<Move>,
}

impl Limits {
    /// A search to `depth` plies and nothing else.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Default::default()
        }
    }

    /// With one legal move there is nothing to choose: a search on the
    /// clock stops at `FORCED_MOVE_DEPTH`, which gives the GUI a score and
    /// a move to ponder on in a few milliseconds (Stockfish caps such a
    /// search at 500 ms). A search the user timed themselves (`movetime`,
    /// `depth`, `nodes`), ponders or runs until `stop` is left as asked.
    pub fn shorten_for_forced_move(&mut self, us: Color) {
        if self.clock(us).is_some() && self.movetime.is_none() && !self.infinite && !self.ponder {
            self.depth = Some(
                self.depth
                    .map_or(FORCED_MOVE_DEPTH, |d| d.min(FORCED_MOVE_DEPTH)),
            );
        }
    }

    /// Does a limit of the search's own end it, for `us` to move: a depth,
    /// a node count, a move time or `us`'s clock? Not `infinite`, which
    /// only `stop` ends, nor `mate` alone: there may be no mate to find.
    /// (A `ponder` search waits for `ponderhit` before its limits count.)
    pub fn ends_by_itself(&self, us: Color) -> bool {
        !self.infinite
            && (self.depth.is_some()
                || self.nodes.is_some()
                || self.soft_nodes.is_some()
                || self.movetime.is_some()
                || self.clock(us).is_some())
    }

    fn clock(&self, us: Color) -> Option<(i64, u64)> {
        match us {
            Color::White => self.wtime.map(|t| (t, self.winc.unwrap_or(0))),
            Color::Black => self.btime.map(|t| (t, self.binc.unwrap_or(0))),
        }
    }
}

/// How deep a search on the clock looks when only one move is legal.
pub const FORCED_MOVE_DEPTH: u32 = 8;

/// The time budget of one search, measured from `start`.
#[derive(Clone, Debug)]
pub struct TimeBudget {
    pub optimum: Option<Duration>,
    pub maximum: Option<Duration>,
}

impl TimeBudget {
    pub fn new(limits: &Limits, us: Color, move_overhead_ms: u64) -> TimeBudget {
        if let Some(mt) = limits.movetime {
            // "Search exactly this long": no early stop between iterations.
            let t = Duration::from_millis(mt.saturating_sub(move_overhead_ms).max(1));
            return TimeBudget {
                optimum: None,
                maximum: Some(t),
            };
        }
        let Some((time, inc)) = limits.clock(us) else {
            return TimeBudget {
                optimum: None,
                maximum: None,
            };
        };
        // A negative clock (GUIs send it after a flag) still gets a move.
        let available = (time.max(0) as u64).saturating_sub(move_overhead_ms).max(1);
        let default_moves_to_go = params::time_moves_to_go() as u32;
        let moves_to_go = u64::from(limits.movestogo.unwrap_or(default_moves_to_go).clamp(1, 50));
        let share = available / moves_to_go + increment_credit(available, inc);
        // With one move to go the clock is refilled next move: use most of it.
        let cap = if moves_to_go == 1 {
            available * 3 / 4
        } else {
            available / 2
        };
        let optimum = share.min(cap).max(1);
        let hard_factor = params::time_hard_factor() as u64;
        let hard_share = params::time_hard_share() as u64;
        let maximum = (optimum * hard_factor / 100)
            .min(available * hard_share / 100)
            .max(optimum);
        TimeBudget {
            optimum: Some(Duration::from_millis(optimum)),
            maximum: Some(Duration::from_millis(maximum)),
        }
    }
}

/// What a move may spend of the increment, with `available` ms on the
/// clock (less Move Overhead): its share (three quarters by default) once
/// the clock holds `params::time_full_increment_clock` increments (20 by
/// default), in proportion below.
///
/// Spending the increment whatever the clock lets the clock sink to where
/// the increment only just pays for the moves: a GUI and a busy machine
/// take a few ms of every move, so at 1+0.01 the clock settled at about
/// 40 ms (Move Overhead 30 plus a few ms), where one stall of the machine
/// loses the game (docs/testing.md, "The clock"). In proportion, a low
/// clock spends less than the increment and climbs back: it settles at
/// about 14 increments (1+0.01: 130 ms; 10+0.1: 1.4 s), as it does in
/// engines that count the increments of the moves to come against the
/// clock they have.
fn increment_credit(available: u64, inc: u64) -> u64 {
    let full = inc * params::time_increment_share() as u64 / 100;
    let full_clock = params::time_full_increment_clock() as u64 * inc;
    if available >= full_clock {
        full
    } else {
        full * available / full_clock
    }
}

/// How much of the usual share of `optimum` a search may spend before it
/// stops between iterations, given how settled the root is.
///
/// `best_move_nodes` is the fraction of all nodes spent under the current
/// best root move: near 1 the alternatives are refuted at once and more
/// time would change little; low, the search keeps looking hard at other
/// moves and a new best move may be on its way. `stable_iterations` counts
/// the completed iterations in a row that kept the same best move.
pub fn soft_limit_scale(best_move_nodes: f64, stable_iterations: u32) -> f64 {
    let hundredths = |p: i32| f64::from(p) / 100.0;
    let nodes = (hundredths(params::time_node_base()) - best_move_nodes.clamp(0.0, 1.0))
        * hundredths(params::time_node_scale());
    let stability = match stable_iterations {
        0 => params::time_stability_0(),
        1 => params::time_stability_1(),
        2 => params::time_stability_2(),
        3 => params::time_stability_3(),
        _ => params::time_stability_4(),
    };
    nodes * hundredths(stability)
}

/// The share of the optimum a search spends before the soft scale (a
/// settled root stops sooner, an unsettled one later): no new iteration
/// starts after it.
pub fn soft_limit_share() -> f64 {
    f64::from(params::time_soft_share()) / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_ends_by_itself_with_a_limit_of_its_own() {
        let ends = |limits: Limits| limits.ends_by_itself(Color::White);
        assert!(ends(Limits::depth(5)));
        for limits in [
            Limits {
                nodes: Some(1),
                ..Limits::default()
            },
            Limits {
                movetime: Some(1),
                ..Limits::default()
            },
            Limits {
                wtime: Some(1000),
                mate: Some(3),
                ..Limits::default()
            },
        ] {
            assert!(ends(limits.clone()), "{limits:?}");
            assert!(
                !ends(Limits {
                    infinite: true,
                    ..limits
                }),
                "infinite"
            );
        }
        assert!(!ends(Limits::default()));
        assert!(!ends(Limits {
            mate: Some(5),
            ..Limits::default()
        }));
        // Black's clock is no limit of White's search.
        assert!(!ends(Limits {
            btime: Some(1000),
            ..Limits::default()
        }));
    }

    #[test]
    fn movetime_leaves_overhead() {
        let l = Limits {
            movetime: Some(1000),
            ..Default::default()
        };
        let b = TimeBudget::new(&l, Color::White, 30);
        assert_eq!(b.maximum, Some(Duration::from_millis(970)));
    }

    #[test]
    fn short_clock_never_overdraws() {
        for time in [-50i64, 0, 1, 10, 50, 200, 1000] {
            let l = Limits {
                wtime: Some(time),
                winc: Some(0),
                ..Default::default()
            };
            let b = TimeBudget::new(&l, Color::White, 10);
            let max = b.maximum.unwrap().as_millis() as i64;
            assert!(max >= 1);
            assert!(time <= 10 || max < time - 10 + 1, "time {time} max {max}");
        }
    }

    /// The time a move takes on the clock when the engine spends its
    /// optimum and the GUI and the machine take `lost` ms besides.
    fn next_clock(clock: i64, inc: u64, lost: i64) -> i64 {
        let l = Limits {
            wtime: Some(clock),
            winc: Some(inc),
            ..Default::default()
        };
        let b = TimeBudget::new(&l, Color::White, 30);
        clock - b.optimum.unwrap().as_millis() as i64 - lost + inc as i64
    }

    #[test]
    fn a_low_clock_climbs_back() {
        // 1+0.01 with a few ms lost a move: the clock settles well above
        // Move Overhead (it used to settle at about 40 ms).
        for start in [40, 60, 1000] {
            let mut clock = start;
            for _ in 0..2000 {
                clock = next_clock(clock, 10, 3);
            }
            assert!((110..=160).contains(&clock), "from {start}: {clock}");
        }
        // A clock of 20 increments or more spends the usual share.
        let l = Limits {
            wtime: Some(10_000),
            winc: Some(100),
            ..Default::default()
        };
        let b = TimeBudget::new(&l, Color::White, 30);
        let moves_to_go = params::time_moves_to_go() as u64;
        // The whole credit: `time_increment_share` percent of 100 ms.
        let full_credit = params::time_increment_share() as u64;
        assert_eq!(
            b.optimum,
            Some(Duration::from_millis(9_970 / moves_to_go + full_credit))
        );
        // No increment: nothing changes.
        let l = Limits {
            wtime: Some(500),
            ..Default::default()
        };
        let b = TimeBudget::new(&l, Color::White, 30);
        assert_eq!(b.optimum, Some(Duration::from_millis(470 / moves_to_go)));
    }

    #[test]
    fn uses_own_clock() {
        let l = Limits {
            wtime: Some(60_000),
            btime: Some(1_000),
            ..Default::default()
        };
        let w = TimeBudget::new(&l, Color::White, 0).optimum.unwrap();
        let b = TimeBudget::new(&l, Color::Black, 0).optimum.unwrap();
        assert!(w > b * 10);
    }

    #[test]
    fn unsettled_roots_get_more_time() {
        // A best move that takes all the nodes and never changes: stop early.
        assert!(soft_limit_scale(1.0, 10) < 0.6);
        // A fresh best move sharing the nodes with its rivals: think longer.
        assert!(soft_limit_scale(0.3, 0) > 2.0);
        // Monotone in both inputs.
        assert!(soft_limit_scale(0.5, 2) > soft_limit_scale(0.7, 2));
        assert!(soft_limit_scale(0.5, 1) > soft_limit_scale(0.5, 3));
    }

    #[test]
    fn no_clock_no_limit() {
        let b = TimeBudget::new(&Limits::default(), Color::White, 10);
        assert!(b.optimum.is_none() && b.maximum.is_none());
    }
}
