//! The evaluation network (NNUE): `(768 x I -> W) x 2 perspectives -> N`
//! with SCReLU, trained only on Lasker's own games (`lasker-tools train`;
//! docs/evaluation.md). Its `Shape`: the number of input (king) buckets
//! `I` (1, 4, 8 or 16: `features`), the hidden width `W` (a multiple of 16
//! up to `MAX_HIDDEN`) and the number of output buckets `N` (1 or 8), all
//! the net file's: net 3 is 128 wide with one input and one output bucket.
//!
//! Inputs (`features`): one per (piece colour relative to the perspective,
//! piece type, square seen from the perspective) in each input bucket,
//! the perspective's king square choosing the bucket; at most 32 active.
//! Each perspective sums the feature rows of its active inputs into an
//! accumulator of `W` values (kept up to date move by move, see
//! `accumulator`); the output layer reads the side to move's accumulator and
//! then the other side's, squared-clipped (SCReLU). With 8 output buckets
//! the board's piece count picks one of 8 output layers (`output_bucket`).
//!
//! Quantisation: feature weights and biases are scaled by `QA` (255), output
//! weights by `QB` (64), the output bias by `QA * QB`; the result is scaled
//! back to centipawns with `SCALE` (400: the net's float output times 400 is
//! centipawns).

pub mod accumulator;
pub mod describe;
pub mod features;
mod file;
pub mod simd;

use std::fmt;
use std::sync::{Arc, LazyLock};

use shakmaty::Color;

pub use accumulator::AccumulatorStack;
pub use describe::describe;
pub use features::{InputBuckets, KingView};

/// The widest accumulator a net file may have. The AVX2 dot product's
/// 32-bit lanes hold up to 2,080 values' products (`simd`); 1024 leaves
/// room.
pub const MAX_HIDDEN: usize = 1024;
/// The hidden width of a version 1 file, and the trainer's default.
pub const DEFAULT_HIDDEN: usize = 128;
/// The numbers of output buckets a net may have.
pub const OUTPUT_BUCKETS: [usize; 2] = [1, 8];
pub const QA: i32 = 255;
pub const QB: i32 = 64;
pub const SCALE: i32 = 400;

/// The shape of a net: its input (king) buckets, hidden width and number
/// of output buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub input_buckets: InputBuckets,
    pub hidden: usize,
    pub output_buckets: usize,
}

impl Default for Shape {
    /// Net 3's: 128 wide, one input bucket, one output.
    fn default() -> Self {
        Shape {
            input_buckets: InputBuckets::NONE,
            hidden: DEFAULT_HIDDEN,
            output_buckets: 1,
        }
    }
}

impl Shape {
    /// Inputs per perspective.
    pub fn inputs(&self) -> usize {
        self.input_buckets.inputs()
    }

    /// Whether a net of this shape can be built, and why not.
    pub fn check(&self) -> Result<(), NetError> {
        check_shape(self.hidden, self.output_buckets)
    }
}

impl fmt::Display for Shape {
    /// "128 wide, 1 input bucket, 1 output bucket".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.output_buckets == 1 { "" } else { "s" };
        write!(
            f,
            "{} wide, {}, {} output bucket{s}",
            self.hidden, self.input_buckets, self.output_buckets
        )
    }
}

/// Runs `$body` with the const `$w` set to the net's hidden width `$hidden`
/// where it is one the trainer makes (128, 256, 512, 768, 1024), and to 0 for
/// any other width. Code generic over the width (`Network::lanes`) then
/// knows the width at compile time in the common cases: fixed-length
/// copies and row updates, unrolled (measured: a dynamic width everywhere
/// cost 5% more instructions in `bench`), and still runs any width.
macro_rules! by_width {
    ($hidden:expr, |$w:ident| $body:expr) => {
        match $hidden {
            128 => {
                const $w: usize = 128;
                $body
            }
            256 => {
                const $w: usize = 256;
                $body
            }
            512 => {
                const $w: usize = 512;
                $body
            }
            768 => {
                const $w: usize = 768;
                $body
            }
            1024 => {
                const $w: usize = 1024;
                $body
            }
            _ => {
                const $w: usize = 0;
                $body
            }
        }
    };
}
pub(crate) use by_width;

/// The embedded net's name, in one place: its file is `nets/<name>.nnue`
/// (nets/README.md says how each net was made).
macro_rules! embedded_name {
    () => {
        "net28-512x8"
    };
}

/// The net built into the binary, so that a fresh clone plays at full
/// strength with no download.
const EMBEDDED: &[u8] = include_bytes!(concat!("../../nets/", embedded_name!(), ".nnue"));

/// The embedded net's name: its file in `nets/` is `<name>.nnue`.
pub const EMBEDDED_NAME: &str = embedded_name!();

/// The embedded net file's checksum (its last eight bytes: FNV-1a 64 of
/// the rest, `file`), which `lasker --version` shows.
pub fn embedded_checksum() -> u64 {
    let tail: [u8; 8] = EMBEDDED[EMBEDDED.len() - 8..]
        .try_into()
        .expect("eight bytes");
    u64::from_le_bytes(tail)
}

static EMBEDDED_NET: LazyLock<Arc<Network>> = LazyLock::new(|| {
    Arc::new(Network::from_bytes(EMBEDDED).expect("the embedded net matches this build"))
});

/// The embedded net.
pub fn embedded() -> Arc<Network> {
    Arc::clone(&EMBEDDED_NET)
}

/// The output bucket of a board with `pieces` pieces (kings included) in a
/// net of `buckets` outputs: with 8, `(pieces - 2) / 4`, so 2 to 5 pieces
/// are bucket 0 and 30 to 32 bucket 7; with 1, always 0. The engine and
/// the trainer both choose by it.
#[inline]
pub fn output_bucket(pieces: u32, buckets: usize) -> usize {
    (pieces.saturating_sub(2) as usize * buckets / 32).min(buckets - 1)
}

/// Whether a net of this hidden width and number of output buckets can be
/// built, and why not.
pub fn check_shape(hidden: usize, buckets: usize) -> Result<(), NetError> {
    if hidden == 0 || !hidden.is_multiple_of(16) || hidden > MAX_HIDDEN {
        return Err(NetError(format!(
            "net hidden width {hidden} is not a multiple of 16 from 16 to {MAX_HIDDEN}"
        )));
    }
    if !OUTPUT_BUCKETS.contains(&buckets) {
        return Err(NetError(format!(
            "net has {buckets} output buckets; this build takes 1 or 8"
        )));
    }
    Ok(())
}

/// A quantised net, as the engine runs it.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    shape: Shape,
    /// `shape.inputs()` rows of `hidden` weights, row-major (one row per
    /// input).
    pub feature_weights: Vec<i16>,
    /// `hidden` values.
    pub feature_bias: Vec<i16>,
    /// Output bucket by output bucket, `2 * hidden` each: the side to
    /// move's weights, then the other side's.
    pub output_weights: Vec<i16>,
    /// One per output bucket.
    pub output_bias: Vec<i32>,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Network({})", self.shape)
    }
}

/// Why a net file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetError(pub String);

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Network {
    /// A net from its weights, refused where the shape is not one this
    /// build runs, the lengths don't fit it, or an output weight lies
    /// beyond ±127 (the SIMD product would overflow).
    pub fn from_parts(
        shape: Shape,
        feature_weights: Vec<i16>,
        feature_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: Vec<i32>,
    ) -> Result<Network, NetError> {
        shape.check()?;
        let (hidden, buckets) = (shape.hidden, shape.output_buckets);
        let lengths = [
            feature_weights.len(),
            feature_bias.len(),
            output_weights.len(),
            output_bias.len(),
        ];
        if lengths
            != [
                shape.inputs() * hidden,
                hidden,
                buckets * 2 * hidden,
                buckets,
            ]
        {
            return Err(NetError(format!(
                "weights of lengths {lengths:?} don't make a net {shape}"
            )));
        }
        if output_weights.iter().any(|w| w.abs() > 127) {
            return Err(NetError(
                "net output weights exceed ±127 (the SIMD product would overflow)".into(),
            ));
        }
        Ok(Network {
            shape,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        })
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The width of each perspective's accumulator.
    #[inline]
    pub fn hidden(&self) -> usize {
        self.shape.hidden
    }

    /// The number of output buckets (1 or 8).
    #[inline]
    pub fn output_buckets(&self) -> usize {
        self.shape.output_buckets
    }

    /// The input (king) buckets.
    #[inline]
    pub fn input_buckets(&self) -> InputBuckets {
        self.shape.input_buckets
    }

    /// The hidden width in code generic over it (`by_width!`): `W`, known
    /// at compile time, where it is not 0; else the net's.
    #[inline(always)]
    pub(crate) fn lanes<const W: usize>(&self) -> usize {
        if W == 0 {
            self.shape.hidden
        } else {
            debug_assert_eq!(W, self.shape.hidden);
            W
        }
    }

    /// The feature row of `input`.
    #[inline]
    pub fn row(&self, input: usize) -> &[i16] {
        self.row_lanes::<0>(input)
    }

    #[inline(always)]
    pub(crate) fn row_lanes<const W: usize>(&self, input: usize) -> &[i16] {
        let w = self.lanes::<W>();
        &self.feature_weights[input * w..input * w + w]
    }

    /// The output bucket of a board with `pieces` pieces.
    #[inline]
    pub fn output_bucket(&self, pieces: u32) -> usize {
        output_bucket(pieces, self.shape.output_buckets)
    }

    /// The output of `bucket` from both accumulators (`hidden` values
    /// each), in centipawns for the side to move.
    #[inline]
    pub fn output(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        self.output_lanes::<0>(us, them, bucket)
    }

    #[inline(always)]
    pub(crate) fn output_lanes<const W: usize>(
        &self,
        us: &[i16],
        them: &[i16],
        bucket: usize,
    ) -> i32 {
        let h = self.lanes::<W>();
        let (us, them) = (&us[..h], &them[..h]);
        let weights = &self.output_weights[bucket * 2 * h..(bucket + 1) * 2 * h];
        let (ours, theirs) = weights.split_at(h);
        let sum = simd::screlu_dot(us, ours) + simd::screlu_dot(them, theirs);
        // sum is in QA * QA * QB; one QA goes before the bias is added. In
        // i64: a sum of 2 * 1024 terms of up to QA² * 127 and any i32 bias
        // times SCALE overflow i32. The result fits i32: |sum / QA| < 2^27
        // (2 * MAX_HIDDEN terms of at most QA * 127), so |(sum / QA + bias)
        // * SCALE / (QA * QB)| < (2^31 + 2^27) * 400 / 16320 < 2^26. For
        // version 1's width the sum fits i32 and this is exactly the old
        // i32 arithmetic (integer division truncates the same way).
        let scaled = (sum / i64::from(QA) + i64::from(self.output_bias[bucket])) * i64::from(SCALE)
            / i64::from(QA * QB);
        scaled as i32
    }

    /// What `perspective`'s king square decides about its inputs on
    /// `board` (a board without that king, as `eval`'s worth of a piece
    /// never makes, reads as a king on a1).
    #[inline]
    pub fn king_view(&self, board: &shakmaty::Board, perspective: Color) -> KingView {
        if !self.shape.input_buckets.mirrors() {
            return KingView::PLAIN;
        }
        let king = board.king_of(perspective).unwrap_or(shakmaty::Square::A1);
        self.shape.input_buckets.view(perspective, king)
    }

    /// Fills `acc` (`2 * hidden` values: White's perspective, then
    /// Black's) from the board.
    pub fn refresh_into(&self, board: &shakmaty::Board, acc: &mut [i16]) {
        by_width!(self.shape.hidden, |W| self.refresh_lanes::<W>(board, acc))
    }

    pub(crate) fn refresh_lanes<const W: usize>(&self, board: &shakmaty::Board, acc: &mut [i16]) {
        let w = self.lanes::<W>();
        let (white, black) = acc[..2 * w].split_at_mut(w);
        for (perspective, a) in [(Color::White, white), (Color::Black, black)] {
            let view = self.king_view(board, perspective);
            a.copy_from_slice(&self.feature_bias[..w]);
            for (square, piece) in board {
                simd::add_row(
                    a,
                    self.row_lanes::<W>(view.index(perspective, piece, square)),
                );
            }
        }
    }

    /// Both perspectives' accumulators computed from nothing: White's
    /// `hidden` values, then Black's.
    pub fn refresh(&self, board: &shakmaty::Board) -> Vec<i16> {
        let mut acc = vec![0; 2 * self.shape.hidden];
        self.refresh_into(board, &mut acc);
        acc
    }

    /// The evaluation of `board` for `turn` from scratch (tests and the
    /// `eval` command; the search updates accumulators instead).
    pub fn evaluate_board(&self, board: &shakmaty::Board, turn: Color) -> i32 {
        let acc = self.refresh(board);
        let (white, black) = acc.split_at(self.shape.hidden);
        let (us, them) = match turn {
            Color::White => (white, black),
            Color::Black => (black, white),
        };
        self.output(
            us,
            them,
            self.output_bucket(board.occupied().count() as u32),
        )
    }
}

#[cfg(test)]
mod tests;
