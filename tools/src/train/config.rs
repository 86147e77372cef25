//! `lasker-tools train`'s arguments.

use std::path::PathBuf;

use lasker::nnue::{self, InputBuckets, Shape};

use super::model::Objective;

#[derive(Clone, Debug)]
pub struct Config {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    pub final_lr: f32,
    pub wdl: f32,
    /// Centipawns per unit of the sigmoid's input (`Objective::scale`).
    pub scale: f32,
    /// Show each position mirrored left to right in half the epochs' draws:
    /// the evaluation is (all but castling, which the net doesn't see)
    /// symmetric, so this doubles what little data there is. A net whose
    /// input buckets mirror the board sees a position and its mirror image
    /// as the same inputs: there it changes nothing and is skipped.
    pub mirror: bool,
    pub weight_decay: f32,
    pub threads: usize,
    /// How much of the data (its last records) is held out: a share
    /// under 0.5, or a whole number of positions from 1 up (the same
    /// held-out positions whatever data is added before them).
    pub validation: f64,
    pub seed: u64,
    pub resume: Option<PathBuf>,
    /// Start from this quantised net's weights (with fresh optimiser
    /// moments) instead of random ones: fine-tuning a net whose checkpoint
    /// or data is gone, on new data.
    pub init: Option<PathBuf>,
    /// Start from this quantised net grown to `shape` (wider, or given
    /// input buckets: `Trainer::grown_from`), computing what it computes.
    pub grow: Option<PathBuf>,
    /// Stop after this epoch (the schedule still spans `epochs`): a long
    /// run in parts, each resumed from the last checkpoint.
    pub stop_after: Option<usize>,
    /// The net's input buckets, hidden width and output buckets
    /// (`--input-buckets`, `--hidden`, `--output-buckets`).
    pub shape: Shape,
    /// Keep every record of a position seen more than once (`--duplicates
    /// keep`) instead of its first alone: openings repeat across games, and
    /// a position learned many times weighs as many positions.
    pub keep_duplicates: bool,
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
            scale: nnue::SCALE as f32,
            mirror: true,
            weight_decay: 0.01,
            threads: 2,
            validation: 0.02,
            seed: 1,
            resume: None,
            init: None,
            grow: None,
            stop_after: None,
            shape: Shape::default(),
            keep_duplicates: false,
        }
    }
}

pub const USAGE: &str =
    "usage: lasker-tools train --data FILE [--data FILE ...] --out DIR [--epochs N]
                    [--batch N] [--lr X] [--final-lr X] [--wdl X] [--scale CP]
                    [--mirror on|off]
                    [--weight-decay X]
                    [--threads N] [--validation SHARE|POSITIONS] [--seed S]
                    [--resume DIR/checkpoint.bin]
                    [--init NET.nnue | --grow NET.nnue] [--stop-after EPOCH]
                    [--input-buckets 1|4|8|16]
                    [--hidden 128] [--output-buckets 1|8] [--duplicates drop|keep]
  Trains the net on FILE.vf (games), FILE.bin (32-byte records) or FILE.pgn (games with engine
  scores), filtered as they load (no positions in check, after captures or promotions, or with
  mate scores); writes DIR/checkpoint.bin and DIR/net-<epoch>.nnue each epoch.
  --init starts from a net's weights instead of random ones (fine-tuning); its shape must be
  the one --input-buckets, --hidden and --output-buckets give (1, 128 and 1 by default), as
  must --resume's. --grow starts from a smaller net grown to that shape: wider (new columns
  start at zero output weights) or with input buckets from a net without (its rows shared by
  every bucket); the output buckets stay.
  --input-buckets: copies of the inputs chosen by each side's king square, the board mirrored
  to put the king on files a-d; --hidden: a multiple of 16 up to 1024; --output-buckets 8 gives
  each piece count band (2-5 pieces, 6-9, ..., 30-32) its own output layer.
  --wdl: the game's result's share of the target (default 0: the search score alone);
  --scale: the centipawns a score is divided by before the sigmoid that reads it, and the
  output alike (default 400; the net's centipawns stay the search's whatever the scale).
  --validation: the data's last positions held out, as a share under 0.5 (default 0.02) or a
  count (from 1 up: the same positions whatever files are added before the last one).
  --duplicates: a position (as the net sees it) recorded more than once is learned from its
  first record only (drop, the default), or from every one (keep).";

impl Config {
    /// What the net learns to predict (`--wdl`, `--scale`).
    pub fn objective(&self) -> Objective {
        Objective {
            wdl: self.wdl,
            scale: self.scale,
        }
    }

    /// How many of `records` positions are held out for validation.
    pub fn held_out(&self, records: usize) -> usize {
        if self.validation >= 1.0 {
            self.validation as usize
        } else {
            ((records as f64 * self.validation) as usize).max(1)
        }
    }

    pub fn from_args(args: &[String]) -> Result<Config, String> {
        let mut c = Config::default();
        let mut out = None;
        let mut input_buckets = 1;
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
                "--scale" => c.scale = num(flag, value)?,
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
                "--grow" => c.grow = Some(PathBuf::from(value)),
                "--stop-after" => c.stop_after = Some(num(flag, value)?),
                "--input-buckets" => input_buckets = num(flag, value)?,
                "--hidden" => c.shape.hidden = num(flag, value)?,
                "--output-buckets" => c.shape.output_buckets = num(flag, value)?,
                "--duplicates" => {
                    c.keep_duplicates = match value.as_str() {
                        "keep" => true,
                        "drop" => false,
                        _ => return Err(format!("--duplicates takes drop or keep, not '{value}'")),
                    }
                }
                _ => return Err(format!("unknown flag '{flag}'\n{USAGE}")),
            }
        }
        c.out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
        if c.data.is_empty() {
            return Err(format!("--data is required\n{USAGE}"));
        }
        let starts = [c.resume.is_some(), c.init.is_some(), c.grow.is_some()];
        if starts.iter().filter(|&&s| s).count() > 1 {
            return Err(
                "--resume, --init and --grow exclude each other: each gives the starting weights"
                    .into(),
            );
        }
        if c.epochs == 0 || c.batch == 0 || !(1..=256).contains(&c.threads) {
            return Err("--epochs and --batch must be positive, --threads in 1..256".into());
        }
        let count = c.validation >= 1.0 && c.validation.fract() == 0.0;
        if !(0.0..=1.0).contains(&c.wdl) || !((0.0..0.5).contains(&c.validation) || count) {
            return Err(
                "--wdl must be in 0..1 and --validation a share in 0..0.5 or a count of positions"
                    .into(),
            );
        }
        if !(c.scale.is_finite() && c.scale >= 1.0) {
            return Err(format!(
                "--scale must be a number of centipawns from 1 up, not {}",
                c.scale
            ));
        }
        c.shape.input_buckets = InputBuckets::new(input_buckets).ok_or_else(|| {
            format!(
                "--input-buckets {input_buckets}: this build has {:?}",
                nnue::features::INPUT_BUCKET_CHOICES
            )
        })?;
        c.shape.check().map_err(|e| {
            format!(
                "--hidden {} --output-buckets {}: {e}",
                c.shape.hidden, c.shape.output_buckets
            )
        })?;
        Ok(c)
    }
}
