//! A batch's gradient, with the hidden layer split across the threads.
//!
//! Each position's gradient touches the rows of its active inputs (about
//! 64 of the feature weights' rows, both perspectives): read in the
//! forward pass, added to in the backward one. That row traffic is nearly
//! all of the trainer's time, so where the rows sit decides its speed. A
//! 512-wide net's feature weights are 1.5 MB, and a gradient of them
//! another 1.5 MB. Splitting the batch, with a gradient a thread, put 3 MB
//! before each core (more than its 2 MB of L2 cache) and left the threads'
//! gradients to be summed after every batch. Here every thread sees every
//! position of the batch, but only its own columns of the hidden layer (its
//! share of every row): with 2 threads each core works on half of each row,
//! 1.5 MB in all, and each weight's gradient has one writer, so nothing is
//! summed. A thread sums its columns' gradient in a buffer of its own and
//! copies it into the shared one at the end of the batch: written in
//! place, the cache line where two threads' columns of a row meet would go
//! back and forth between the cores at every position.
//!
//! A net with input buckets has a factoriser (`model`): each input's row
//! is its bucket's own share plus a share common to every bucket. Within a
//! batch the weights stand still, so each thread adds the two once, at the
//! batch's start, into its own copy of its columns, and the passes read
//! one row an input instead of two; the common share's gradient is the sum
//! of its buckets' gradients, taken at the end. That halves the row
//! traffic of such nets (4 input buckets x 512: 98 k -> 170 k positions a
//! second on 2 threads). A net without buckets has its columns copied the
//! same way, so that every thread reads its rows whole and contiguous.
//!
//! The output is a sum over every hidden unit, so it needs every thread's
//! share. Positions go in groups: a thread runs the forward pass of a
//! group on its columns, keeping its share of each accumulator, and
//! publishes its share of each output; at a barrier it waits for the
//! others' shares, adds them up (every thread the same sums, in the same
//! order) and runs the backward pass of the group on its columns. The
//! shares are kept in two buffers, by the group's parity: a thread can
//! only be writing group `k + 2`'s shares after every thread has passed
//! group `k + 1`'s barrier, so after they all finished reading group `k`'s.
//!
//! Each weight's gradient is summed over the batch's positions in order,
//! by one thread, whatever the number of threads; only the output's sum
//! of the threads' shares depends on the split.

use std::ops::Range;
use std::sync::Barrier;
use std::sync::atomic::{AtomicU32, Ordering};

use arrayvec::ArrayVec;

use super::model::{Layout, Objective, Trainer, inputs, screlu};
use crate::trainingdata::ChessBoard;
use lasker::nnue::{self, features::PIECE_SQUARES};

/// Positions between two barriers: small enough that a thread's share of
/// their accumulators (128 positions x 2 x 256 floats = 256 KB for 512
/// wide on 2 threads) stays in cache beside its rows.
const GROUP: usize = 128;

/// Columns go to threads 16 at a time: a thread's share of a row is whole
/// vectors.
const LINE: usize = 16;

/// A position of the batch, as both passes read it.
struct Sample {
    active: [ArrayVec<usize, 32>; 2],
    bucket: usize,
    target: f32,
}

/// Which row of `h` values (of the gradient, seen as rows) holds what:
/// the feature weights' rows (one an input), the feature biases, the
/// output weights (one row an output bucket and side) and the factoriser's
/// rows. The output biases are apart.
#[derive(Clone, Copy)]
struct Rows {
    bias: usize,
    output: usize,
    factor: usize,
}

impl Rows {
    fn of(layout: Layout, output_buckets: usize) -> Rows {
        let bias = layout.b1 / layout.h;
        Rows {
            bias,
            output: bias + 1,
            factor: bias + 1 + 2 * output_buckets,
        }
    }
}

/// The output-bias gradient and the loss: the part of the work one thread
/// (the first) does alone.
struct Totals<'a> {
    output_bias: &'a mut [f32],
    loss: f32,
}

impl Trainer {
    /// Sets `grad` (one value a parameter) to the gradient of the loss
    /// summed over `batch`, on `threads` threads; returns the summed loss.
    pub(super) fn batch_gradient(
        &self,
        batch: &[ChessBoard],
        objective: Objective,
        threads: usize,
        grad: &mut [f32],
    ) -> f32 {
        let (l, buckets) = (self.layout, self.shape.output_buckets);
        let samples: Vec<Sample> = batch
            .iter()
            .map(|r| Sample {
                active: inputs(self.shape, r),
                bucket: nnue::output_bucket(r.occ.count_ones(), buckets),
                target: objective.target(r),
            })
            .collect();
        // Every thread gets at least one line of columns (a narrow net
        // takes fewer threads), so no thread has an empty share.
        let lines = l.h / LINE;
        let threads = threads.clamp(1, lines);
        let rows = Rows::of(l, buckets);
        let bounds: Vec<usize> = (0..=threads).map(|t| lines * t / threads * LINE).collect();

        // The gradient as rows of `h`, each row cut into the threads'
        // columns: thread t owns `columns[t][row]`.
        let (before_output_bias, rest) = grad.split_at_mut(l.b2);
        let (output_bias, factor) = rest.split_at_mut(buckets);
        let mut columns: Vec<Vec<&mut [f32]>> = (0..threads).map(|_| Vec::new()).collect();
        for row in before_output_bias
            .chunks_exact_mut(l.h)
            .chain(factor.chunks_exact_mut(l.h))
        {
            let mut row = row;
            for (t, mine) in columns.iter_mut().enumerate() {
                let (cut, others) = row.split_at_mut(bounds[t + 1] - bounds[t]);
                mine.push(cut);
                row = others;
            }
        }
        output_bias.fill(0.0);
        let mut totals = Some(Totals {
            output_bias,
            loss: 0.0,
        });

        let shares: [Vec<AtomicU32>; 2] =
            std::array::from_fn(|_| (0..threads * GROUP).map(|_| AtomicU32::new(0)).collect());
        let barrier = Barrier::new(threads);
        std::thread::scope(|s| {
            let handles: Vec<_> = columns
                .into_iter()
                .enumerate()
                .map(|(t, grad)| {
                    let work = Columns {
                        trainer: self,
                        objective,
                        rows,
                        thread: t,
                        threads,
                        range: bounds[t]..bounds[t + 1],
                        samples: &samples,
                        shares: &shares,
                        barrier: &barrier,
                    };
                    let totals = totals.take();
                    s.spawn(move || work.run(grad, totals))
                })
                .collect();
            handles
                .into_iter()
                .filter_map(|h| h.join().expect("training thread"))
                .sum()
        })
    }
}

/// One thread's part of a batch: its columns of every position.
struct Columns<'a> {
    trainer: &'a Trainer,
    objective: Objective,
    rows: Rows,
    thread: usize,
    threads: usize,
    range: Range<usize>,
    samples: &'a [Sample],
    shares: &'a [Vec<AtomicU32>; 2],
    barrier: &'a Barrier,
}

impl Columns<'_> {
    /// Runs both passes over the batch and writes this thread's columns of
    /// the gradient into `grad` (its share of each row); the thread with
    /// `totals` also sums the output biases' gradient and the loss.
    fn run(&self, mut grad: Vec<&mut [f32]>, mut totals: Option<Totals>) -> Option<f32> {
        let (l, p) = (self.trainer.layout, &self.trainer.params);
        let (h, w, start) = (l.h, self.range.len(), self.range.start);
        let cols = |offset: usize| offset + start..offset + start + w;
        // This thread's columns of the gradient's rows, row after row.
        let mut sums = vec![0.0f32; grad.len() * w];
        // This thread's columns of the feature weights, row after row, with
        // the factoriser's share added: the weights do not change within a
        // batch, so the forward pass reads one row an input, not two.
        let inputs = self.rows.bias;
        let mut features = Vec::with_capacity(inputs * w);
        for f in 0..inputs {
            let own = &p[cols(f * h)];
            match l.factor_row(f) {
                Some(row) => features.extend(own.iter().zip(&p[cols(row)]).map(|(a, b)| a + b)),
                None => features.extend_from_slice(own),
            }
        }
        // This thread's columns of both accumulators of each position of a
        // group, and of one perspective's accumulator gradient.
        let mut accs = vec![0.0f32; GROUP * 2 * w];
        let mut d_acc = vec![0.0f32; w];
        for (k, group) in self.samples.chunks(GROUP).enumerate() {
            let shares = &self.shares[k % 2];
            for (i, sample) in group.iter().enumerate() {
                let mut out = 0.0f32;
                for (side, acc) in accs[i * 2 * w..(i + 1) * 2 * w]
                    .chunks_exact_mut(w)
                    .enumerate()
                {
                    acc.copy_from_slice(&p[cols(l.b1)]);
                    for &f in &sample.active[side] {
                        add(acc, &features[f * w..][..w]);
                    }
                    let weights = &p[cols(l.w2 + (2 * sample.bucket + side) * h)];
                    out += screlu_dot(acc, weights);
                }
                shares[self.thread * GROUP + i].store(out.to_bits(), Ordering::Relaxed);
            }
            // The barrier orders every thread's stores before these loads.
            self.barrier.wait();
            for (i, sample) in group.iter().enumerate() {
                let mut out = p[l.b2 + sample.bucket];
                for t in 0..self.threads {
                    out += f32::from_bits(shares[t * GROUP + i].load(Ordering::Relaxed));
                }
                let predicted = self.objective.predict(out);
                let error = predicted - sample.target;
                let g = 2.0 * error * self.objective.slope(predicted);
                if let Some(totals) = &mut totals {
                    totals.output_bias[sample.bucket] += g;
                    totals.loss += error * error;
                }
                for (side, acc) in accs[i * 2 * w..(i + 1) * 2 * w].chunks_exact(w).enumerate() {
                    let output_row = self.rows.output + 2 * sample.bucket + side;
                    let weights = &p[cols(l.w2 + (2 * sample.bucket + side) * h)];
                    for (((gw, d), &x), &wt) in sums[output_row * w..(output_row + 1) * w]
                        .iter_mut()
                        .zip(d_acc.iter_mut())
                        .zip(acc)
                        .zip(weights)
                    {
                        *gw += g * screlu(x);
                        *d = if x > 0.0 && x < 1.0 {
                            g * wt * 2.0 * x
                        } else {
                            0.0
                        };
                    }
                    add(&mut sums[self.rows.bias * w..][..w], &d_acc);
                    for &f in &sample.active[side] {
                        add(&mut sums[f * w..][..w], &d_acc);
                    }
                }
            }
        }
        // A factoriser row is part of the same row of every input bucket:
        // its gradient is the sum of theirs.
        if l.factor.is_some() {
            let (own, factor) = sums.split_at_mut(self.rows.factor * w);
            for (k, shared) in factor.chunks_exact_mut(w).enumerate() {
                for bucket_row in own[..inputs * w]
                    .chunks_exact(w)
                    .skip(k)
                    .step_by(PIECE_SQUARES)
                {
                    add(shared, bucket_row);
                }
            }
        }
        for (r, columns) in grad.iter_mut().enumerate() {
            columns.copy_from_slice(&sums[r * w..(r + 1) * w]);
        }
        totals.map(|t| t.loss)
    }
}

/// The output's share of `acc`: the sum of `screlu(acc) * weights`, in
/// eight running sums so that it vectorises (one sum is a chain of
/// dependent adds, a seventh of the pass at 512 wide).
#[inline]
fn screlu_dot(acc: &[f32], weights: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    for (a, w) in acc.chunks_exact(8).zip(weights.chunks_exact(8)) {
        for k in 0..8 {
            lanes[k] += screlu(a[k]) * w[k];
        }
    }
    lanes.iter().sum()
}

#[inline]
fn add(to: &mut [f32], from: &[f32]) {
    for (a, b) in to.iter_mut().zip(from) {
        *a += b;
    }
}
