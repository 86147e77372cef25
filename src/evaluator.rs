//! The one evaluation the search calls: `Evaluator::evaluate`, the score of
//! a position for its side to move.
//!
//! It is the net's (`nnue`), through the thread's cache of evaluations by
//! key; the net's accumulators follow the search path move by move.

use std::sync::Arc;

use crate::eval_cache::EvalCache;
use crate::nnue::{self, AccumulatorStack, Network};
use crate::position::Position;
use crate::score::EVAL_LIMIT;

pub struct Evaluator {
    cache: EvalCache,
    accumulators: AccumulatorStack,
    net: Arc<Network>,
}

impl Default for Evaluator {
    /// An evaluator with the net built into the binary.
    fn default() -> Self {
        Evaluator {
            cache: EvalCache::default(),
            accumulators: AccumulatorStack::default(),
            net: nnue::embedded(),
        }
    }
}

impl Evaluator {
    /// Evaluate with `net` from now on; a change of net forgets the cached
    /// scores.
    pub fn use_net(&mut self, net: &Arc<Network>) {
        if !Arc::ptr_eq(&self.net, net) {
            self.net = Arc::clone(net);
            self.cache.clear();
            self.accumulators.clear();
        }
    }

    /// The net's score for the side to move, within ±`EVAL_LIMIT`: a net
    /// with huge outputs (a bad `EvalFile`) must not produce what the
    /// search takes for a tablebase win or a mate.
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        if let Some(score) = self.cache.probe(pos.key()) {
            return score;
        }
        let score = self
            .accumulators
            .evaluate(&self.net, pos)
            .clamp(-EVAL_LIMIT, EVAL_LIMIT);
        self.cache.store(pos.key(), score);
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Position as _};

    /// Every child and grandchild, twice: the second round is all cache
    /// hits, and every score equals a fresh evaluation.
    #[test]
    fn cached_scores_equal_fresh_ones() {
        let net = nnue::embedded();
        let mut evaluator = Evaluator::default();
        let fresh = |pos: &Position| net.evaluate_board(pos.board().board(), pos.turn());
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        let mut pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let mut hits = 0;
        for round in 0..2 {
            for m in pos.board().legal_moves() {
                pos.make(m);
                for reply in pos.board().legal_moves() {
                    pos.make(reply);
                    if round == 1 {
                        hits += 1;
                    }
                    assert_eq!(evaluator.evaluate(&pos), fresh(&pos), "{}", pos.fen());
                    pos.unmake();
                }
                assert_eq!(evaluator.evaluate(&pos), fresh(&pos));
                pos.unmake();
            }
        }
        assert!(hits > 1000);
    }

    /// Outputs beyond the score range, even at the extremes of the output
    /// bias (where the arithmetic itself would overflow i32), come back as
    /// ±`EVAL_LIMIT`, from a fresh evaluation and from the cache alike.
    #[test]
    fn huge_outputs_are_clamped_to_the_eval_limit() {
        let pos = Position::default();
        for (bias, expected) in [
            (i32::MAX, EVAL_LIMIT),
            (2_000_000, EVAL_LIMIT),
            (-2_000_000, -EVAL_LIMIT),
            (i32::MIN, -EVAL_LIMIT),
        ] {
            let mut net = (*nnue::embedded()).clone();
            net.output_bias.fill(bias);
            let raw = net.evaluate_board(pos.board().board(), pos.turn());
            assert!(raw.abs() > EVAL_LIMIT, "bias {bias}: raw {raw}");
            assert_eq!(raw.signum(), expected.signum(), "bias {bias}: raw {raw}");
            let mut evaluator = Evaluator::default();
            evaluator.use_net(&Arc::new(net));
            assert_eq!(evaluator.evaluate(&pos), expected, "bias {bias}");
            assert_eq!(evaluator.evaluate(&pos), expected, "bias {bias}: cached");
        }
        // The real net: an ordinary position's score is left as it is; six
        // queens against a king, which net 14 scores past the limit, come
        // out at it.
        let mut evaluator = Evaluator::default();
        let pos = Position::default();
        let raw = nnue::embedded().evaluate_board(pos.board().board(), pos.turn());
        assert!(raw.abs() < EVAL_LIMIT, "start position: {raw}");
        assert_eq!(evaluator.evaluate(&pos), raw);
        let pos = Position::from_fen("6k1/8/8/8/8/8/8/QQQQQQK1 w - - 0 1", CastlingMode::Standard)
            .unwrap();
        let raw = nnue::embedded().evaluate_board(pos.board().board(), pos.turn());
        assert_eq!(
            evaluator.evaluate(&pos),
            raw.clamp(-EVAL_LIMIT, EVAL_LIMIT),
            "six queens: {raw}"
        );
    }

    /// A second net replaces the first's cached scores and accumulators.
    #[test]
    fn a_new_net_forgets_the_old_ones_scores() {
        let embedded = nnue::embedded();
        let mut other = (*embedded).clone();
        other.output_bias.iter_mut().for_each(|b| *b += 100_000);
        let other = Arc::new(other);
        let pos = Position::default();
        let mut evaluator = Evaluator::default();
        let first = evaluator.evaluate(&pos);
        evaluator.use_net(&other);
        let second = evaluator.evaluate(&pos);
        assert_eq!(
            second,
            other.evaluate_board(pos.board().board(), pos.turn())
        );
        assert_ne!(first, second);
    }
}
