//! AdamW over a batch split across threads, and the learning-rate
//! schedule.

use super::Config;
use super::model::{CLIP, Trainer};
use crate::learn::trainingdata::ChessBoard;

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

impl Trainer {
    /// One AdamW step on a batch; returns the batch's mean loss. Each
    /// thread sums the gradient of its share of the batch into its own
    /// buffer of `grads`; the first buffer then holds the sum.
    pub fn train_batch(
        &mut self,
        batch: &[ChessBoard],
        config: &Config,
        lr: f32,
        grads: &mut [Vec<f32>],
    ) -> f32 {
        let chunk = batch.len().div_ceil(grads.len());
        let this = &*self;
        let loss: f32 = std::thread::scope(|s| {
            let handles: Vec<_> = batch
                .chunks(chunk)
                .zip(grads.iter_mut())
                .map(|(part, grad)| {
                    s.spawn(move || {
                        grad.fill(0.0);
                        part.iter()
                            .map(|r| this.backprop(r, config.wdl, grad))
                            .sum::<f32>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("training thread"))
                .sum()
        });
        let parts = batch.len().div_ceil(chunk);
        self.step += 1;
        self.apply_gradient(&mut grads[..parts], batch.len(), config, lr);
        loss / batch.len() as f32
    }

    /// Sums the threads' gradients into the first and takes the AdamW
    /// step, both over the parameters split into one slice a thread: a
    /// net with 16 input buckets has 3.3 M weights, and one thread walking
    /// them (five arrays) every batch held a 256-wide net to 77 k positions
    /// a second on 2 threads, 107 k split. Each weight's arithmetic is the
    /// same whichever thread does it, so the result does not depend on the
    /// split.
    pub(super) fn apply_gradient(
        &mut self,
        grads: &mut [Vec<f32>],
        positions: usize,
        config: &Config,
        lr: f32,
    ) {
        let threads = grads.len();
        let (first, rest) = grads.split_first_mut().expect("at least one thread");
        let slice = self.params.len().div_ceil(threads).max(1);
        let t = self.step as i32;
        let (c1, c2) = (1.0 - BETA1.powi(t), 1.0 - BETA2.powi(t));
        let scale = 1.0 / positions as f32;
        let decay = 1.0 - lr * config.weight_decay;
        let layout = self.layout;
        let rest = &*rest;
        std::thread::scope(|s| {
            let slices = self
                .params
                .chunks_mut(slice)
                .zip(self.m.chunks_mut(slice))
                .zip(self.v.chunks_mut(slice))
                .zip(first.chunks_mut(slice))
                .enumerate();
            for (k, (((params, m), v), grad)) in slices {
                s.spawn(move || {
                    let offset = k * slice;
                    for other in rest {
                        let theirs = &other[offset..offset + grad.len()];
                        for (a, b) in grad.iter_mut().zip(theirs) {
                            *a += b;
                        }
                    }
                    let moments = m.iter_mut().zip(v.iter_mut());
                    for (i, ((w, g), (m, v))) in
                        params.iter_mut().zip(grad.iter()).zip(moments).enumerate()
                    {
                        let g = g * scale;
                        *m = BETA1 * *m + (1.0 - BETA1) * g;
                        *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                        let update = (*m / c1) / ((*v / c2).sqrt() + EPSILON);
                        *w = *w * decay - lr * update;
                        if layout.clipped(offset + i) {
                            *w = w.clamp(-CLIP, CLIP);
                        }
                    }
                });
            }
        });
    }
}

/// The learning rate at `progress` (0..1) of the run: cosine from `lr` to
/// `final_lr`.
pub fn learning_rate(config: &Config, progress: f32) -> f32 {
    let cos = (std::f32::consts::PI * progress.clamp(0.0, 1.0)).cos();
    config.final_lr + 0.5 * (config.lr - config.final_lr) * (1.0 + cos)
}
