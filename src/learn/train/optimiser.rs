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
        let (first, rest) = grads.split_first_mut().expect("at least one thread");
        for other in rest.iter().take(batch.len().div_ceil(chunk) - 1) {
            for (a, b) in first.iter_mut().zip(other.iter()) {
                *a += b;
            }
        }
        self.step += 1;
        let t = self.step as i32;
        let (c1, c2) = (1.0 - BETA1.powi(t), 1.0 - BETA2.powi(t));
        let scale = 1.0 / batch.len() as f32;
        let l = self.layout;
        let moments = self.m.iter_mut().zip(self.v.iter_mut());
        for (i, ((w, g), (m, v))) in self
            .params
            .iter_mut()
            .zip(first.iter())
            .zip(moments)
            .enumerate()
        {
            let g = g * scale;
            *m = BETA1 * *m + (1.0 - BETA1) * g;
            *v = BETA2 * *v + (1.0 - BETA2) * g * g;
            let update = (*m / c1) / ((*v / c2).sqrt() + EPSILON);
            *w = *w * (1.0 - lr * config.weight_decay) - lr * update;
            if l.clipped(i) {
                *w = w.clamp(-CLIP, CLIP);
            }
        }
        loss / batch.len() as f32
    }
}

/// The learning rate at `progress` (0..1) of the run: cosine from `lr` to
/// `final_lr`.
pub fn learning_rate(config: &Config, progress: f32) -> f32 {
    let cos = (std::f32::consts::PI * progress.clamp(0.0, 1.0)).cos();
    config.final_lr + 0.5 * (config.lr - config.final_lr) * (1.0 + cos)
}
