//! The float net the trainer learns: the engine's shape (`nnue::Shape`)
//! in f32, its forward pass for one position, and its conversion to and
//! from the engine's quantised `Network`. The passes of a training batch,
//! split over threads, are `batch`'s.
//!
//! The net: `(768 x input buckets -> hidden) x 2 -> output buckets` with
//! SCReLU (clamp to [0, 1], squared). Its output times `SCALE` (400) is
//! centipawns, the search's. The `Objective` reads centipawns as an
//! expected score through `sigmoid(cp / scale)` (`--scale`, 400 by
//! default): the prediction is `sigmoid(output * 400 / scale)`, the target
//! blends the game's result with the search score, `wdl * result + (1 -
//! wdl) * sigmoid(score / scale)`, and the loss is the squared
//! difference. Inputs are sparse (at most 32 per perspective): the forward
//! pass sums the rows of the active inputs, which `nnue::features` names
//! exactly as the engine does, and the backward pass adds the
//! accumulator's gradient to those rows only.
//!
//! **The factoriser.** A net with input buckets learns each bucket's rows
//! as a share common to all buckets (the 768 rows of the factoriser) plus
//! the bucket's own: a piece on a square means much the same beside any
//! king, and the common share learns from every position where a bucket's
//! own rows learn only from the positions of its king squares. Quantising
//! adds the two (the engine's net has no factoriser). A new net starts as
//! the random weights of a plain net in the factoriser, the buckets' own
//! shares at zero.

use arrayvec::ArrayVec;

use crate::trainingdata::ChessBoard;
use lasker::nnue::features::PIECE_SQUARES;
use lasker::nnue::{self, Network, QA, QB, Shape};
use lasker::rng::Rng;

/// Where each part of the flat parameter vector starts: feature weights
/// (`w1`, at 0), feature biases (`b1`), output weights (`w2`, output bucket
/// by output bucket, `2 * hidden` each: the side to move's, then the other
/// side's), output biases (`b2`, one per output bucket) and, for a net with
/// input buckets, the factoriser (`factor`: 768 rows shared by every input
/// bucket); `params` in all.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub h: usize,
    pub b1: usize,
    pub w2: usize,
    pub b2: usize,
    pub factor: Option<usize>,
    pub params: usize,
}

impl Layout {
    pub fn of(shape: Shape) -> Layout {
        let h = shape.hidden;
        let b1 = shape.inputs() * h;
        let w2 = b1 + h;
        let b2 = w2 + shape.output_buckets * 2 * h;
        let end = b2 + shape.output_buckets;
        let factor = shape.input_buckets.mirrors().then_some(end);
        Layout {
            h,
            b1,
            w2,
            b2,
            factor,
            params: end + factor.map_or(0, |_| PIECE_SQUARES * h),
        }
    }

    /// Whether parameter `i` is clipped to ±`CLIP` (the weights the
    /// quantised net multiplies: feature and output weights, and the
    /// factoriser's share of the feature weights).
    pub fn clipped(&self, i: usize) -> bool {
        i < self.b1 || (self.w2..self.b2).contains(&i) || self.factor.is_some_and(|f| i >= f)
    }

    /// The factoriser's row of input `f`, where the net has one.
    #[inline]
    pub fn factor_row(&self, f: usize) -> Option<usize> {
        self.factor
            .map(|start| start + (f % PIECE_SQUARES) * self.h)
    }
}

/// Quantised weights must stay within i16 and the AVX2 product `v · w`
/// within 16 bits (|w · QB| ≤ 127).
pub(super) const CLIP: f32 = 1.98;
pub(super) const EVAL_SCALE: f32 = nnue::SCALE as f32;

/// The float net and AdamW's moment estimates.
#[derive(Clone)]
pub struct Trainer {
    pub(super) shape: Shape,
    pub(super) layout: Layout,
    pub params: Vec<f32>,
    pub(super) m: Vec<f32>,
    pub(super) v: Vec<f32>,
    pub(super) step: u64,
    /// Epochs completed.
    pub epoch: usize,
}

/// The active inputs of a record for the side to move and for the other
/// side. The record is written from the side to move's view, its
/// opponent's king square from the opponent's own view; the opponent sees
/// each piece with the colours swapped and the board flipped vertically.
pub(super) fn inputs(shape: Shape, record: &ChessBoard) -> [ArrayVec<usize, 32>; 2] {
    let ours = shape.input_buckets.view_relative(usize::from(record.ksq));
    let theirs_view = shape
        .input_buckets
        .view_relative(usize::from(record.opp_ksq));
    let (mut us, mut them) = (ArrayVec::new(), ArrayVec::new());
    for (piece, square) in *record {
        let (theirs, role, square) = (
            usize::from(piece >> 3),
            usize::from(piece & 7),
            usize::from(square),
        );
        us.push(ours.index_relative(theirs, role, square));
        them.push(theirs_view.index_relative(theirs ^ 1, role, square ^ 56));
    }
    [us, them]
}

pub(super) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// What the net learns to predict, and how its output and a search score
/// read as an expected score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Objective {
    /// The game's result's share of the target (`--wdl`); the rest is the
    /// search score's.
    pub wdl: f32,
    /// The centipawns that move the expected score by one unit of the
    /// sigmoid's input (`--scale`): where the games' results follow
    /// `sigmoid(score / scale)`, blending them in leaves the net's
    /// centipawns where the search's are. Lasker's 3,000-node self-play
    /// fits about 300 (docs/evaluation.md); 400 by default.
    pub scale: f32,
}

impl Objective {
    /// The search score alone at the default scale (`--wdl 0`; tests).
    #[cfg(test)]
    pub const SCORES: Objective = Objective {
        wdl: 0.0,
        scale: EVAL_SCALE,
    };

    /// `wdl` of the result at the default scale (tests).
    #[cfg(test)]
    pub fn with_wdl(wdl: f32) -> Objective {
        Objective {
            wdl,
            scale: EVAL_SCALE,
        }
    }

    pub(super) fn target(&self, record: &ChessBoard) -> f32 {
        let result = f32::from(record.result) / 2.0;
        self.wdl * result + (1.0 - self.wdl) * sigmoid(f32::from(record.score) / self.scale)
    }

    /// The expected score the float output predicts (the output is in
    /// units of `EVAL_SCALE` centipawns).
    #[inline]
    pub(super) fn predict(&self, output: f32) -> f32 {
        sigmoid(output * EVAL_SCALE / self.scale)
    }

    /// The derivative of `predict` at the output that predicted
    /// `predicted`.
    #[inline]
    pub(super) fn slope(&self, predicted: f32) -> f32 {
        predicted * (1.0 - predicted) * EVAL_SCALE / self.scale
    }
}

#[inline]
pub(super) fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

impl Trainer {
    /// A net of this shape with random weights (the same for the same
    /// seed and shape).
    pub fn new(seed: u64, shape: Shape) -> Trainer {
        let l = Layout::of(shape);
        let mut rng = Rng::with_stream(seed, u64::from_le_bytes(*b"train\0\0\0"));
        let mut uniform =
            |limit: f32| (rng.next_u64() as f64 / u64::MAX as f64) as f32 * 2.0 * limit - limit;
        let mut params = vec![0.0; l.params];
        // Random rows where a plain net has them, else in the factoriser
        // (the buckets' own shares start at zero).
        let features = match l.factor {
            Some(start) => start..l.params,
            None => 0..l.b1,
        };
        for w in &mut params[features] {
            *w = uniform(0.1);
        }
        let output_limit = 1.0 / (2.0 * l.h as f32).sqrt();
        for w in &mut params[l.w2..l.b2] {
            *w = uniform(output_limit);
        }
        Trainer::starting_from(shape, params)
    }

    /// A trainer at epoch 0 with these weights and fresh optimiser moments.
    pub(super) fn starting_from(shape: Shape, params: Vec<f32>) -> Trainer {
        let layout = Layout::of(shape);
        debug_assert_eq!(params.len(), layout.params);
        Trainer {
            shape,
            layout,
            m: vec![0.0; layout.params],
            v: vec![0.0; layout.params],
            params,
            step: 0,
            epoch: 0,
        }
    }

    /// The net's input buckets, hidden width and output buckets.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The number of parameters (weights and biases).
    pub fn parameters(&self) -> usize {
        self.layout.params
    }

    /// The float output (centipawns / 400) for a record's side to move:
    /// one position's forward pass, as the validation loss reads it.
    pub fn output(&self, record: &ChessBoard) -> f32 {
        let (l, p) = (self.layout, &self.params);
        let active = inputs(self.shape, record);
        let bucket = nnue::output_bucket(record.occ.count_ones(), self.shape.output_buckets);
        let mut acc = vec![0.0f32; 2 * l.h];
        let (ours, theirs) = acc.split_at_mut(l.h);
        self.accumulate(&active[0], ours);
        self.accumulate(&active[1], theirs);
        let weights = &p[l.w2 + bucket * 2 * l.h..l.w2 + (bucket + 1) * 2 * l.h];
        let mut out = p[l.b2 + bucket];
        for (a, w) in acc.iter().zip(weights) {
            out += screlu(*a) * w;
        }
        out
    }

    /// The feature biases plus the rows of `active`, into `acc`.
    fn accumulate(&self, active: &[usize], acc: &mut [f32]) {
        let (l, p) = (self.layout, &self.params);
        acc.copy_from_slice(&p[l.b1..l.b1 + l.h]);
        for &f in active {
            for (a, w) in acc.iter_mut().zip(&p[f * l.h..(f + 1) * l.h]) {
                *a += w;
            }
            if let Some(row) = l.factor_row(f) {
                for (a, w) in acc.iter_mut().zip(&p[row..row + l.h]) {
                    *a += w;
                }
            }
        }
    }

    /// Mean loss over `records`, on `threads` threads.
    pub fn loss(&self, records: &[ChessBoard], objective: Objective, threads: usize) -> f32 {
        if records.is_empty() {
            return 0.0;
        }
        let chunk = records.len().div_ceil(threads);
        let sum: f64 = std::thread::scope(|s| {
            let handles: Vec<_> = records
                .chunks(chunk)
                .map(|part| {
                    s.spawn(move || {
                        part.iter()
                            .map(|r| {
                                let e = objective.predict(self.output(r)) - objective.target(r);
                                f64::from(e * e)
                            })
                            .sum::<f64>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("loss thread"))
                .sum()
        });
        (sum / records.len() as f64) as f32
    }

    /// The net quantised for the engine.
    pub fn quantise(&self) -> Network {
        let q = |w: f32, scale: i32| (w * scale as f32).round() as i16;
        let (l, p) = (self.layout, &self.params);
        // Each feature weight with the factoriser's share added, within the
        // clip (each share is clipped alone in training).
        let feature_weights = p[..l.b1]
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let shared = l.factor_row(i / l.h).map_or(0.0, |row| p[row + i % l.h]);
                q((w + shared).clamp(-CLIP, CLIP), QA)
            })
            .collect();
        Network::from_parts(
            self.shape,
            feature_weights,
            p[l.b1..l.w2].iter().map(|&w| q(w, QA)).collect(),
            p[l.w2..l.b2]
                .iter()
                .map(|&w| q(w, QB).clamp(-127, 127))
                .collect(),
            p[l.b2..l.b2 + self.shape.output_buckets]
                .iter()
                .map(|&b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
        )
        .expect("a trainer's shape and lengths make a net")
    }

    /// A trainer whose float weights are `net`'s, dequantised (the
    /// inverse of `quantise`), with fresh optimiser moments at epoch 0.
    pub fn from_network(net: &Network) -> Trainer {
        let shape = net.shape();
        let mut params = Vec::with_capacity(Layout::of(shape).params);
        let dq = |w: i16, scale: i32| f32::from(w) / scale as f32;
        params.extend(net.feature_weights.iter().map(|&w| dq(w, QA)));
        params.extend(net.feature_bias.iter().map(|&w| dq(w, QA)));
        params.extend(net.output_weights.iter().map(|&w| dq(w, QB)));
        params.extend(net.output_bias.iter().map(|&b| b as f32 / (QA * QB) as f32));
        // The factoriser, if the shape has one, starts with no share.
        params.resize(Layout::of(shape).params, 0.0);
        Trainer::starting_from(shape, params)
    }

    /// A trainer of the larger `shape` that computes what `net` computes,
    /// to fine-tune a net into more capacity than its data could train
    /// from scratch: `net`'s hidden columns keep their weights (a net
    /// without input buckets gives its rows to the factoriser, so every
    /// bucket starts as it, the board mirrored by the king's file); the
    /// new columns start with random input weights, as a new net's, and
    /// output weights of zero, so that they add nothing until they learn.
    /// The output buckets must be the same, the width no smaller, and the
    /// input buckets the same or none.
    pub fn grown_from(net: &Network, shape: Shape, seed: u64) -> Result<Trainer, String> {
        let from = net.shape();
        let growable = from.output_buckets == shape.output_buckets
            && from.hidden <= shape.hidden
            && (from.input_buckets == shape.input_buckets || from.input_buckets.count() == 1);
        if !growable {
            return Err(format!(
                "a net {from} cannot grow into one {shape}: the output buckets stay, the width \
                 grows or stays, and the input buckets stay or come from none"
            ));
        }
        let small = Trainer::from_network(net);
        let (s, h0) = (small.layout, from.hidden);
        let mut grown = Trainer::new(seed, shape);
        let (l, h) = (grown.layout, shape.hidden);
        let p = &mut grown.params;
        // The input rows: into the factoriser where the small net has no
        // input buckets and the grown one has, else row for row. Where the
        // grown net has a factoriser the small net's rows do not go to,
        // its share of the old columns is zero.
        let into_factor = from.input_buckets.count() == 1 && l.factor.is_some();
        for row in 0..from.inputs() {
            let old = &small.params[row * h0..(row + 1) * h0];
            let start = match (into_factor, l.factor) {
                (true, Some(factor)) => factor + row * h,
                _ => row * h,
            };
            p[start..start + h0].copy_from_slice(old);
        }
        if let (false, Some(factor)) = (into_factor, l.factor) {
            for row in 0..PIECE_SQUARES {
                p[factor + row * h..factor + row * h + h0].fill(0.0);
            }
        }
        p[l.b1..l.b1 + h0].copy_from_slice(&small.params[s.b1..s.b1 + h0]);
        p[l.b1 + h0..l.w2].fill(0.0);
        // The output weights: each bucket's two halves (side to move, other
        // side) keep the old columns; the new columns are zero.
        p[l.w2..l.b2].fill(0.0);
        for half in 0..2 * shape.output_buckets {
            let old = s.w2 + half * h0;
            p[l.w2 + half * h..l.w2 + half * h + h0].copy_from_slice(&small.params[old..old + h0]);
        }
        p[l.b2..l.b2 + shape.output_buckets]
            .copy_from_slice(&small.params[s.b2..s.b2 + shape.output_buckets]);
        Ok(grown)
    }
}
