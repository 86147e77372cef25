//! AdamW, its step split across threads, and the learning-rate schedule.

use super::Config;
use super::model::{CLIP, Trainer};
use crate::trainingdata::ChessBoard;

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

impl Trainer {
    /// One AdamW step on a batch; returns the batch's mean loss. `grad`
    /// (one value a parameter) is the step's scratch space.
    pub fn train_batch(
        &mut self,
        batch: &[ChessBoard],
        config: &Config,
        lr: f32,
        grad: &mut [f32],
    ) -> f32 {
        let loss = self.batch_gradient(batch, config.objective(), config.threads, grad);
        self.step += 1;
        self.apply_gradient(grad, batch.len(), config, lr);
        loss / batch.len() as f32
    }

    /// Takes the AdamW step for the summed gradient `grad` of `positions`
    /// positions, over the parameters split into one slice a thread: a net
    /// with 16 input buckets has 3.3 M weights, and one thread walking them
    /// (four arrays) every batch held a 256-wide net to 77 k positions a
    /// second on 2 threads, 107 k split. Each weight's arithmetic is the
    /// same whichever thread does it, so the result does not depend on the
    /// split.
    pub(super) fn apply_gradient(
        &mut self,
        grad: &[f32],
        positions: usize,
        config: &Config,
        lr: f32,
    ) {
        let threads = config.threads.max(1);
        let slice = self.params.len().div_ceil(threads).max(1);
        let t = self.step as i32;
        let (c1, c2) = (1.0 - BETA1.powi(t), 1.0 - BETA2.powi(t));
        let scale = 1.0 / positions as f32;
        let decay = 1.0 - lr * config.weight_decay;
        let layout = self.layout;
        std::thread::scope(|s| {
            let slices = self
                .params
                .chunks_mut(slice)
                .zip(self.m.chunks_mut(slice))
                .zip(self.v.chunks_mut(slice))
                .zip(grad.chunks(slice))
                .enumerate();
            for (k, (((params, m), v), grad)) in slices {
                s.spawn(move || {
                    let offset = k * slice;
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
