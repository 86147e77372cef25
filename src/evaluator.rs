//! The one evaluation the search calls: `Evaluator::evaluate`, the score of
//! a position for its side to move.
//!
//! It is the net's (`nnue`), through the thread's cache of evaluations by
//! key; the net's accumulators follow the search path move by move.

use std::sync::Arc;

use crate::eval_cache::EvalCache;
use crate::nnue::{self, AccumulatorStack, Network};
use crate::position::Position;

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

    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        if let Some(score) = self.cache.probe(pos.key()) {
            return score;
        }
        let score = self.accumulators.evaluate(&self.net, pos);
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

    /// A second net replaces the first's cached scores and accumulators.
    #[test]
    fn a_new_net_forgets_the_old_ones_scores() {
        let embedded = nnue::embedded();
        let mut other = (*embedded).clone();
        other.output_bias += 100_000;
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
