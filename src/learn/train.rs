//! `lasker train`: trains the evaluation network on self-play data (any of
//! the formats `data` reads, filtered as they load), on the CPU, and exports
//! it quantised for the engine (`nnue`).
//!
//! The float net is the engine's: `(768 -> hidden) x 2 -> buckets` with
//! SCReLU (clamp to [0, 1], squared), 128 wide with one output unless
//! `--hidden` and `--output-buckets` say otherwise (with 8 outputs, the
//! piece count chooses the one that a position trains and is evaluated
//! by: `nnue::output_bucket`). Its output times `SCALE` (400) is centipawns,
//! so a position's predicted result is `sigmoid(output)`; the target blends
//! the game's result with the search score: `wdl * result + (1 - wdl) *
//! sigmoid(score / 400)`, and the loss is the squared difference.
//!
//! Inputs are sparse (at most 32 of 768 per perspective): the forward pass
//! sums the rows of the active inputs and the backward pass adds the
//! accumulator's gradient to those rows only. A batch is split over threads,
//! each with its own gradient; AdamW then updates every weight, with a
//! cosine learning-rate schedule over the epochs. Weights are clipped to
//! ±1.98 so that the quantised net can't overflow (`simd`).
//!
//! Each epoch ends with the validation loss on held-out games, a checkpoint
//! (float weights and the optimiser's moments: `--resume` continues from
//! it) and the quantised net `net-<epoch>.nnue`.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use arrayvec::ArrayVec;

use crate::learn::data;
use crate::learn::trainingdata::ChessBoard;
use crate::nnue::{self, INPUTS, Network, QA, QB};
use crate::rng::Rng;

/// The shape of a net: its hidden width and its number of output buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub hidden: usize,
    pub buckets: usize,
}

impl Default for Shape {
    /// Net 3's: 128 wide, one output.
    fn default() -> Self {
        Shape {
            hidden: nnue::DEFAULT_HIDDEN,
            buckets: 1,
        }
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = if self.buckets == 1 { "" } else { "s" };
        write!(
            f,
            "{} wide with {} output bucket{s}",
            self.hidden, self.buckets
        )
    }
}

/// Where each part of the flat parameter vector starts: feature weights
/// (`w1`, at 0), feature biases (`b1`), output weights (`w2`, bucket by
/// bucket, `2 * hidden` each: the side to move's, then the other side's),
/// output biases (`b2`, one per bucket); `params` in all.
#[derive(Clone, Copy, Debug)]
struct Layout {
    h: usize,
    b1: usize,
    w2: usize,
    b2: usize,
    params: usize,
}

impl Layout {
    fn of(shape: Shape) -> Layout {
        let h = shape.hidden;
        let b1 = INPUTS * h;
        let w2 = b1 + h;
        let b2 = w2 + shape.buckets * 2 * h;
        Layout {
            h,
            b1,
            w2,
            b2,
            params: b2 + shape.buckets,
        }
    }
}

/// Quantised weights must stay within i16 and the AVX2 product `v · w`
/// within 16 bits (|w · QB| ≤ 127).
const CLIP: f32 = 1.98;
const EVAL_SCALE: f32 = nnue::SCALE as f32;

#[derive(Clone, Debug)]
pub struct Config {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    pub final_lr: f32,
    pub wdl: f32,
    /// Show each position mirrored left to right in half the epochs' draws:
    /// the evaluation is (all but castling, which the net doesn't see)
    /// symmetric, so this doubles what little data there is.
    pub mirror: bool,
    pub weight_decay: f32,
    pub threads: usize,
    /// Share of the data (its last records: whole games) held out.
    pub validation: f64,
    pub seed: u64,
    pub resume: Option<PathBuf>,
    /// Start from this quantised net's weights (with fresh optimiser
    /// moments) instead of random ones: fine-tuning a net whose checkpoint
    /// or data is gone, on new data.
    pub init: Option<PathBuf>,
    /// Stop after this epoch (the schedule still spans `epochs`): a long
    /// run in parts, each resumed from the last checkpoint.
    pub stop_after: Option<usize>,
    /// The net's hidden width and output buckets (`--hidden`,
    /// `--output-buckets`).
    pub shape: Shape,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            data: Vec::new(),
            out: PathBuf::from("train-out"),
            epochs: 30,
            batch: 4_096,
            lr: 0.001,
            final_lr: 0.00001,
            // A few thousand games' results are too few to learn from: the
            // net memorises them (docs/evaluation.md).
            wdl: 0.0,
            mirror: true,
            weight_decay: 0.01,
            threads: 2,
            validation: 0.02,
            seed: 1,
            resume: None,
            init: None,
            stop_after: None,
            shape: Shape::default(),
        }
    }
}

pub const USAGE: &str = "usage: lasker train --data FILE [--data FILE ...] --out DIR [--epochs N]
                    [--batch N] [--lr X] [--final-lr X] [--wdl X] [--mirror on|off]
                    [--weight-decay X]
                    [--threads N] [--validation FRACTION] [--seed S] [--resume DIR/checkpoint.bin]
                    [--init NET.nnue] [--stop-after EPOCH] [--hidden 128]
                    [--output-buckets 1|8]
  Trains the net on FILE.vf (games), FILE.bin (32-byte records) or FILE.pgn (games with engine
  scores), filtered as they load (no positions in check, after captures or promotions, or with
  mate scores); writes DIR/checkpoint.bin and DIR/net-<epoch>.nnue each epoch.
  --init starts from a net's weights instead of random ones (fine-tuning); its shape must be
  the one --hidden and --output-buckets give (128 and 1 by default), as must --resume's.
  --hidden: a multiple of 16 up to 1024; --output-buckets 8 gives each piece count band
  (2-5 pieces, 6-9, ..., 30-32) its own output layer.";

impl Config {
    pub fn from_args(args: &[String]) -> Result<Config, String> {
        let mut c = Config::default();
        let mut out = None;
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it
                .next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
            fn num<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
                v.parse()
                    .map_err(|_| format!("{flag}: '{v}' is not a valid number"))
            }
            match flag.as_str() {
                "--data" => c.data.push(PathBuf::from(value)),
                "--out" => out = Some(PathBuf::from(value)),
                "--epochs" => c.epochs = num(flag, value)?,
                "--batch" => c.batch = num(flag, value)?,
                "--lr" => c.lr = num(flag, value)?,
                "--final-lr" => c.final_lr = num(flag, value)?,
                "--wdl" => c.wdl = num(flag, value)?,
                "--mirror" => {
                    c.mirror = match value.as_str() {
                        "on" | "true" => true,
                        "off" | "false" => false,
                        _ => return Err(format!("--mirror takes on or off, not '{value}'")),
                    }
                }
                "--weight-decay" => c.weight_decay = num(flag, value)?,
                "--threads" => c.threads = num(flag, value)?,
                "--validation" => c.validation = num(flag, value)?,
                "--seed" => c.seed = num(flag, value)?,
                "--resume" => c.resume = Some(PathBuf::from(value)),
                "--init" => c.init = Some(PathBuf::from(value)),
                "--stop-after" => c.stop_after = Some(num(flag, value)?),
                "--hidden" => c.shape.hidden = num(flag, value)?,
                "--output-buckets" => c.shape.buckets = num(flag, value)?,
                _ => return Err(format!("unknown flag '{flag}'\n{USAGE}")),
            }
        }
        c.out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
        if c.data.is_empty() {
            return Err(format!("--data is required\n{USAGE}"));
        }
        if c.resume.is_some() && c.init.is_some() {
            return Err(
                "--resume and --init exclude each other: a checkpoint has its weights".into(),
            );
        }
        if c.epochs == 0 || c.batch == 0 || !(1..=256).contains(&c.threads) {
            return Err("--epochs and --batch must be positive, --threads in 1..256".into());
        }
        if !(0.0..=1.0).contains(&c.wdl) || !(0.0..0.5).contains(&c.validation) {
            return Err("--wdl must be in 0..1 and --validation in 0..0.5".into());
        }
        nnue::check_shape(c.shape.hidden, c.shape.buckets).map_err(|e| {
            format!(
                "--hidden {} --output-buckets {}: {e}",
                c.shape.hidden, c.shape.buckets
            )
        })?;
        Ok(c)
    }
}

/// The float net and AdamW's moment estimates.
#[derive(Clone)]
pub struct Trainer {
    shape: Shape,
    layout: Layout,
    pub params: Vec<f32>,
    m: Vec<f32>,
    v: Vec<f32>,
    step: u64,
    /// Epochs completed.
    pub epoch: usize,
}

/// What the forward pass leaves for the backward one.
struct Forward {
    /// The side to move's active inputs, then the other side's.
    active: [ArrayVec<usize, 32>; 2],
    /// The side to move's accumulator (`hidden` values), then the other
    /// side's.
    acc: Vec<f32>,
    /// The output bucket used.
    bucket: usize,
    out: f32,
}

/// The active inputs of a record for the side to move and for the other
/// side (the record is written from the side to move's view).
fn inputs(record: &ChessBoard) -> (ArrayVec<usize, 32>, ArrayVec<usize, 32>) {
    let (mut us, mut them) = (ArrayVec::new(), ArrayVec::new());
    for (piece, square) in *record {
        let (theirs, role, square) = (
            usize::from(piece >> 3),
            usize::from(piece & 7),
            usize::from(square),
        );
        us.push(theirs * 384 + role * 64 + square);
        them.push((theirs ^ 1) * 384 + role * 64 + (square ^ 56));
    }
    (us, them)
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn target(record: &ChessBoard, wdl: f32) -> f32 {
    let result = f32::from(record.result) / 2.0;
    wdl * result + (1.0 - wdl) * sigmoid(f32::from(record.score) / EVAL_SCALE)
}

impl Trainer {
    /// A net of this shape with random weights (the same for the same
    /// seed; 128 wide with one output as before shapes could vary).
    pub fn new(seed: u64, shape: Shape) -> Trainer {
        let l = Layout::of(shape);
        let mut rng = Rng::with_stream(seed, u64::from_le_bytes(*b"train\0\0\0"));
        let mut uniform =
            |limit: f32| (rng.next_u64() as f64 / u64::MAX as f64) as f32 * 2.0 * limit - limit;
        let mut params = vec![0.0; l.params];
        for w in &mut params[..l.b1] {
            *w = uniform(0.1);
        }
        let output_limit = 1.0 / (2.0 * l.h as f32).sqrt();
        for w in &mut params[l.w2..l.b2] {
            *w = uniform(output_limit);
        }
        Trainer::starting_from(shape, params)
    }

    /// The net's hidden width and output buckets.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The float output (centipawns / 400) for a record's side to move.
    pub fn output(&self, record: &ChessBoard) -> f32 {
        self.forward(record).out
    }

    /// The forward pass: the side to move's and the other side's active
    /// inputs and accumulators, and the output.
    fn forward(&self, record: &ChessBoard) -> Forward {
        let (l, p) = (self.layout, &self.params);
        let (us, them) = inputs(record);
        let bucket = nnue::output_bucket(record.occ.count_ones(), self.shape.buckets);
        let mut acc = vec![0.0f32; 2 * l.h];
        let (ours, theirs) = acc.split_at_mut(l.h);
        self.accumulate(&us, ours);
        self.accumulate(&them, theirs);
        let weights = &p[l.w2 + bucket * 2 * l.h..l.w2 + (bucket + 1) * 2 * l.h];
        let mut out = p[l.b2 + bucket];
        for (a, w) in acc.iter().zip(weights) {
            out += screlu(*a) * w;
        }
        Forward {
            active: [us, them],
            acc,
            bucket,
            out,
        }
    }

    /// The feature biases plus the rows of `active`, into `acc`.
    fn accumulate(&self, active: &[usize], acc: &mut [f32]) {
        let (l, p) = (self.layout, &self.params);
        acc.copy_from_slice(&p[l.b1..l.b1 + l.h]);
        for &f in active {
            for (a, w) in acc.iter_mut().zip(&p[f * l.h..(f + 1) * l.h]) {
                *a += w;
            }
        }
    }

    /// Adds the gradient of one record's loss to `grad`; returns the loss.
    fn backprop(&self, record: &ChessBoard, wdl: f32, grad: &mut [f32]) -> f32 {
        let Forward {
            active,
            acc,
            bucket,
            out,
        } = self.forward(record);
        let (l, p) = (self.layout, &self.params);
        let h = l.h;
        let predicted = sigmoid(out);
        let error = predicted - target(record, wdl);
        let g = 2.0 * error * predicted * (1.0 - predicted);
        grad[l.b2 + bucket] += g;
        let w2 = l.w2 + bucket * 2 * h;
        let mut d_acc = vec![0.0f32; h];
        for (side, (acc, active)) in acc.chunks_exact(h).zip(&active).enumerate() {
            let w2 = w2 + side * h;
            for j in 0..h {
                grad[w2 + j] += g * screlu(acc[j]);
                let x = acc[j];
                d_acc[j] = if x > 0.0 && x < 1.0 {
                    g * p[w2 + j] * 2.0 * x
                } else {
                    0.0
                };
            }
            for (b, d) in grad[l.b1..l.b1 + h].iter_mut().zip(&d_acc) {
                *b += d;
            }
            for &f in active.iter() {
                for (w, d) in grad[f * h..(f + 1) * h].iter_mut().zip(&d_acc) {
                    *w += d;
                }
            }
        }
        error * error
    }

    /// Mean loss over `records`, on `threads` threads.
    pub fn loss(&self, records: &[ChessBoard], wdl: f32, threads: usize) -> f32 {
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
                                let e = sigmoid(self.output(r)) - target(r, wdl);
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

    /// One AdamW step on a batch; returns the batch's mean loss.
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
        let (beta1, beta2, eps) = (0.9f32, 0.999f32, 1e-8f32);
        let t = self.step as i32;
        let (c1, c2) = (1.0 - beta1.powi(t), 1.0 - beta2.powi(t));
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
            *m = beta1 * *m + (1.0 - beta1) * g;
            *v = beta2 * *v + (1.0 - beta2) * g * g;
            let update = (*m / c1) / ((*v / c2).sqrt() + eps);
            *w = *w * (1.0 - lr * config.weight_decay) - lr * update;
            if i < l.b1 || (l.w2..l.b2).contains(&i) {
                *w = w.clamp(-CLIP, CLIP);
            }
        }
        loss / batch.len() as f32
    }

    /// The net quantised for the engine.
    pub fn quantise(&self) -> Network {
        let q = |w: f32, scale: i32| (w * scale as f32).round() as i16;
        let (l, p) = (self.layout, &self.params);
        Network::from_parts(
            self.shape.hidden,
            self.shape.buckets,
            p[..l.b1].iter().map(|&w| q(w, QA)).collect(),
            p[l.b1..l.w2].iter().map(|&w| q(w, QA)).collect(),
            p[l.w2..l.b2]
                .iter()
                .map(|&w| q(w, QB).clamp(-127, 127))
                .collect(),
            p[l.b2..]
                .iter()
                .map(|&b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
        )
        .expect("a trainer's shape and lengths make a net")
    }

    /// A trainer at epoch 0 with these weights and fresh optimiser moments.
    fn starting_from(shape: Shape, params: Vec<f32>) -> Trainer {
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

    /// A trainer whose float weights are `net`'s, dequantised (the
    /// inverse of `quantise`), with fresh optimiser moments at epoch 0.
    pub fn from_network(net: &Network) -> Trainer {
        let shape = Shape {
            hidden: net.hidden(),
            buckets: net.buckets(),
        };
        let mut params = Vec::with_capacity(Layout::of(shape).params);
        let dq = |w: i16, scale: i32| f32::from(w) / scale as f32;
        params.extend(net.feature_weights.iter().map(|&w| dq(w, QA)));
        params.extend(net.feature_bias.iter().map(|&w| dq(w, QA)));
        params.extend(net.output_weights.iter().map(|&w| dq(w, QB)));
        params.extend(net.output_bias.iter().map(|&b| b as f32 / (QA * QB) as f32));
        Trainer::starting_from(shape, params)
    }

    /// Checkpoints: the magic, then u64 words, then the parameters and
    /// Adam's two moments as f32. Version 1 (128 wide, one output): the
    /// width, the step and the epoch. Version 2: the width, the buckets,
    /// the step and the epoch.
    const CHECKPOINT_MAGIC_V1: &'static [u8; 8] = b"LKTRAIN1";
    const CHECKPOINT_MAGIC: &'static [u8; 8] = b"LKTRAIN2";

    pub fn save_checkpoint(&self, path: &Path) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(40 + self.layout.params * 12);
        bytes.extend_from_slice(Self::CHECKPOINT_MAGIC);
        bytes.extend_from_slice(&(self.shape.hidden as u64).to_le_bytes());
        bytes.extend_from_slice(&(self.shape.buckets as u64).to_le_bytes());
        bytes.extend_from_slice(&self.step.to_le_bytes());
        bytes.extend_from_slice(&(self.epoch as u64).to_le_bytes());
        for x in self.params.iter().chain(&self.m).chain(&self.v) {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        // Written aside and renamed: a kill mid-write leaves the old one.
        let partial = path.with_extension("partial");
        fs::write(&partial, &bytes)?;
        fs::rename(&partial, path)
    }

    pub fn load_checkpoint(path: &Path) -> Result<Trainer, String> {
        let bytes = fs::read(path).map_err(|e| format!("can't read {}: {e}", path.display()))?;
        let not_one = || format!("{} is not a checkpoint of this trainer", path.display());
        let magic = bytes.get(..8).ok_or_else(not_one)?;
        let words = if magic == Self::CHECKPOINT_MAGIC_V1 {
            3
        } else if magic == Self::CHECKPOINT_MAGIC {
            4
        } else {
            return Err(not_one());
        };
        let header = 8 + 8 * words;
        let word = |i: usize| {
            bytes
                .get(8 + 8 * i..16 + 8 * i)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
                .ok_or_else(not_one)
        };
        let shape = if words == 3 {
            Shape {
                hidden: word(0)? as usize,
                buckets: 1,
            }
        } else {
            Shape {
                hidden: word(0)? as usize,
                buckets: word(1)? as usize,
            }
        };
        nnue::check_shape(shape.hidden, shape.buckets)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let (step, epoch) = (word(words - 2)?, word(words - 1)? as usize);
        let l = Layout::of(shape);
        if bytes.len() != header + l.params * 12 {
            return Err(format!(
                "{}: {} bytes, not those of a checkpoint {shape}",
                path.display(),
                bytes.len()
            ));
        }
        let floats: Vec<f32> = bytes[header..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
            .collect();
        Ok(Trainer {
            shape,
            layout: l,
            params: floats[..l.params].to_vec(),
            m: floats[l.params..2 * l.params].to_vec(),
            v: floats[2 * l.params..].to_vec(),
            step,
            epoch,
        })
    }
}

/// The record of the same position mirrored left to right (a-file to
/// h-file).
pub fn mirrored(record: &ChessBoard) -> ChessBoard {
    let mut pieces: ArrayVec<(u8, u8), 32> =
        (*record).into_iter().map(|(p, sq)| (p, sq ^ 7)).collect();
    pieces.sort_unstable_by_key(|&(_, sq)| sq);
    let mut out = ChessBoard {
        occ: 0,
        pcs: [0; 16],
        ksq: record.ksq ^ 7,
        opp_ksq: record.opp_ksq ^ 7,
        ..*record
    };
    for (i, (piece, square)) in pieces.into_iter().enumerate() {
        out.occ |= 1 << square;
        out.pcs[i / 2] |= piece << (4 * (i & 1));
    }
    out
}

#[inline]
fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

/// The learning rate at `progress` (0..1) of the run: cosine from `lr` to
/// `final_lr`.
fn learning_rate(config: &Config, progress: f32) -> f32 {
    let cos = (std::f32::consts::PI * progress.clamp(0.0, 1.0)).cos();
    config.final_lr + 0.5 * (config.lr - config.final_lr) * (1.0 + cos)
}

/// Loads the data, splits off the validation games, trains, and writes a
/// checkpoint and a net each epoch. Returns the last validation loss.
pub fn run(config: &Config) -> Result<f32, String> {
    let mut records = Vec::new();
    for path in &config.data {
        let loaded = data::load(path)?;
        eprintln!("{}", loaded.summary(path));
        if let Some(warning) = &loaded.warning {
            eprintln!("warning: {warning}");
        }
        records.extend(loaded.records);
    }
    // The last records are whole games, kept apart from the training ones.
    let held_out = ((records.len() as f64 * config.validation) as usize).max(1);
    if records.len() <= held_out + config.batch.min(records.len() / 2) {
        return Err(format!(
            "{} positions are too few to train on",
            records.len()
        ));
    }
    let validation = records.split_off(records.len() - held_out);
    let train = records;
    fs::create_dir_all(&config.out).map_err(|e| format!("{}: {e}", config.out.display()))?;
    let (mut trainer, from) = match (&config.resume, &config.init) {
        (Some(path), _) => (Trainer::load_checkpoint(path)?, "--resume"),
        (None, Some(net)) => (
            Trainer::from_network(
                &Network::load(net).map_err(|e| format!("--init {}: {}", net.display(), e.0))?,
            ),
            "--init",
        ),
        (None, None) => (Trainer::new(config.seed, config.shape), ""),
    };
    if trainer.shape() != config.shape {
        return Err(format!(
            "{from} is a net {}, but --hidden {} --output-buckets {} asks for one {}: give the same shape",
            trainer.shape(),
            config.shape.hidden,
            config.shape.buckets,
            config.shape
        ));
    }
    eprintln!(
        "training on {} positions, validating on {}, {}, epochs {}..{}, {} threads",
        train.len(),
        validation.len(),
        trainer.shape(),
        trainer.epoch + 1,
        config.epochs,
        config.threads
    );
    let mut grads = vec![vec![0.0f32; trainer.layout.params]; config.threads];
    let batches = train.len() / config.batch;
    let mut last = trainer.loss(&validation, config.wdl, config.threads);
    eprintln!("epoch {} validation loss {last:.6}", trainer.epoch);
    let mut log = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(config.out.join("log.txt"))
        .map_err(|e| format!("log: {e}"))?;
    let mut batch = Vec::with_capacity(config.batch);
    let last_epoch = config
        .stop_after
        .unwrap_or(config.epochs)
        .min(config.epochs);
    while trainer.epoch < last_epoch {
        let epoch = trainer.epoch + 1;
        // The epoch's order depends only on the seed and the epoch, so a
        // resumed run sees the batches the interrupted one would have.
        let mut order: Vec<u32> = (0..train.len() as u32).collect();
        let mut rng = Rng::with_stream(config.seed, epoch as u64);
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let start = Instant::now();
        let mut shown = Instant::now();
        let mut running = 0.0f32;
        for b in 0..batches {
            let progress = ((epoch - 1) as f32 + b as f32 / batches as f32) / config.epochs as f32;
            let lr = learning_rate(config, progress);
            batch.clear();
            let indices = &order[b * config.batch..(b + 1) * config.batch];
            batch.extend(indices.iter().map(|&i| {
                let record = train[i as usize];
                if config.mirror && rng.next_u64() & 1 == 1 {
                    mirrored(&record)
                } else {
                    record
                }
            }));
            running += trainer.train_batch(&batch, config, lr, &mut grads);
            if shown.elapsed().as_secs_f32() >= 5.0 || b + 1 == batches {
                shown = Instant::now();
                eprintln!(
                    "epoch {epoch} batch {}/{batches} loss {:.6} lr {lr:.6} {:.0} pos/s",
                    b + 1,
                    running / (b + 1) as f32,
                    ((b + 1) * config.batch) as f64 / start.elapsed().as_secs_f64()
                );
            }
        }
        trainer.epoch = epoch;
        last = trainer.loss(&validation, config.wdl, config.threads);
        let line = format!(
            "epoch {epoch} train loss {:.6} validation loss {last:.6} time {:.1} s",
            running / batches.max(1) as f32,
            start.elapsed().as_secs_f32()
        );
        eprintln!("{line}");
        writeln!(log, "{line}").map_err(|e| format!("log: {e}"))?;
        trainer
            .save_checkpoint(&config.out.join("checkpoint.bin"))
            .map_err(|e| format!("checkpoint: {e}"))?;
        fs::write(
            config.out.join(format!("net-{epoch}.nnue")),
            trainer.quantise().to_bytes(),
        )
        .map_err(|e| format!("net: {e}"))?;
    }
    Ok(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::{datagen, trainingdata};

    /// A few self-play games at a tiny node budget, written as a data file.
    fn tiny_data(dir: &Path) -> PathBuf {
        let out = dir.join("tiny.vf");
        let config = datagen::Config {
            out: out.clone(),
            nodes: 300,
            games: Some(24),
            threads: 2,
            ..datagen::Config::default()
        };
        datagen::run(&config).unwrap();
        out
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lasker-train-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn training_lowers_the_loss_and_a_resumed_run_ends_where_a_whole_one_does() {
        let dir = scratch("resume");
        let data = tiny_data(&dir);
        let config = |out: &str, epochs| Config {
            data: vec![data.clone()],
            out: dir.join(out),
            epochs,
            batch: 256,
            lr: 0.01,
            threads: 2,
            validation: 0.1,
            ..Config::default()
        };
        let records = data::load(&data).unwrap().records;
        let before = Trainer::new(1, Shape::default()).loss(&records, 0.3, 2);
        let whole = run(&config("whole", 4)).unwrap();
        let trained = Trainer::load_checkpoint(&dir.join("whole/checkpoint.bin"))
            .unwrap()
            .loss(&records, 0.3, 2);
        assert!(trained < before * 0.9, "loss {trained}, untrained {before}");

        let first_part = Config {
            stop_after: Some(2),
            ..config("parts", 4)
        };
        run(&first_part).unwrap();
        let resumed = Config {
            resume: Some(dir.join("parts/checkpoint.bin")),
            ..config("parts", 4)
        };
        assert_eq!(run(&resumed).unwrap(), whole);
        let a = fs::read(dir.join("whole/net-4.nnue")).unwrap();
        let b = fs::read(dir.join("parts/net-4.nnue")).unwrap();
        assert!(a == b, "the resumed run's net differs");
        // The exported net loads in the engine.
        Network::from_bytes(&a).unwrap();

        // A file that is not a checkpoint is refused, not trusted.
        fs::write(dir.join("bad.bin"), b"not a checkpoint").unwrap();
        assert!(Trainer::load_checkpoint(&dir.join("bad.bin")).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Games and the records `convert` makes of them give the trainer the
    /// same positions, and so the same net.
    #[test]
    fn the_trainer_reads_games_and_records_to_the_same_positions() {
        let dir = scratch("formats");
        let games = tiny_data(&dir);
        let records = dir.join("tiny.bin");
        let args = [
            "--out".to_string(),
            records.display().to_string(),
            games.display().to_string(),
        ];
        data::convert(&args).unwrap();
        let from_games = data::load(&games).unwrap();
        let from_records = data::load(&records).unwrap();
        assert!(from_games.records.len() > 1_000);
        assert!(from_games.records == from_records.records);
        // They are the records datagen wrote before games: each game's
        // quiet positions, scored for the side to move, with its result.
        let (all, _) = data::read_games(&games).unwrap();
        let expected: Vec<ChessBoard> = all
            .iter()
            .flat_map(|g| {
                data::training_positions(g)
                    .map(|(pos, score)| trainingdata::encode(&pos, score, g.result))
            })
            .collect();
        assert!(from_games.records == expected);
        let skipped = from_games.skipped;
        assert!(skipped.noisy > 0 && skipped.in_check > 0, "{skipped:?}");
        assert_eq!(from_records.skipped, data::Skipped::default());

        let config = |data: &Path, out: &str| Config {
            data: vec![data.to_path_buf()],
            out: dir.join(out),
            epochs: 1,
            batch: 256,
            validation: 0.1,
            ..Config::default()
        };
        let loss = run(&config(&games, "from-games")).unwrap();
        assert_eq!(run(&config(&records, "from-records")).unwrap(), loss);
        let net = |out: &str| fs::read(dir.join(out).join("net-1.nnue")).unwrap();
        assert!(net("from-games") == net("from-records"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn mirroring_flips_files() {
        use shakmaty::CastlingMode;
        for fen in crate::bench::bench_fens() {
            let pos = crate::position::Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let record = trainingdata::encode(pos.board(), 17, trainingdata::GameResult::Draw);
            let m = mirrored(&record);
            assert_eq!(mirrored(&m), record);
            let mut board = trainingdata::decode_board(&record);
            board.flip_horizontal();
            assert_eq!(trainingdata::decode_board(&m), board, "{fen}");
            assert_eq!((m.score, m.result), (17, 1));
            assert_eq!(m.ksq, board.king_of(shakmaty::Color::White).unwrap() as u8);
        }
    }

    #[test]
    fn bad_arguments_and_data_are_errors() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert!(Config::from_args(&args("--data a.bin --out o --epochs 3")).is_ok());
        for bad in [
            "--out o",
            "--data a.bin",
            "--data a --out o --wdl 2",
            "--data a --out o --lr x",
            "--data a --out o --resume c.bin --init n.nnue",
            "--data a --out o --hidden 100",
            "--data a --out o --hidden 2048",
            "--data a --out o --output-buckets 3",
            "--data a --out o --output-buckets 0",
        ] {
            assert!(Config::from_args(&args(bad)).is_err(), "{bad}");
        }
        let wide = Config::from_args(&args("--data a --out o --hidden 512 --output-buckets 8"));
        assert_eq!(
            wide.unwrap().shape,
            Shape {
                hidden: 512,
                buckets: 8
            }
        );
        let plain = Config::from_args(&args("--data a --out o")).unwrap();
        assert_eq!(plain.shape, Shape::default());
        assert_eq!((plain.shape.hidden, plain.shape.buckets), (128, 1));
        let dir = scratch("bad");
        let config = Config {
            data: vec![dir.join("missing.bin")],
            out: dir.join("out"),
            ..Config::default()
        };
        assert!(run(&config).is_err());
        fs::write(dir.join("short.bin"), [0u8; 64]).unwrap();
        let config = Config {
            data: vec![dir.join("short.bin")],
            ..config
        };
        assert!(run(&config).unwrap_err().contains("too few"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_net_dequantised_for_fine_tuning_quantises_back_to_itself() {
        let net = nnue::embedded();
        let trainer = Trainer::from_network(&net);
        assert!(trainer.quantise() == *net, "the round trip changed the net");
        // The float net evaluates as the quantised one does, to rounding.
        for fen in crate::bench::bench_fens() {
            let pos =
                crate::position::Position::from_fen(fen, shakmaty::CastlingMode::Standard).unwrap();
            let record = trainingdata::encode(pos.board(), 0, trainingdata::GameResult::Draw);
            let float_cp = trainer.output(&record) * EVAL_SCALE;
            let engine_cp =
                net.evaluate_board(shakmaty::Position::board(pos.board()), pos.turn()) as f32;
            assert!(
                (float_cp - engine_cp).abs() <= 3.0,
                "{fen}: {float_cp} against {engine_cp}"
            );
        }
    }

    /// A 256-wide net with 8 output buckets trains, writes a version 2 net
    /// file and a checkpoint of its shape; `--init` and `--resume` take it
    /// for that shape and refuse it, saying why, for another.
    #[test]
    fn wide_nets_with_buckets_train_and_shapes_must_match() {
        let dir = scratch("wide");
        let data = tiny_data(&dir);
        let shape = Shape {
            hidden: 256,
            buckets: 8,
        };
        let config = |out: &str, shape: Shape| Config {
            data: vec![data.clone()],
            out: dir.join(out),
            epochs: 2,
            stop_after: Some(1),
            batch: 256,
            validation: 0.1,
            shape,
            ..Config::default()
        };
        let before = Trainer::new(1, shape);
        run(&config("wide", shape)).unwrap();
        let net = Network::load(&dir.join("wide/net-1.nnue")).unwrap();
        assert_eq!((net.hidden(), net.buckets(), net.version()), (256, 8, 2));
        let trained = Trainer::load_checkpoint(&dir.join("wide/checkpoint.bin")).unwrap();
        assert_eq!(trained.shape(), shape);
        assert!(trained.quantise() == net);
        // The positions' buckets trained: output weights of more than one
        // bucket moved.
        let l = Layout::of(shape);
        let moved = (0..8)
            .filter(|b| {
                let head = l.w2 + b * 512..l.w2 + (b + 1) * 512;
                trained.params[head.clone()] != before.params[head]
            })
            .count();
        assert!(moved >= 3, "{moved} heads trained");

        let init = |out: &str, shape| Config {
            init: Some(dir.join("wide/net-1.nnue")),
            ..config(out, shape)
        };
        run(&init("again", shape)).unwrap();
        let refused = run(&init("narrow", Shape::default())).unwrap_err();
        assert!(
            refused.contains("--init is a net 256 wide with 8 output buckets")
                && refused.contains("one 128 wide with 1 output bucket"),
            "{refused}"
        );
        let resume = |shape| Config {
            resume: Some(dir.join("wide/checkpoint.bin")),
            stop_after: None,
            ..config("wide", shape)
        };
        let refused = run(&resume(Shape::default())).unwrap_err();
        assert!(refused.contains("--resume is a net 256 wide"), "{refused}");
        run(&resume(shape)).unwrap();
        assert_eq!(
            Trainer::load_checkpoint(&dir.join("wide/checkpoint.bin"))
                .unwrap()
                .epoch,
            2
        );
        // Net 3 can't start an 8-bucket net.
        let from_net_3 = Config {
            init: Some(PathBuf::from("nets/default.nnue")),
            ..config("from-net-3", shape)
        };
        let refused = run(&from_net_3).unwrap_err();
        assert!(
            refused.contains("128 wide with 1 output bucket"),
            "{refused}"
        );

        // A checkpoint of the version before shapes (LKTRAIN1: width, step,
        // epoch) loads as 128 wide with one output.
        let narrow = Trainer::new(3, Shape::default());
        narrow.save_checkpoint(&dir.join("v2.bin")).unwrap();
        let v2 = fs::read(dir.join("v2.bin")).unwrap();
        let mut v1 = b"LKTRAIN1".to_vec();
        v1.extend_from_slice(&v2[8..16]); // the width
        v1.extend_from_slice(&v2[24..]); // step, epoch and the floats
        fs::write(dir.join("v1.bin"), &v1).unwrap();
        let loaded = Trainer::load_checkpoint(&dir.join("v1.bin")).unwrap();
        assert_eq!(loaded.shape(), Shape::default());
        assert!(loaded.params == narrow.params);
        // Cut short, it is refused.
        fs::write(dir.join("cut.bin"), &v1[..v1.len() - 4]).unwrap();
        assert!(Trainer::load_checkpoint(&dir.join("cut.bin")).is_err());
        fs::write(dir.join("cut.bin"), &v1[..20]).unwrap();
        assert!(Trainer::load_checkpoint(&dir.join("cut.bin")).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn init_from_a_file_that_is_not_a_net_is_an_error() {
        let dir = scratch("init");
        let data = tiny_data(&dir);
        fs::write(dir.join("bad.nnue"), b"LKNN and nothing else").unwrap();
        let config = Config {
            data: vec![data],
            out: dir.join("out"),
            init: Some(dir.join("bad.nnue")),
            epochs: 1,
            batch: 256,
            validation: 0.1,
            ..Config::default()
        };
        assert!(run(&config).unwrap_err().contains("--init"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
