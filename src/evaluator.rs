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
