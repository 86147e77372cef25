//! The evaluation network (NNUE): `(768 -> HIDDEN) x 2 perspectives -> 1`
//! with SCReLU, trained only on Lasker's own games (`train`;
//! docs/evaluation.md).
//!
//! Inputs: one per (piece colour relative to the perspective, piece type,
//! square seen from the perspective), 768 in all, at most 32 active. Each
//! perspective sums the feature rows of its active inputs into an
//! accumulator of `HIDDEN` values (kept up to date move by move, see
//! `accumulator`); the output layer reads the side to move's accumulator and
//! then the other side's, squared-clipped (SCReLU).
//!
//! Quantisation: feature weights and biases are scaled by `QA` (255), output
//! weights by `QB` (64), the output bias by `QA * QB`; the result is scaled
//! back to centipawns with `SCALE` (400: the net's float output times 400 is
//! centipawns).

pub mod accumulator;
pub mod describe;
pub mod simd;

use std::fmt;
use std::sync::{Arc, LazyLock};

use shakmaty::{Color, Piece, Square};

pub use accumulator::AccumulatorStack;
pub use describe::describe;

pub const INPUTS: usize = 768;
/// Width of the accumulator of each perspective.
pub const HIDDEN: usize = 128;
pub const QA: i32 = 255;
pub const QB: i32 = 64;
pub const SCALE: i32 = 400;

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

/// The input a piece on a square is, seen from `perspective`: its own
/// pieces first, the board flipped for Black so both see their side moving
/// up the board.
#[inline]
pub fn feature(perspective: Color, piece: Piece, square: Square) -> usize {
    let theirs = usize::from(piece.color != perspective);
    let square = match perspective {
        Color::White => square as usize,
        Color::Black => square as usize ^ 56,
    };
    theirs * 384 + (piece.role as usize - 1) * 64 + square
}

/// A quantised net, as the engine runs it.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// `INPUTS` rows of `HIDDEN` weights, row-major (one row per input).
    pub feature_weights: Vec<i16>,
    pub feature_bias: Vec<i16>,
    /// The side to move's `HIDDEN` weights, then the other side's.
    pub output_weights: Vec<i16>,
    pub output_bias: i32,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Network({INPUTS} -> {HIDDEN}x2 -> 1)")
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

/// The net file: a header of eight little-endian u32 values — the magic
/// `LKNN`, the format version, inputs, hidden width, outputs, QA, QB and
/// SCALE — then the feature weights (`INPUTS * HIDDEN` i16, row by input),
/// the feature biases (`HIDDEN` i16), the output weights (`2 * HIDDEN` i16)
/// and the output bias (one i32), and last an FNV-1a 64-bit checksum of
/// everything before it.
const MAGIC: u32 = u32::from_le_bytes(*b"LKNN");
const VERSION: u32 = 1;
const HEADER: [u32; 8] = [
    MAGIC,
    VERSION,
    INPUTS as u32,
    HIDDEN as u32,
    1,
    QA as u32,
    QB as u32,
    SCALE as u32,
];
const HEADER_NAMES: [&str; 8] = [
    "magic", "version", "inputs", "hidden", "outputs", "QA", "QB", "SCALE",
];
pub const FILE_BYTES: usize =
    HEADER.len() * 4 + (INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN) * 2 + 4 + 8;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Network {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_BYTES);
        for v in HEADER {
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
        out.extend_from_slice(&self.output_bias.to_le_bytes());
        let checksum = fnv1a(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads a net file, refusing one of another architecture, size or
    /// checksum with a message that says which.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if bytes.len() < HEADER.len() * 4 {
            return Err(NetError(format!(
                "not a Lasker net: {} bytes, too short for the header",
                bytes.len()
            )));
        }
        for (i, (&expected, name)) in HEADER.iter().zip(HEADER_NAMES).enumerate() {
            let found = u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
            if found != expected {
                return Err(NetError(if i == 0 {
                    "not a Lasker net (no LKNN magic)".to_string()
                } else {
                    format!("net {name} is {found}, this build needs {expected}")
                }));
            }
        }
        if bytes.len() != FILE_BYTES {
            return Err(NetError(format!(
                "net file is {} bytes, expected {FILE_BYTES} (truncated or padded)",
                bytes.len()
            )));
        }
        let (body, tail) = bytes.split_at(FILE_BYTES - 8);
        let stored = u64::from_le_bytes(tail.try_into().expect("8 bytes"));
        if fnv1a(body) != stored {
            return Err(NetError("net checksum does not match: file corrupt".into()));
        }
        let mut words = body[HEADER.len() * 4..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| words.by_ref().take(n).collect::<Vec<i16>>();
        let feature_weights = take(INPUTS * HIDDEN);
        let feature_bias = take(HIDDEN);
        let output_weights = take(2 * HIDDEN);
        let bias_at = body.len() - 4;
        let output_bias = i32::from_le_bytes(body[bias_at..].try_into().expect("4 bytes"));
        if output_weights.iter().any(|w| w.abs() > 127) {
            return Err(NetError(
                "net output weights exceed ±127 (the SIMD product would overflow)".into(),
            ));
        }
        Ok(Network {
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        })
    }

    pub fn load(path: &std::path::Path) -> Result<Network, NetError> {
        let bytes = std::fs::read(path)
            .map_err(|e| NetError(format!("can't read {}: {e}", path.display())))?;
        Network::from_bytes(&bytes).map_err(|e| NetError(format!("{}: {e}", path.display())))
    }

    /// The feature row of `input`.
    #[inline]
    pub fn row(&self, input: usize) -> &[i16] {
        &self.feature_weights[input * HIDDEN..(input + 1) * HIDDEN]
    }

    /// The output from both accumulators, in centipawns for the side to move.
    #[inline]
    pub fn output(&self, us: &[i16; HIDDEN], them: &[i16; HIDDEN]) -> i32 {
        let (ours, theirs) = self.output_weights.split_at(HIDDEN);
        let sum = simd::screlu_dot(us, ours) + simd::screlu_dot(them, theirs);
        // sum is in QA * QA * QB; one QA goes before the bias is added. In
        // i64: a net file may hold any i32 bias, and bias * SCALE overflows
        // i32. The result fits i32: |sum / QA| < 2^23 (HIDDEN * 2 terms of at
        // most QA * 127), so |(sum / QA + bias) * SCALE / (QA * QB)| <
        // (2^31 + 2^23) * 400 / 16320 < 2^26.
        let scaled = (i64::from(sum / QA) + i64::from(self.output_bias)) * i64::from(SCALE)
            / i64::from(QA * QB);
        scaled as i32
    }

    /// Accumulators of both perspectives computed from nothing.
    pub fn refresh(&self, board: &shakmaty::Board) -> [[i16; HIDDEN]; 2] {
        let mut acc = [[0i16; HIDDEN]; 2];
        for perspective in Color::ALL {
            let a = &mut acc[perspective as usize];
            a.copy_from_slice(&self.feature_bias);
            for (square, piece) in board {
                simd::add_row(a, self.row(feature(perspective, piece, square)));
            }
        }
        acc
    }

    /// The evaluation of `board` for `turn` from scratch (tests and the
    /// `eval` command; the search updates accumulators instead).
    pub fn evaluate_board(&self, board: &shakmaty::Board, turn: Color) -> i32 {
        let acc = self.refresh(board);
        let (us, them) = (&acc[turn as usize], &acc[!turn as usize]);
        self.output(us, them)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::train::Trainer;
    use crate::position::Position;
    use shakmaty::{CastlingMode, Position as _};

    /// A net with random weights: every input matters.
    fn random_net(seed: u64) -> Network {
        Trainer::new(seed).quantise()
    }

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// Random games from positions rich in castling, en passant, captures
    /// and promotions; after each move (and some null moves and takebacks)
    /// the incremental accumulators equal a refresh.
    #[test]
    fn incremental_accumulators_equal_a_refresh() {
        let net = random_net(3);
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
            // Chess960: king and rooks on other files.
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                CastlingMode::Chess960,
            ),
        ];
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let (mut checked, mut castles, mut en_passant, mut promotions, mut nulls) = (0, 0, 0, 0, 0);
        for (fen, mode) in starts {
            for _ in 0..20 {
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
                    pos.make(m);
                    if !pos.in_check() && xorshift(&mut rng).is_multiple_of(6) {
                        pos.make_null();
                        nulls += 1;
                    }
                    // Evaluate only now and then: updates span several plies.
                    if xorshift(&mut rng).is_multiple_of(3) {
                        assert_eq!(
                            stack.current(&net, &pos),
                            net.refresh(pos.board().board()),
                            "{}",
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
        assert!(
            checked > 500 && castles > 5 && en_passant > 0 && promotions > 5 && nulls > 20,
            "{checked} {castles} {en_passant} {promotions} {nulls}"
        );
    }

    #[test]
    fn net_files_round_trip_and_bad_ones_are_refused() {
        let net = random_net(5);
        let bytes = net.to_bytes();
        // Every net of this architecture has the size of the real file.
        assert_eq!(bytes.len(), EMBEDDED.len());
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);

        let refused = |b: &[u8]| Network::from_bytes(b).unwrap_err().0;
        assert!(refused(&bytes[..bytes.len() - 1]).contains("truncated"));
        assert!(refused(&bytes[..10]).contains("too short"));
        let mut corrupt = bytes.clone();
        corrupt[1000] ^= 1;
        assert!(refused(&corrupt).contains("checksum"));
        let mut wider = bytes.clone();
        wider[12..16].copy_from_slice(&256u32.to_le_bytes());
        assert!(refused(&wider).contains("hidden is 256"));
        assert!(refused(b"GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE").contains("magic"));
        assert!(Network::load(std::path::Path::new("/no/such/net.nnue")).is_err());
        // The embedded net is a valid one, and writing it gives back its
        // file byte for byte (the same layout both ways).
        assert_eq!(embedded().to_bytes(), EMBEDDED);
    }

    #[test]
    fn quantised_output_follows_the_float_net() {
        let trainer = Trainer::new(9);
        let net = trainer.quantise();
        for fen in crate::bench::bench_fens() {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let record = crate::learn::trainingdata::encode(
                pos.board(),
                0,
                crate::learn::trainingdata::GameResult::Draw,
            );
            let float = trainer.output(&record) * SCALE as f32;
            let quantised = net.evaluate_board(pos.board().board(), pos.turn());
            assert!(
                (float - quantised as f32).abs() < 8.0 + float.abs() * 0.02,
                "{fen}: float {float} quantised {quantised}"
            );
        }
    }
}
