//! The evaluation network (NNUE): `(768 x I -> W) x 2 perspectives -> N`
//! with SCReLU, trained only on Lasker's own games (`learn::train`;
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
/// where it is one the trainer makes (128, 256, 512, 1024), and to 0 for
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

/// The net built into the binary, so that a fresh clone plays at full
/// strength with no download (docs/evaluation.md says how it was made).
const EMBEDDED: &[u8] = include_bytes!("../../nets/default.nnue");

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

/// The net file: a header of little-endian u32 values — the magic `LKNN`,
/// the format version, inputs, hidden width, outputs, QA, QB, SCALE and,
/// from version 3, the number of input buckets — then the feature weights
/// (`inputs * hidden` i16, row by input), the feature biases (`hidden`
/// i16), the output weights (`2 * hidden` i16 per output) and the output
/// biases (one i32 per output), and last an FNV-1a 64-bit checksum of
/// everything before it.
///
/// Version 1 (nets 1 to 3) is 128 wide with one output. Version 2 has the
/// same layout with any width `check_shape` allows and 1 or 8 outputs, the
/// output buckets chosen by piece count (`output_bucket`). Version 3 adds
/// the ninth word, the input buckets (`features`), and `inputs` is 768
/// times it. Each net is written in the oldest version that holds its
/// shape, so that older builds load what they can run.
const MAGIC: u32 = u32::from_le_bytes(*b"LKNN");
const HEADER_NAMES: [&str; 9] = [
    "magic",
    "version",
    "inputs",
    "hidden",
    "outputs",
    "QA",
    "QB",
    "SCALE",
    "input buckets",
];

/// The header's length in words in a file of this version.
fn header_words(version: u32) -> usize {
    if version >= 3 { 9 } else { 8 }
}

/// The size of a net file of this shape.
pub fn file_bytes(shape: Shape) -> usize {
    let (h, n) = (shape.hidden, shape.output_buckets);
    header_words(version_of(shape)) * 4 + (shape.inputs() * h + h + n * 2 * h) * 2 + n * 4 + 8
}

/// The file version a net of this shape is written in.
fn version_of(shape: Shape) -> u32 {
    if shape.input_buckets.count() > 1 {
        3
    } else if shape.hidden == DEFAULT_HIDDEN && shape.output_buckets == 1 {
        1
    } else {
        2
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
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

    /// The file's format version: the oldest that holds the net's shape.
    pub fn version(&self) -> u32 {
        version_of(self.shape)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_bytes_as(self.version())
    }

    /// The file in a given format version (tests: a version 2 file of
    /// version 1's shape).
    fn to_bytes_as(&self, version: u32) -> Vec<u8> {
        let shape = self.shape;
        let mut out = Vec::with_capacity(file_bytes(shape) + 4);
        let header = [
            MAGIC,
            version,
            shape.inputs() as u32,
            shape.hidden as u32,
            shape.output_buckets as u32,
            QA as u32,
            QB as u32,
            SCALE as u32,
            shape.input_buckets.count() as u32,
        ];
        for v in &header[..header_words(version)] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for w in self
            .feature_weights
            .iter()
            .chain(&self.feature_bias)
            .chain(&self.output_weights)
        {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.output_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        let checksum = fnv1a(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads a net file, refusing one of another architecture, size or
    /// checksum with a message that says which.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if bytes.len() < 8 * 4 {
            return Err(NetError(format!(
                "not a Lasker net: {} bytes, too short for the header",
                bytes.len()
            )));
        }
        let word = |i: usize| u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().expect("4"));
        if word(0) != MAGIC {
            return Err(NetError("not a Lasker net (no LKNN magic)".into()));
        }
        let version = word(1);
        if !(1..=3).contains(&version) {
            return Err(NetError(format!(
                "net format version {version}: this build reads versions 1 to 3"
            )));
        }
        let words = header_words(version);
        if bytes.len() < words * 4 {
            return Err(NetError(format!(
                "not a Lasker net: {} bytes, too short for a version {version} header",
                bytes.len()
            )));
        }
        let input_buckets = if version >= 3 {
            let count = word(8) as usize;
            InputBuckets::new(count).ok_or_else(|| {
                NetError(format!(
                    "net has {count} input buckets; this build takes {:?}",
                    features::INPUT_BUCKET_CHOICES
                ))
            })?
        } else {
            InputBuckets::NONE
        };
        let (hidden, buckets) = (word(3) as usize, word(4) as usize);
        // What this build needs for each header word; the width and the
        // outputs are free from version 2 on (within `check_shape`).
        let needed = match version {
            1 => [DEFAULT_HIDDEN as u32, 1],
            _ => [word(3), word(4)],
        };
        let expected = [
            MAGIC,
            version,
            input_buckets.inputs() as u32,
            needed[0],
            needed[1],
            QA as u32,
            QB as u32,
            SCALE as u32,
            input_buckets.count() as u32,
        ];
        for (i, (&expected, name)) in expected[..words].iter().zip(HEADER_NAMES).enumerate() {
            let found = word(i);
            if found != expected {
                return Err(NetError(format!(
                    "net {name} is {found}, this build needs {expected} (file version {version})"
                )));
            }
        }
        check_shape(hidden, buckets)?;
        let shape = Shape {
            input_buckets,
            hidden,
            output_buckets: buckets,
        };
        // A shape written in a newer version than needed is still read
        // (tests write version 2 files of version 1's shape).
        let size = file_bytes(shape) - header_words(version_of(shape)) * 4 + words * 4;
        if bytes.len() != size {
            return Err(NetError(format!(
                "net file is {} bytes, expected {size} for a net {shape} (truncated or padded)",
                bytes.len()
            )));
        }
        let (body, tail) = bytes.split_at(size - 8);
        let stored = u64::from_le_bytes(tail.try_into().expect("8 bytes"));
        if fnv1a(body) != stored {
            return Err(NetError("net checksum does not match: file corrupt".into()));
        }
        let (weights, biases) = body[words * 4..].split_at(body.len() - words * 4 - buckets * 4);
        let mut values = weights
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| values.by_ref().take(n).collect::<Vec<i16>>();
        let feature_weights = take(shape.inputs() * hidden);
        let feature_bias = take(hidden);
        let output_weights = take(buckets * 2 * hidden);
        let output_bias = biases
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        Network::from_parts(
            shape,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        )
    }

    pub fn load(path: &std::path::Path) -> Result<Network, NetError> {
        let bytes = std::fs::read(path)
            .map_err(|e| NetError(format!("can't read {}: {e}", path.display())))?;
        Network::from_bytes(&bytes).map_err(|e| NetError(format!("{}: {e}", path.display())))
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
mod tests {
    use super::*;
    use crate::learn::train::Trainer;
    use crate::position::Position;
    use shakmaty::{CastlingMode, Position as _};

    /// A net with random weights: every input matters.
    fn random_net(seed: u64, hidden: usize, buckets: usize) -> Network {
        random_shaped(seed, 1, hidden, buckets)
    }

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// A net of any shape with random weights.
    fn random_shaped(seed: u64, input_buckets: usize, hidden: usize, outputs: usize) -> Network {
        let shape = Shape {
            input_buckets: InputBuckets::new(input_buckets).unwrap(),
            hidden,
            output_buckets: outputs,
        };
        Trainer::new(seed, shape).quantise()
    }

    /// Random games from positions rich in castling, en passant, captures,
    /// promotions and king walks, with nets of several widths and every
    /// count of input and output buckets; after each move (and some null
    /// moves and takebacks) the incremental accumulators equal a refresh
    /// from the board, with kings crossing buckets and halves of the board
    /// (the Finny table's rebuilds) many times.
    #[test]
    fn incremental_accumulators_equal_a_refresh() {
        let starts = [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                CastlingMode::Standard,
            ),
            (
                "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
                CastlingMode::Standard,
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            // Kings with room to walk.
            (
                "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
                CastlingMode::Standard,
            ),
            // Chess960: king and rooks on other files.
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                CastlingMode::Chess960,
            ),
        ];
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let (mut castles, mut en_passant, mut promotions, mut nulls) = (0, 0, 0, 0);
        let mut rebuilds = 0;
        for (inputs, hidden, buckets, games) in [
            (1, 128, 1, 20),
            (1, 256, 8, 8),
            (1, 512, 8, 4),
            (1, 1024, 1, 2),
            (1, 208, 8, 2),
            (4, 128, 8, 8),
            (8, 256, 1, 4),
            (16, 256, 8, 8),
            (16, 1024, 8, 2),
            (16, 208, 1, 2),
        ] {
            let net = random_shaped(3, inputs, hidden, buckets);
            let mut checked = 0;
            for (fen, mode) in starts {
                for _ in 0..games {
                    let mut pos = Position::from_fen(fen, mode).unwrap();
                    let mut stack = AccumulatorStack::default();
                    for _ in 0..60 {
                        let moves = pos.board().legal_moves();
                        if moves.is_empty() {
                            break;
                        }
                        let m = moves[(xorshift(&mut rng) % moves.len() as u64) as usize];
                        castles += usize::from(m.is_castle());
                        en_passant += usize::from(m.is_en_passant());
                        promotions += usize::from(m.is_promotion());
                        let mover = pos.turn();
                        let before = net.king_view(pos.board().board(), mover);
                        pos.make(m);
                        if net.king_view(pos.board().board(), mover) != before {
                            rebuilds += 1;
                        }
                        if !pos.in_check() && xorshift(&mut rng).is_multiple_of(6) {
                            pos.make_null();
                            nulls += 1;
                        }
                        // Evaluate only now and then: updates span several plies.
                        if xorshift(&mut rng).is_multiple_of(3) {
                            assert_eq!(
                                stack.current(&net, &pos),
                                net.refresh(pos.board().board()),
                                "{}: {}",
                                net.shape(),
                                pos.fen()
                            );
                            assert_eq!(
                                stack.evaluate(&net, &pos),
                                net.evaluate_board(pos.board().board(), pos.turn())
                            );
                            checked += 1;
                        }
                        if xorshift(&mut rng).is_multiple_of(5) {
                            pos.unmake();
                            assert_eq!(stack.current(&net, &pos), net.refresh(pos.board().board()));
                        }
                    }
                }
            }
            assert!(checked > games * 25, "{}: {checked} checked", net.shape());
        }
        assert!(
            castles > 5 && en_passant > 0 && promotions > 5 && nulls > 20 && rebuilds > 200,
            "{castles} {en_passant} {promotions} {nulls} {rebuilds}"
        );
    }

    /// The Finny table's rebuild of a perspective equals a refresh from the
    /// board, whatever boards its entries were last made from: random
    /// boards of the same king views in turn, each rebuilt from the
    /// previous one's entry.
    #[test]
    fn finny_table_rebuilds_equal_a_refresh() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
            "6k1/8/8/8/8/8/8/QQQQQQK1 w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "4k3/8/8/8/8/8/8/4K2R b K - 0 1",
        ];
        for inputs in [1, 4, 16] {
            let net = random_shaped(13, inputs, 256, 8);
            let mut table = accumulator::FinnyTable::default();
            for round in 0..3 {
                for fen in fens {
                    let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
                    let board = pos.board().board();
                    let expected = net.refresh(board);
                    for (i, perspective) in Color::ALL.into_iter().enumerate() {
                        let mut acc = vec![0; 256];
                        by_width!(256, |W| table.rebuild::<W>(
                            &net,
                            board,
                            perspective,
                            &mut acc
                        ));
                        assert_eq!(
                            acc,
                            expected[i * 256..(i + 1) * 256],
                            "{inputs} input buckets, round {round}: {fen} for {perspective:?}"
                        );
                    }
                }
            }
        }
    }

    /// One stack evaluating with nets of different widths in turn (as after
    /// `EvalFile`, with the stack cleared as the evaluator does) gives each
    /// net's own evaluation.
    #[test]
    fn a_stack_follows_a_change_of_width() {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            CastlingMode::Standard,
        )
        .unwrap();
        let mut stack = AccumulatorStack::default();
        for (hidden, buckets) in [(128, 1), (512, 8), (208, 1), (256, 8), (128, 1)] {
            let net = random_net(7, hidden, buckets);
            stack.clear();
            assert_eq!(
                stack.evaluate(&net, &pos),
                net.evaluate_board(pos.board().board(), pos.turn())
            );
        }
    }

    /// Net 3's evaluations of the bench positions, as the build before
    /// variable widths and output buckets (741f2c9) printed them with
    /// `eval` (net 3 was embedded then; `nets/net3.nnue` keeps it): reading
    /// version 1 files and evaluating them is unchanged.
    #[test]
    fn net_3_evaluates_as_before() {
        const BEFORE: [i32; 42] = [
            -1130, -46, -47, -2, 47, -21, -39, -309, -406, -61, -15, 136, 98, 44, 64, 16, -37, -22,
            190, -16, 317, 142, -94, 124, 10, 95, 391, 92, 91, -179, -16, -130, -69, -253, -120,
            46, -174, -99, 34, 924, 174, 271,
        ];
        let net = Network::from_bytes(include_bytes!("../../nets/net3.nnue")).unwrap();
        assert_eq!(
            (net.hidden(), net.output_buckets(), net.version()),
            (128, 1, 1)
        );
        let fens: Vec<&str> = crate::bench::bench_fens().collect();
        assert_eq!(fens.len(), BEFORE.len());
        for (fen, before) in fens.into_iter().zip(BEFORE) {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            assert_eq!(
                net.evaluate_board(pos.board().board(), pos.turn()),
                before,
                "{fen}"
            );
            let mut stack = AccumulatorStack::default();
            assert_eq!(stack.evaluate(&net, &pos), before, "{fen}");
        }
    }

    /// Every net file kept in `nets/` loads, and the candidate with input
    /// buckets (net 11) is read as such and evaluates incrementally as
    /// from scratch along a game.
    #[test]
    fn every_kept_net_loads() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("nets");
        let mut shapes = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let net = Network::load(&path).unwrap_or_else(|e| panic!("{e}"));
            shapes.push((path.file_name().unwrap().to_owned(), net.shape()));
        }
        assert!(shapes.len() >= 11, "{shapes:?}");
        let net = Network::load(&dir.join("net11-kb4.nnue")).unwrap();
        assert_eq!(net.input_buckets().count(), 4);
        assert_eq!(
            (net.hidden(), net.output_buckets(), net.version()),
            (256, 8, 3)
        );
        let mut pos = Position::default();
        let mut stack = AccumulatorStack::default();
        let mut rng = 0x1234_5678u64;
        for _ in 0..120 {
            let moves = pos.board().legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.make(moves[(xorshift(&mut rng) % moves.len() as u64) as usize]);
            assert_eq!(
                stack.evaluate(&net, &pos),
                net.evaluate_board(pos.board().board(), pos.turn()),
                "{}",
                pos.fen()
            );
        }
    }

    #[test]
    fn output_buckets_go_by_piece_count() {
        let expected = [
            (2, 0),
            (5, 0),
            (6, 1),
            (9, 1),
            (10, 2),
            (17, 3),
            (29, 6),
            (30, 7),
            (32, 7),
        ];
        for (pieces, bucket) in expected {
            assert_eq!(output_bucket(pieces, 8), bucket, "{pieces} pieces");
            assert_eq!(output_bucket(pieces, 1), 0);
        }
        // Out of the range of legal positions, still a bucket of the net.
        assert_eq!(output_bucket(0, 8), 0);
        assert_eq!(output_bucket(64, 8), 7);
    }

    /// An 8-bucket net evaluates each position through the head of its
    /// piece count: as a one-output net made of that head and the same
    /// feature layer does, and not as the nets of the other heads do.
    #[test]
    fn positions_of_different_piece_counts_use_different_heads() {
        let mut net = random_net(11, 256, 8);
        // Heads apart by their biases too (50 cp from one to the next), so
        // that even a bare board tells them apart.
        for (b, bias) in net.output_bias.iter_mut().enumerate() {
            *bias += (b as i32 * 50 - 175) * QA * QB / SCALE;
        }
        let head = |b: usize| {
            Network::from_parts(
                Shape {
                    hidden: 256,
                    ..Shape::default()
                },
                net.feature_weights.clone(),
                net.feature_bias.clone(),
                net.output_weights[b * 512..(b + 1) * 512].to_vec(),
                vec![net.output_bias[b]],
            )
            .unwrap()
        };
        let heads: Vec<Network> = (0..8).map(head).collect();
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", // 32: bucket 7
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", // 32
            "2r3k1/5pp1/p3p2p/1p1nP3/3P4/P4N1P/1q3PP1/3Q1RK1 b - - 0 25", // 20: bucket 4
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",                // 10: bucket 2
            "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",                  // 10
            "4k3/8/8/8/8/8/8/4K2R b K - 0 1",                           // 3: bucket 0
            "6k1/8/8/8/8/8/8/QQQQQQK1 w - - 0 1",                       // 8: bucket 1
        ];
        let mut buckets_seen = Vec::new();
        for fen in fens {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let board = pos.board().board();
            let bucket = net.output_bucket(board.occupied().count() as u32);
            buckets_seen.push(bucket);
            let eval = net.evaluate_board(board, pos.turn());
            assert_eq!(
                eval,
                heads[bucket].evaluate_board(board, pos.turn()),
                "{fen}"
            );
            assert_eq!(AccumulatorStack::default().evaluate(&net, &pos), eval);
            let others = (0..8).filter(|&b| b != bucket);
            let differ = others
                .filter(|&b| heads[b].evaluate_board(board, pos.turn()) != eval)
                .count();
            assert_eq!(differ, 7, "{fen}: only {differ} other heads differ");
        }
        buckets_seen.sort_unstable();
        buckets_seen.dedup();
        assert_eq!(buckets_seen, [0, 1, 2, 4, 7]);
    }

    #[test]
    fn net_files_round_trip_and_bad_ones_are_refused() {
        // Version 1: 128 wide, one output; the size of net 3's file.
        let net = random_net(5, 128, 1);
        let bytes = net.to_bytes();
        assert_eq!(bytes[4..8], 1u32.to_le_bytes());
        assert_eq!(bytes.len(), include_bytes!("../../nets/net3.nnue").len());
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
        // The same net in a version 2 file loads as the same net.
        let v2 = net.to_bytes_as(2);
        assert_eq!(v2[4..8], 2u32.to_le_bytes());
        assert_eq!(Network::from_bytes(&v2).unwrap(), net);

        // Version 2: other widths and 8 outputs.
        for (hidden, buckets) in [(256, 8), (512, 1), (128, 8), (1024, 8), (16, 1)] {
            let wide = random_net(6, hidden, buckets);
            let bytes = wide.to_bytes();
            assert_eq!(bytes[4..8], 2u32.to_le_bytes(), "{hidden} {buckets}");
            assert_eq!(bytes.len(), file_bytes(wide.shape()));
            let loaded = Network::from_bytes(&bytes).unwrap();
            assert_eq!(
                (loaded.hidden(), loaded.output_buckets()),
                (hidden, buckets)
            );
            assert_eq!(loaded, wide);
            assert_eq!(loaded.to_bytes(), bytes);
        }

        // Version 3: input buckets, the count in a ninth header word.
        for (inputs, hidden, buckets) in [(4, 128, 1), (8, 256, 8), (16, 512, 8)] {
            let bucketed = random_shaped(8, inputs, hidden, buckets);
            let bytes = bucketed.to_bytes();
            assert_eq!(bytes[4..8], 3u32.to_le_bytes());
            assert_eq!(bytes[8..12], (768 * inputs as u32).to_le_bytes());
            assert_eq!(bytes[32..36], (inputs as u32).to_le_bytes());
            assert_eq!(bytes.len(), file_bytes(bucketed.shape()));
            let loaded = Network::from_bytes(&bytes).unwrap();
            assert_eq!(loaded, bucketed);
            assert_eq!(loaded.input_buckets().count(), inputs);
        }
        // A version 3 file of one input bucket is the plain net.
        assert_eq!(Network::from_bytes(&net.to_bytes_as(3)).unwrap(), net);
        let v3 = random_shaped(8, 16, 128, 8).to_bytes();
        let refused = |b: &[u8]| Network::from_bytes(b).unwrap_err().0;
        assert!(refused(&bytes[..bytes.len() - 1]).contains("truncated"));
        assert!(refused(&bytes[..10]).contains("too short"));
        let mut corrupt = bytes.clone();
        corrupt[1000] ^= 1;
        assert!(refused(&corrupt).contains("checksum"));
        let with_word = |bytes: &[u8], i: usize, value: u32| {
            let mut b = bytes.to_vec();
            b[i * 4..i * 4 + 4].copy_from_slice(&value.to_le_bytes());
            b
        };
        // A version 1 file must be 128 wide with one output.
        assert!(refused(&with_word(&bytes, 3, 256)).contains("hidden is 256"));
        assert!(refused(&with_word(&bytes, 4, 8)).contains("outputs is 8"));
        assert!(refused(&with_word(&bytes, 1, 4)).contains("version 4"));
        assert!(refused(&with_word(&bytes, 5, 256)).contains("QA is 256"));
        // A version 2 file's shape must be one this build runs.
        for (hidden, buckets, message) in [
            (100, 1, "multiple of 16"),
            (0, 1, "multiple of 16"),
            (2048, 1, "multiple of 16"),
            (u32::MAX, 1, "multiple of 16"),
            (256, 3, "3 output buckets"),
            (256, 0, "0 output buckets"),
            (256, u32::MAX, "output buckets"),
        ] {
            let b = with_word(&with_word(&v2, 3, hidden), 4, buckets);
            assert!(
                refused(&b).contains(message),
                "{hidden} {buckets}: {}",
                refused(&b)
            );
        }
        // A version 3 file's input buckets must be a map this build has,
        // and its inputs 768 times them.
        for (inputs, words, message) in [
            (5, 768 * 5, "5 input buckets"),
            (0, 0, "0 input buckets"),
            (16, 768 * 4, "inputs is 3072"),
            (4, 768 * 4, "truncated"),
        ] {
            let b = with_word(&with_word(&v3, 8, inputs), 2, words);
            assert!(refused(&b).contains(message), "{inputs}: {}", refused(&b));
        }
        assert!(refused(&v3[..34]).contains("too short"));
        // A version 2 header whose shape disagrees with the file's size.
        assert!(refused(&with_word(&v2, 3, 256)).contains("truncated"));
        // An output weight beyond ±127, with a good checksum.
        let mut loud = random_net(5, 256, 8);
        loud.output_weights[1000] = 128;
        assert!(refused(&loud.to_bytes()).contains("±127"));
        assert!(refused(b"GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE").contains("magic"));
        assert!(Network::load(std::path::Path::new("/no/such/net.nnue")).is_err());
        // The embedded net is a valid one, and writing it gives back its
        // file byte for byte (the same layout both ways).
        assert_eq!(embedded().to_bytes(), EMBEDDED);
    }

    #[test]
    fn quantised_output_follows_the_float_net() {
        for (inputs, hidden, buckets) in [(1, 128, 1), (1, 256, 8), (4, 128, 8), (16, 256, 8)] {
            let shape = Shape {
                input_buckets: InputBuckets::new(inputs).unwrap(),
                hidden,
                output_buckets: buckets,
            };
            let mut trainer = Trainer::new(9, shape);
            // A new net's buckets have no share of their own yet (the
            // trainer's factoriser holds the weights): give them one, so
            // that quantising must add the two.
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            for w in &mut trainer.params[..shape.inputs() * hidden] {
                *w += (xorshift(&mut seed) % 1000) as f32 / 10_000.0 - 0.05;
            }
            let net = trainer.quantise();
            let mut errors = Vec::new();
            for fen in crate::bench::bench_fens() {
                let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
                let record = crate::learn::trainingdata::encode(
                    pos.board(),
                    0,
                    crate::learn::trainingdata::GameResult::Draw,
                );
                let float = trainer.output(&record) * SCALE as f32;
                let quantised = net.evaluate_board(pos.board().board(), pos.turn());
                // Rounding each output weight to 1/64 moves a random net's
                // output by about 10 cp at most.
                let error = (float - quantised as f32).abs();
                assert!(
                    error < 16.0 + float.abs() * 0.02,
                    "{shape} {fen}: float {float} quantised {quantised}"
                );
                errors.push(error);
            }
            let mean = errors.iter().sum::<f32>() / errors.len() as f32;
            assert!(mean < 6.0, "{shape}: mean error {mean} cp");
        }
    }
}
