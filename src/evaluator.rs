//! The one evaluation the search calls: `Evaluator::evaluate`, the score of
//! a position for its side to move.
//!
//! It is the net's (`nnue`) when the search was given one, else the
//! hand-crafted evaluation's (`eval`); either way through the thread's
//! cache of evaluations by key. The net's accumulators follow the search
//! path move by move.

use std::sync::Arc;

use crate::eval;
use crate::eval_cache::EvalCache;
use crate::nnue::{AccumulatorStack, Network};
use crate::position::Position;

#[derive(Default)]
pub struct Evaluator {
    cache: EvalCache,
    accumulators: AccumulatorStack,
    net: Option<Arc<Network>>,
}

impl Evaluator {
    /// Evaluate with `net` (or the hand-crafted evaluation for `None`) from
    /// now on; a change of net forgets the cached scores.
    pub fn use_net(&mut self, net: Option<&Arc<Network>>) {
        let same = match (&self.net, net) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.net = net.cloned();
            self.cache.clear();
            self.accumulators.clear();
        }
    }

    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        if let Some(score) = self.cache.probe(pos.key()) {
            return score;
        }
        let score = match &self.net {
            Some(net) => self.accumulators.evaluate(net, pos),
            None => eval::evaluate(pos),
        };
        self.cache.store(pos.key(), score);
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue;
    use shakmaty::{CastlingMode, Position as _};

    /// Every child and grandchild, twice: the second round is all cache
    /// hits, and every score equals a fresh evaluation, for both
    /// evaluations.
    #[test]
    fn cached_scores_equal_fresh_ones() {
        let net = nnue::embedded();
        for use_net in [false, true] {
            let mut evaluator = Evaluator::default();
            evaluator.use_net(use_net.then_some(&net));
            let fresh = |pos: &Position| match use_net {
                true => net.evaluate_board(pos.board().board(), pos.turn()),
                false => eval::evaluate(pos),
            };
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
    }
}
