//! Training data: positions with a search score and the game's result, in
//! the `bulletformat` crate's 32-byte `ChessBoard` records, the format the
//! chess-programming ecosystem's trainers (bullet among them) read.
//!
//! A record is written from the side to move's point of view: the board is
//! flipped vertically and its colours swapped when Black is to move, so the
//! side to move is always "white, moving up". Little-endian, 32 bytes:
//!
//! | bytes | field | meaning |
//! |---|---|---|
//! | 0..8 | `occ` | occupied squares (a1 = bit 0), side-to-move relative |
//! | 8..24 | `pcs` | a nibble per occupied square in square order: bit 3 = the piece is the opponent's, bits 0..2 = pawn, knight, bishop, rook, queen, king |
//! | 24..26 | `score` | the search score in centipawns for the side to move (i16) |
//! | 26 | `result` | the game's result for the side to move: 0 loss, 1 draw, 2 win |
//! | 27 | `ksq` | the side to move's king square |
//! | 28 | `opp_ksq` | the opponent's king square, flipped to its own view |
//! | 29..32 | `extra` | unused, zero |
//!
//! A file is records back to back with no header, so files concatenate.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

pub use bulletformat::ChessBoard;
use shakmaty::{Board, Chess, Color, Position as _, Role};

pub const RECORD_BYTES: usize = 32;

/// How a game ended, for White.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    Draw,
    BlackWins,
}

impl GameResult {
    /// 1.0, 0.5 or 0.0, the way `ChessBoard::from_raw` takes it.
    fn white_score(self) -> f32 {
        match self {
            GameResult::WhiteWins => 1.0,
            GameResult::Draw => 0.5,
            GameResult::BlackWins => 0.0,
        }
    }

    pub fn winner(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

/// The record of `pos`, whose search gave `score` (centipawns for the side
/// to move), in a game that ended with `result`.
pub fn encode(pos: &Chess, score: i16, result: GameResult) -> ChessBoard {
    let b = pos.board();
    // White, Black, then pawn .. king: the order `from_raw` expects.
    let bbs = [
        b.white(),
        b.black(),
        b.pawns(),
        b.knights(),
        b.bishops(),
        b.rooks(),
        b.queens(),
        b.kings(),
    ]
    .map(u64::from);
    let stm = pos.turn() as usize ^ 1; // shakmaty: White is 1; from_raw: White is 0
    let white_score = if pos.turn() == Color::White {
        score
    } else {
        score.saturating_neg()
    };
    ChessBoard::from_raw(bbs, stm, white_score, result.white_score())
        .expect("every occupied square of a legal board holds a piece")
}

/// The board a record describes, from its side to move's view: White is the
/// side to move. (The true colours are not stored, nor castling rights or en
/// passant: the net sees neither.)
pub fn decode_board(record: &ChessBoard) -> Board {
    let mut board = Board::empty();
    for (piece, square) in *record {
        let role = Role::ALL[usize::from(piece & 7)];
        let color = if piece & 8 == 0 {
            Color::White
        } else {
            Color::Black
        };
        board.set_piece_at(shakmaty::Square::new(u32::from(square)), role.of(color));
    }
    board
}

pub fn to_bytes(record: &ChessBoard) -> [u8; RECORD_BYTES] {
    let mut out = [0u8; RECORD_BYTES];
    out[0..8].copy_from_slice(&record.occ.to_le_bytes());
    out[8..24].copy_from_slice(&record.pcs);
    out[24..26].copy_from_slice(&record.score.to_le_bytes());
    out[26] = record.result;
    out[27] = record.ksq;
    out[28] = record.opp_ksq;
    out[29..32].copy_from_slice(&record.extra);
    out
}

pub fn from_bytes(bytes: &[u8; RECORD_BYTES]) -> ChessBoard {
    let mut pcs = [0u8; 16];
    pcs.copy_from_slice(&bytes[8..24]);
    ChessBoard {
        occ: u64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes")),
        pcs,
        score: i16::from_le_bytes([bytes[24], bytes[25]]),
        result: bytes[26],
        ksq: bytes[27],
        opp_ksq: bytes[28],
        extra: [bytes[29], bytes[30], bytes[31]],
    }
}

/// What a data file held.
pub struct DataFile {
    pub records: Vec<ChessBoard>,
    /// Bytes at the end that did not make a whole record (a write cut off
    /// by Ctrl-C or a full disk); they are ignored.
    pub trailing_bytes: usize,
}

/// Reads every whole record of a file. A file that ends in a partial
/// record is read up to it, with a warning in the log; a record that can't
/// be a chess position (more than 32 pieces, a result over 2) is an error.
pub fn read_file(path: &Path) -> io::Result<DataFile> {
    let file = File::open(path)?;
    let len = file.metadata()?.len() as usize;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut records = Vec::with_capacity(len / RECORD_BYTES);
    let mut bytes = [0u8; RECORD_BYTES];
    for index in 0..len / RECORD_BYTES {
        reader.read_exact(&mut bytes)?;
        let record = from_bytes(&bytes);
        if record.occ.count_ones() > 32 || record.result > 2 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: record {index} is not a chess position (not a bulletformat ChessBoard file?)",
                    path.display()
                ),
            ));
        }
        records.push(record);
    }
    let trailing_bytes = len % RECORD_BYTES;
    if trailing_bytes != 0 {
        log::warn!(
            "{}: ends in a partial record ({trailing_bytes} bytes), read up to it",
            path.display()
        );
    }
    Ok(DataFile {
        records,
        trailing_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::chess;

    #[test]
    fn records_are_side_to_move_relative() {
        let white = chess("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let r = encode(&white, 35, GameResult::WhiteWins);
        assert_eq!((r.score, r.result), (35, 2));
        assert_eq!(decode_board(&r), *white.board());
        assert_eq!(r.ksq, 4, "white king on e1");
        assert_eq!(r.opp_ksq, 4, "black king on e8, seen from its side: e1");

        // Black to move: the record is the mirrored board, White to move.
        let black = chess("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3");
        let r = encode(&black, 35, GameResult::WhiteWins);
        assert_eq!((r.score, r.result), (35, 0), "black's score, black lost");
        let mut flipped = black.board().clone();
        flipped.flip_vertical();
        flipped.swap_colors();
        assert_eq!(decode_board(&r), flipped);
    }

    #[test]
    fn bytes_round_trip_and_partial_records_are_ignored() {
        let pos = chess("8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1");
        let r = encode(&pos, -1234, GameResult::Draw);
        assert_eq!(from_bytes(&to_bytes(&r)), r);

        let dir = std::env::temp_dir().join(format!("lasker-td-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("partial.bin");
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&to_bytes(&r));
        bytes.extend_from_slice(&to_bytes(&r));
        bytes.extend_from_slice(&to_bytes(&r)[..13]);
        std::fs::write(&path, &bytes).unwrap();
        let file = read_file(&path).unwrap();
        assert_eq!(file.records, vec![r, r]);
        assert_eq!(file.trailing_bytes, 13);

        // Not chess data: an error, not a panic.
        std::fs::write(&path, [0xffu8; 64]).unwrap();
        assert!(read_file(&path).is_err());
        assert!(read_file(&dir.join("missing.bin")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
