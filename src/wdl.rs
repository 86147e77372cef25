//! Win, draw and loss chances from a score: what `UCI_ShowWDL` adds to the
//! `info` lines. `lasker-tools fit-wdl` (the tools' `wdl_fit`) fits the
//! model to Lasker's own self-play games.
//!
//! The model is the one Stockfish made common. With `v` the score in
//! centipawns for the side to move and `m` the material on the board (pawn
//! 1, knight and bishop 3, rook 5, queen 9, both sides, clamped to 10..=78),
//!
//! ```text
//! win  = 1 / (1 + exp((a(m) - v) / b(m)))
//! loss = 1 / (1 + exp((a(m) + v) / b(m)))
//! draw = 1 - win - loss
//! ```
//!
//! where `a` (the score at which a win is as likely as not) and `b` (how
//! fast the chance grows) are cubics in `m / 58`. Material matters because
//! the same score means more with few pieces left: an endgame edge is
//! converted or drawn, a middlegame one can still be lost.
//!
use shakmaty::{Board, Role};

use crate::score::TB_WIN_BOUND;

/// Material counts outside this range are treated as its ends: few games
/// reach the others, and the model would extrapolate.
pub const MIN_MATERIAL: u32 = 10;
pub const MAX_MATERIAL: u32 = 78;
/// The cubics' variable is `material / MATERIAL_NORM` (the start position's
/// 78 is 1.34).
pub const MATERIAL_NORM: f64 = 58.0;

/// `a` and `b` as cubics in `m / 58`, highest power first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    pub a: [f64; 4],
    pub b: [f64; 4],
}

/// Fitted by `lasker-tools fit-wdl` on 409,248 positions (all within
/// ±2,000 internal cp) of net 28's self-play (datagen seed 4005's first
/// 5,082 games, 5,000 soft nodes a move; docs/evaluation.md, "Win, draw
/// and loss"). Its `a` at 58 is `score::NORMALISED_PAWN`, the unit UCI
/// prints scores in.
pub const MODEL: WdlModel = WdlModel {
    a: [-260.026, 736.359, -827.573, 574.128],
    b: [-175.974, 371.911, -131.962, 120.348],
};

/// Pawn 1, knight and bishop 3, rook 5, queen 9: both sides' together.
pub fn material(board: &Board) -> u32 {
    let count = |role| (board.by_role(role)).count() as u32;
    count(Role::Pawn)
        + 3 * (count(Role::Knight) + count(Role::Bishop))
        + 5 * count(Role::Rook)
        + 9 * count(Role::Queen)
}

pub fn cubic(coefficients: &[f64; 4], x: f64) -> f64 {
    coefficients.iter().fold(0.0, |sum, c| sum * x + c)
}

pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl WdlModel {
    /// `a` and `b` at this much material.
    pub fn parameters(&self, material: u32) -> (f64, f64) {
        let x = f64::from(material.clamp(MIN_MATERIAL, MAX_MATERIAL)) / MATERIAL_NORM;
        // A fit can't make b reach zero where data was, but keep the
        // division safe anywhere.
        (cubic(&self.a, x), cubic(&self.b, x).max(1.0))
    }

    /// The chances of a win, a draw and a loss for the side to move, per
    /// mille (summing to 1000), at a search score (`score` module scale).
    /// Mates and tablebase results are certain.
    pub fn per_mille(&self, score: i32, material: u32) -> [u32; 3] {
        if score >= TB_WIN_BOUND {
            return [1000, 0, 0];
        }
        if score <= -TB_WIN_BOUND {
            return [0, 0, 1000];
        }
        let (a, b) = self.parameters(material);
        let v = f64::from(score);
        let win = (1000.0 * sigmoid((v - a) / b)).round() as u32;
        let loss = (1000.0 * sigmoid((-v - a) / b)).round() as u32;
        // Rounding could make the two exceed 1000 only when a < 0, which a
        // fit does not give; clamp all the same.
        let loss = loss.min(1000 - win);
        [win, 1000 - win - loss, loss]
    }
}

/// `UCI_ShowWDL`'s text: ` wdl W D L`.
pub fn uci_text([w, d, l]: [u32; 3]) -> String {
    format!(" wdl {w} {d} {l}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position as _, fen::Fen};

    #[test]
    fn chances_add_up_and_follow_the_score() {
        for material in [10, 17, 40, 78, 90] {
            let mut last_win = 0;
            for score in (-1500..=1500).step_by(50) {
                let [w, d, l] = MODEL.per_mille(score, material);
                assert_eq!(w + d + l, 1000, "score {score} material {material}");
                assert!(w >= last_win, "win chance falls as the score rises");
                last_win = w;
                // Symmetric: our win at v is our loss at -v.
                assert_eq!(MODEL.per_mille(-score, material)[2], w);
            }
        }
        let [w, d, l] = MODEL.per_mille(0, 40);
        assert!(w == l && d > 200, "a level position: {w} {d} {l}");
    }

    #[test]
    fn uci_prints_scores_in_the_models_unit() {
        use crate::score::{NORMALISED_PAWN, format_score, normalised_cp};
        let (a, _) = MODEL.parameters(58);
        assert_eq!(
            NORMALISED_PAWN,
            a.round() as i32,
            "refit the model: move the unit too"
        );
        // At the anchor, `cp 100` is a 50% chance to win.
        let win = MODEL.per_mille(NORMALISED_PAWN, 58)[0];
        assert!((495..=505).contains(&win), "{win}");
        assert_eq!(format_score(NORMALISED_PAWN), "cp 100");
        assert_eq!(format_score(-NORMALISED_PAWN), "cp -100");
        assert_eq!(normalised_cp(0), 0);
        // Rounded half away from zero, in both signs.
        for score in -3 * NORMALISED_PAWN..=3 * NORMALISED_PAWN {
            let exact = f64::from(score) * 100.0 / f64::from(NORMALISED_PAWN);
            assert_eq!(normalised_cp(score), exact.round() as i32, "{score}");
        }
        assert_eq!(normalised_cp(-3 * NORMALISED_PAWN / 2), -150);
    }

    #[test]
    fn proven_results_are_certain() {
        use crate::score::{MATE, TB_WIN};
        assert_eq!(MODEL.per_mille(MATE - 3, 30), [1000, 0, 0]);
        assert_eq!(MODEL.per_mille(-MATE + 4, 30), [0, 0, 1000]);
        assert_eq!(MODEL.per_mille(-MATE, 30), [0, 0, 1000]);
        assert_eq!(MODEL.per_mille(TB_WIN - 10, 5), [1000, 0, 0]);
        assert_eq!(MODEL.per_mille(-TB_WIN + 10, 5), [0, 0, 1000]);
    }

    #[test]
    fn material_counts_both_sides_without_kings() {
        assert_eq!(material(Chess::default().board()), 78);
        let fen: Fen = "4k3/8/8/8/8/8/4P3/R3K2N w - - 0 1".parse().unwrap();
        assert_eq!(material(&fen.into_setup().board), 1 + 5 + 3);
    }
}
