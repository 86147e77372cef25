//! Playing below full strength: `UCI_LimitStrength` and `UCI_Elo`.
//!
//! Lasker weakens the way Stockfish's Skill Level does, so that it loses
//! like a weaker player (it misses deeper ideas and picks a second-best
//! move now and then) rather than by random blunders:
//!
//! - the search is limited to a node budget that grows with the Elo (it
//!   starts no iteration past the budget, and stops at `HARD_NODES_FACTOR`
//!   times it); the clock's time budget applies as always, so a limited
//!   search can only finish sooner;
//! - it ranks a few root moves (MultiPV lines, whatever `MultiPV` says;
//!   only the line it plays is reported, as `multipv 1`, once it has
//!   chosen): `CANDIDATE_LINES` from Stockfish's range
//!   up, more for the beginners' levels below it, unless its weakness is 0
//!   (the top levels: the node budget alone weakens, and one line costs
//!   less than four);
//! - the move played is chosen among those lines by Stockfish's rule: each
//!   line's score gets a bonus made of a fixed part, larger for worse lines
//!   and for weaker levels, and a random part, and the highest total wins
//!   (`choose`). A proven result (a mate, a tablebase win or loss) is played
//!   as the search found it.
//!
//! The random part comes from a generator of its own (`Rng`), seeded from
//! the system's entropy when the engine starts (games differ between runs)
//! or by the hidden option `StrengthSeed` (the same seed, position and
//! commands give the same moves: tests).
//!
//! What `UCI_Elo` means is one table, `LEVELS`: node budget, weakness and
//! lines at a few Elo values, interpolated between them, calibrated against
//! Stockfish 15.1's `UCI_Elo` at 10+0.1 and, below its range, each beginners'
//! row against the one above (docs/strength.md gives the matches; a new
//! calibration changes only this table). `Skill Level` 0-20 is a step along
//! the same table (`elo_for_skill`).

use crate::rng::Rng;
use crate::score::{INFINITY, TB_WIN_BOUND};
use crate::timeman::Limits;

/// `UCI_Elo`'s range on the scale it is calibrated against, Stockfish
/// 15.1's `UCI_Elo` at 10+0.1: from that scale's bottom up to where
/// Lasker's full strength lies on it (docs/strength.md: every release's
/// full strength since 1.1.0 scored inside the band against Stockfish at
/// 2800; the scale itself ends at 2850). `MAX_ELO` is full strength.
///
/// Below Stockfish's range (its bottom is 1350) the levels are for
/// beginners, down to `MIN_ELO`, each calibrated against the level above
/// it (docs/strength.md).
pub const MIN_ELO: i64 = 600;
pub const MAX_ELO: i64 = 2800;
/// The bottom of Stockfish's range, where its `UCI_Elo` starts too: a GUI
/// that turns `UCI_LimitStrength` on without an Elo gets a club player,
/// not a beginner.
pub const DEFAULT_ELO: i64 = 1350;

/// `Skill Level` (Stockfish's option, which many apps and wrappers send):
/// 0 to `MAX_SKILL`, each step the same share of the `UCI_Elo` range, from
/// `MIN_ELO` at 0 to full strength at `MAX_SKILL`.
pub const MAX_SKILL: i64 = 20;

/// The `UCI_Elo` that `Skill Level` `skill` plays at.
pub fn elo_for_skill(skill: i64) -> i64 {
    let skill = skill.clamp(0, MAX_SKILL);
    MIN_ELO + (MAX_ELO - MIN_ELO) * skill / MAX_SKILL
}

/// The root moves a limited search ranks and chooses among from the
/// beginners' levels up (Stockfish's skill levels take 4); the beginners'
/// rows take more (`Anchor::lines`).
pub const CANDIDATE_LINES: usize = 4;

/// A limited search is stopped outright at this many times its node budget
/// (the budget itself only stops new iterations, which keeps the lines of a
/// whole iteration to choose from).
pub const HARD_NODES_FACTOR: u64 = 8;

/// The bonus formula's unit: a weakness of this much would ignore the
/// scores altogether. `LEVELS` stays well below it.
const WEAKNESS_SCALE: i64 = 128;

/// The random part of the bonus spans at most the candidates' spread of
/// scores, and never more than this (a pawn, in centipawns).
const MAX_RANDOM_SPREAD: i32 = 60;

/// One row of the table: at `elo`, a search of `nodes` (soft budget) and a
/// choice among `lines` candidate lines with `weakness` (0 ..
/// `WEAKNESS_SCALE`: how much the candidates' scores are flattened and how
/// wide the random bonus is).
struct Anchor {
    elo: i64,
    nodes: u64,
    weakness: i64,
    lines: usize,
}

/// The mapping from `UCI_Elo` to Lasker's level, fitted to matches against
/// Stockfish 15.1 at the same `UCI_Elo`, 10+0.1 (docs/strength.md has the
/// matches and the fit). Rows must rise in Elo and nodes and fall in
/// weakness (a test checks the whole mapping is monotone); between rows the
/// node budget is interpolated geometrically and the weakness linearly.
///
/// A row stays while it scores within the band (50% ± 10%) against
/// Stockfish at its Elo; one that misses moves toward where it played.
/// The top row is Lasker at full strength (one line, no choice, a budget
/// no clock reaches), placed where full strength scores inside the band.
/// From 2500 up the clock, not the node budget, ends the search, and a
/// weakness this low picks a worse line only a few centipawns behind:
/// what weakens these rows is mostly the cost in depth of searching
/// several lines, so 2600 searches four and 2700 two and both play the
/// best (weakness 1 never picks another). Each row's matches, pass by
/// pass, are in docs/strength.md's history.
///
/// The three rows below 1350 are for beginners, below Stockfish's range:
/// a search of a few dozen nodes that chooses among more lines with more
/// weakness, so that it leaves pieces hanging as a beginner does. Each was
/// calibrated against the row above it, 250 Elo apart (pass 12, 10+0.1,
/// 200 games each: 1100 against 1350 -238, 850 against 1100 -210, 600
/// against 850 -291, each within its error bars of -250; docs/strength.md,
/// "The beginners' chain").
const LEVELS: [Anchor; 12] = [
    Anchor {
        elo: 600,
        nodes: 16,
        weakness: 124,
        lines: 12,
    },
    Anchor {
        elo: 850,
        nodes: 36,
        weakness: 121,
        lines: 7,
    },
    Anchor {
        elo: 1100,
        nodes: 82,
        weakness: 117,
        lines: 5,
    },
    Anchor {
        elo: 1350,
        nodes: 178,
        weakness: 113,
        lines: CANDIDATE_LINES,
    },
    Anchor {
        elo: 1700,
        nodes: 812,
        weakness: 97,
        lines: CANDIDATE_LINES,
    },
    Anchor {
        elo: 2000,
        nodes: 15_100,
        weakness: 65,
        lines: CANDIDATE_LINES,
    },
    Anchor {
        elo: 2300,
        nodes: 180_000,
        weakness: 40,
        lines: CANDIDATE_LINES,
    },
    Anchor {
        elo: 2400,
        nodes: 250_000,
        weakness: 39,
        lines: CANDIDATE_LINES,
    },
    Anchor {
        elo: 2500,
        nodes: 1_462_009,
        weakness: 26,
        lines: CANDIDATE_LINES,
    },
    Anchor {
        elo: 2600,
        nodes: 8_549_880,
        weakness: 1,
        lines: CANDIDATE_LINES,
    },
    Anchor {
        elo: 2700,
        nodes: 20_000_000,
        weakness: 1,
        lines: 2,
    },
    Anchor {
        elo: 2800,
        nodes: 50_000_000,
        weakness: 0,
        lines: 1,
    },
];

/// What a `UCI_Elo` value means to the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub elo: i64,
    /// No iteration starts once the search has this many nodes.
    pub nodes: u64,
    /// 0 .. `WEAKNESS_SCALE`: the larger, the likelier a worse line; 0
    /// plays the best.
    pub weakness: i64,
    /// The candidate lines the search ranks and chooses among.
    pub lines: usize,
}

impl Level {
    /// The level of `elo` (clamped to `MIN_ELO ..= MAX_ELO`).
    pub fn for_elo(elo: i64) -> Level {
        let elo = elo.clamp(MIN_ELO, MAX_ELO);
        let upper = LEVELS
            .iter()
            .position(|a| a.elo >= elo)
            .unwrap_or(LEVELS.len() - 1)
            .max(1);
        let (lo, hi) = (&LEVELS[upper - 1], &LEVELS[upper]);
        let t = (elo - lo.elo) as f64 / (hi.elo - lo.elo) as f64;
        let (ln_lo, ln_hi) = ((lo.nodes as f64).ln(), (hi.nodes as f64).ln());
        let nodes = (ln_lo + t * (ln_hi - ln_lo)).exp().round() as u64;
        let weakness = lo.weakness + ((hi.weakness - lo.weakness) as f64 * t).round() as i64;
        let lines = lo.lines as f64 + (hi.lines as f64 - lo.lines as f64) * t;
        Level {
            elo,
            nodes: nodes.clamp(lo.nodes, hi.nodes),
            weakness,
            lines: if weakness > 0 {
                lines.round() as usize
            } else {
                1
            },
        }
    }

    /// Does the search rank candidate lines to choose among?
    pub fn chooses(&self) -> bool {
        self.weakness > 0
    }

    /// Adds this level's node budget to a search's limits (a tighter limit
    /// of `go`'s own stays).
    pub fn restrict(&self, limits: &mut Limits) {
        let soft = limits.soft_nodes.map_or(self.nodes, |n| n.min(self.nodes));
        let hard = self.nodes.saturating_mul(HARD_NODES_FACTOR);
        limits.soft_nodes = Some(soft);
        limits.nodes = Some(limits.nodes.map_or(hard, |n| n.min(hard)));
    }
}

/// One limited search: its level and the seed of its choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strength {
    pub level: Level,
    pub seed: u64,
}

impl Strength {
    /// Which of `scores` (the candidate lines' scores, best first, as the
    /// search ranked its root moves; lines without a score of their own,
    /// `-INFINITY`, end the candidates) to play, given `shown_best` (the
    /// score the search reports for its best move). `None`: play the best
    /// move (a proven result, or nothing to choose from).
    pub fn choose_line(&self, scores: &[i32], shown_best: i32) -> Option<usize> {
        if !self.level.chooses() || shown_best.abs() >= TB_WIN_BOUND {
            return None;
        }
        let candidates = scores
            .iter()
            .take(self.level.lines)
            .take_while(|&&s| s > -INFINITY)
            .count();
        if candidates < 2 {
            return None;
        }
        let mut rng = Rng::new(self.seed);
        Some(choose(&scores[..candidates], self.level.weakness, &mut rng))
    }
}

/// Stockfish's choice among lines (`Skill::pick_best`): each line's score
/// plus `(weakness · (top − score) + spread · random[0, weakness)) / 128`,
/// where `spread` is the candidates' range of scores (at most a pawn); the
/// highest total wins, the earlier line on a tie. The fixed part pulls
/// every score toward the top (at weakness 128 they would all count the
/// same); the random part decides among what is left. `scores` is best
/// first and not empty.
pub fn choose(scores: &[i32], weakness: i64, rng: &mut Rng) -> usize {
    let weakness = weakness.clamp(1, WEAKNESS_SCALE);
    let top = i64::from(scores[0]);
    let worst = i64::from(scores[scores.len() - 1]);
    let spread = (top - worst).min(i64::from(MAX_RANDOM_SPREAD));
    let mut best = (0, i64::MIN);
    for (i, &score) in scores.iter().enumerate() {
        let score = i64::from(score);
        let random = (rng.next_u64() % weakness as u64) as i64;
        let total = score + (weakness * (top - score) + spread * random) / WEAKNESS_SCALE;
        if total > best.1 {
            best = (i, total);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{MATE, TB_WIN};

    #[test]
    fn a_higher_elo_never_searches_less_nor_chooses_more_wildly() {
        let mut previous = Level::for_elo(MIN_ELO);
        for elo in MIN_ELO + 1..=MAX_ELO {
            let level = Level::for_elo(elo);
            assert!(level.nodes >= previous.nodes, "{previous:?} -> {level:?}");
            assert!(
                level.weakness <= previous.weakness,
                "{previous:?} -> {level:?}"
            );
            assert!(level.lines <= previous.lines, "{previous:?} -> {level:?}");
            previous = level;
        }
        let (weakest, strongest) = (Level::for_elo(MIN_ELO), Level::for_elo(MAX_ELO));
        assert!(
            strongest.nodes >= 100 * weakest.nodes,
            "{weakest:?} {strongest:?}"
        );
        assert!(weakest.weakness < WEAKNESS_SCALE && strongest.weakness == 0);
        assert!(weakest.chooses() && !strongest.chooses());
    }

    #[test]
    fn the_table_is_the_mapping_at_its_rows_and_clamps_outside() {
        for a in &LEVELS {
            let level = Level::for_elo(a.elo);
            assert_eq!(
                (level.nodes, level.weakness, level.lines),
                (
                    a.nodes,
                    a.weakness,
                    if a.weakness > 0 { a.lines } else { 1 }
                )
            );
        }
        assert_eq!(Level::for_elo(0), Level::for_elo(MIN_ELO));
        assert_eq!(Level::for_elo(i64::MAX), Level::for_elo(MAX_ELO));
        assert_eq!(LEVELS[0].elo, MIN_ELO);
        assert_eq!(LEVELS[LEVELS.len() - 1].elo, MAX_ELO);
    }

    #[test]
    fn the_budget_joins_the_limits_of_go() {
        let level = Level::for_elo(2000);
        let mut limits = Limits::default();
        level.restrict(&mut limits);
        assert_eq!(limits.soft_nodes, Some(level.nodes));
        assert_eq!(limits.nodes, Some(level.nodes * HARD_NODES_FACTOR));
        // `go nodes 10` asked for less: it stays.
        let mut limits = Limits {
            nodes: Some(10),
            ..Limits::default()
        };
        level.restrict(&mut limits);
        assert_eq!(limits.nodes, Some(10));
    }

    #[test]
    fn the_same_seed_gives_the_same_choices() {
        let scores = [40, 30, 25, 10];
        let picks = |seed| {
            let mut rng = Rng::new(seed);
            (0..50)
                .map(|_| choose(&scores, 110, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(picks(7), picks(7));
        assert_ne!(picks(7), picks(8));
    }

    /// How often each line is chosen over many draws.
    fn frequencies(scores: &[i32], weakness: i64) -> Vec<usize> {
        let mut rng = Rng::new(1);
        let mut counts = vec![0; scores.len()];
        for _ in 0..10_000 {
            counts[choose(scores, weakness, &mut rng)] += 1;
        }
        counts
    }

    #[test]
    fn weaker_levels_play_worse_lines_more_often() {
        let scores = [50, 35, 20, 0];
        let weak = frequencies(&scores, Level::for_elo(DEFAULT_ELO).weakness);
        let strong = frequencies(&scores, Level::for_elo(MAX_ELO).weakness);
        assert!(weak[0] < strong[0], "weak {weak:?} strong {strong:?}");
        assert!(weak[1..].iter().all(|&n| n > 0), "{weak:?}");
        // Better lines are likelier at every level.
        for counts in [&weak, &strong] {
            assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
        }
    }

    #[test]
    fn a_line_far_behind_is_never_chosen_from_stockfishs_range_up() {
        // The random bonus spans at most `MAX_RANDOM_SPREAD`, and every
        // level keeps part of the scores' differences: four pawns behind
        // is too far from 1350 up (there, weakness 113, a line can be
        // chosen up to 435 cp behind: d * (128 - 113) < 60 * 112 / 1.03).
        for elo in [DEFAULT_ELO, 2000, MAX_ELO] {
            let counts = frequencies(&[30, 20, -500], Level::for_elo(elo).weakness);
            assert_eq!(counts[2], 0, "at {elo}: {counts:?}");
        }
    }

    #[test]
    fn beginners_leave_pieces_hanging() {
        // A line a knight behind is played now and then at the weakest
        // level, almost never at the first of Stockfish's range.
        let scores = [40, 30, 20, 10, -280];
        let weakest = frequencies(&scores, Level::for_elo(MIN_ELO).weakness);
        assert!(weakest[4] > 300, "{weakest:?}");
        let club = frequencies(&scores, Level::for_elo(DEFAULT_ELO).weakness);
        assert!(club[4] < 20, "{club:?}");
        assert!(Level::for_elo(MIN_ELO).lines > CANDIDATE_LINES);
    }

    #[test]
    fn skill_levels_span_the_elo_range() {
        assert_eq!(elo_for_skill(0), MIN_ELO);
        assert_eq!(elo_for_skill(MAX_SKILL), MAX_ELO);
        assert_eq!(elo_for_skill(-3), MIN_ELO);
        assert_eq!(elo_for_skill(10), (MIN_ELO + MAX_ELO) / 2);
        assert!((0..MAX_SKILL).all(|s| elo_for_skill(s) < elo_for_skill(s + 1)));
    }

    #[test]
    fn proven_results_and_single_lines_are_played_as_found() {
        let strength = Strength {
            level: Level::for_elo(DEFAULT_ELO),
            seed: 3,
        };
        let mate_in_3 = MATE - 5;
        assert_eq!(strength.choose_line(&[mate_in_3, 50, 40], mate_in_3), None);
        assert_eq!(
            strength.choose_line(&[-mate_in_3, -MATE + 1], -mate_in_3),
            None
        );
        // A root ranked by the tablebases shows their result.
        assert_eq!(strength.choose_line(&[30, 20, 10], TB_WIN), None);
        assert_eq!(strength.choose_line(&[20], 20), None);
        assert_eq!(strength.choose_line(&[20, -INFINITY, -INFINITY], 20), None);
        // Only lines with a score of their own, and at most the candidates.
        for seed in 0..200 {
            let s = Strength { seed, ..strength };
            let scores = [20, 15, 10, 5, 0, -INFINITY];
            assert!(
                s.choose_line(&scores, 20)
                    .is_some_and(|i| i < s.level.lines)
            );
            let cut = [20, 15, -INFINITY, 10];
            assert!(s.choose_line(&cut, 20).is_some_and(|i| i < 2));
        }
    }
}
