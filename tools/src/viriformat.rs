//! Self-play stored as games: the format of the `viriformat` crate
//! (Viridithas' data format, read by bullet's tools), written here with
//! shakmaty and checked in the tests against the crate's own reader and
//! writer.
//!
//! A file is games back to back, no header, so files concatenate. A game is
//! a start position and then one `(move, score)` pair per ply: about 4
//! bytes a position, where a `trainingdata` record takes 32. All integers
//! little-endian, squares a1 = 0 … h8 = 63.
//!
//! | bytes | field | meaning |
//! |---|---|---|
//! | 0..8 | occupancy | the occupied squares of the start position |
//! | 8..24 | pieces | a nibble per occupied square in square order: bits 0..2 pawn, knight, bishop, rook, queen, king (0..5), or 6 for a rook that may still castle; bit 3 set for Black |
//! | 24 | side and en passant | bit 7 set when Black is to move; bits 0..6 the en passant square (only when a pawn could take there), 64 if none |
//! | 25 | halfmove clock | |
//! | 26..28 | fullmove number | u16 |
//! | 28..30 | score | unused, 0 |
//! | 30 | result | for White: 0 loss, 1 draw, 2 win |
//! | 31 | extra | unused, 0 |
//! | then, per ply | move (u16), score (i16) | the move played and the search score of the position it was played from, **from White's side** |
//! | end | 4 zero bytes | |
//!
//! A move is `from | to << 6 | promotion << 12 | kind << 14`: promotion
//! knight 0, bishop 1, rook 2, queen 3; kind 1 en passant, 2 castling
//! (written king takes own rook, e1h1, which also covers Chess960), 3
//! promotion, 0 anything else.
//!
//! In memory (`Game`) scores are for the side to move, as everywhere else in
//! Lasker; they are turned to White's side only in the file.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup as _, Move,
    Position as _, PositionError, Role, Setup, Square,
};

use super::trainingdata::GameResult;

pub const BOARD_BYTES: usize = 32;
pub const PLY_BYTES: usize = 4;
/// A game's end: no move is 0 (a1 to a1).
const TERMINATOR: [u8; PLY_BYTES] = [0; PLY_BYTES];
/// The piece code of a rook whose side may still castle with it.
const CASTLING_ROOK: u8 = 6;
const NO_EP_SQUARE: u8 = 64;
const PROMOTIONS: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// One game: where its recorded moves start, each ply's move with its
/// search score, and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub start: Chess,
    /// The move played at each ply and the search score of the position it
    /// was played from, in centipawns for the side to move there.
    pub plies: Vec<(Move, i16)>,
    pub result: GameResult,
}

impl Game {
    pub fn new(start: Chess, result: GameResult) -> Game {
        Game {
            start,
            plies: Vec::new(),
            result,
        }
    }

    /// Each ply's position (before its move), the move and the score for
    /// the side to move.
    pub fn positions(&self) -> impl Iterator<Item = (Chess, Move, i16)> + '_ {
        let mut pos = self.start.clone();
        self.plies.iter().map(move |&(m, score)| {
            let before = pos.clone();
            pos.play_unchecked(m);
            (before, m, score)
        })
    }

    /// Appends the game's bytes. A move that can't be written (a drop: not
    /// chess) is an error.
    pub fn write_to(&self, out: &mut Vec<u8>) -> io::Result<()> {
        out.extend_from_slice(&pack_board(&self.start, self.result));
        let mut white_to_move = self.start.turn() == Color::White;
        for &(m, score) in &self.plies {
            let raw = encode_move(m).ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidInput, format!("{m:?} is not chess"))
            })?;
            let white_score = if white_to_move {
                score
            } else {
                score.saturating_neg()
            };
            out.extend_from_slice(&raw.to_le_bytes());
            out.extend_from_slice(&white_score.to_le_bytes());
            white_to_move = !white_to_move;
        }
        out.extend_from_slice(&TERMINATOR);
        Ok(())
    }

    pub fn byte_len(&self) -> usize {
        BOARD_BYTES + PLY_BYTES * (self.plies.len() + 1)
    }
}

/// A move's 16 bits; None for a drop, which chess has not.
pub fn encode_move(m: Move) -> Option<u16> {
    let squares = |from: Square, to: Square| u16::from(from) | u16::from(to) << 6;
    Some(match m {
        Move::Normal {
            from,
            to,
            promotion: None,
            ..
        } => squares(from, to),
        Move::Normal {
            from,
            to,
            promotion: Some(role),
            ..
        } => squares(from, to) | (role as u16 - Role::Knight as u16) << 12 | 3 << 14,
        Move::EnPassant { from, to } => squares(from, to) | 1 << 14,
        Move::Castle { king, rook } => squares(king, rook) | 2 << 14,
        Move::Put { .. } => return None,
    })
}

/// The legal move of `pos` that `raw` encodes, if there is one.
pub fn decode_move(pos: &Chess, raw: u16) -> Option<Move> {
    let from = Square::new(u32::from(raw & 63));
    let to = Square::new(u32::from(raw >> 6 & 63));
    let board = pos.board();
    let m = match raw >> 14 {
        0 => Move::Normal {
            role: board.role_at(from)?,
            from,
            capture: board.role_at(to),
            to,
            promotion: None,
        },
        1 => Move::EnPassant { from, to },
        2 => Move::Castle {
            king: from,
            rook: to,
        },
        _ => Move::Normal {
            role: Role::Pawn,
            from,
            capture: board.role_at(to),
            to,
            promotion: Some(PROMOTIONS[usize::from(raw >> 12 & 3)]),
        },
    };
    pos.is_legal(m).then_some(m)
}

/// The 32-byte start position of a game that ended with `result`.
pub fn pack_board(pos: &Chess, result: GameResult) -> [u8; BOARD_BYTES] {
    let board = pos.board();
    let castling_rooks = pos.castles().castling_rights();
    let mut out = [0u8; BOARD_BYTES];
    out[0..8].copy_from_slice(&u64::from(board.occupied()).to_le_bytes());
    for (i, square) in board.occupied().into_iter().enumerate() {
        let piece = board
            .piece_at(square)
            .expect("an occupied square holds a piece");
        let mut code = if castling_rooks.contains(square) {
            CASTLING_ROOK
        } else {
            piece.role as u8 - 1
        };
        if piece.color == Color::Black {
            code |= 8;
        }
        out[8 + i / 2] |= code << (4 * (i % 2));
    }
    // The en passant square only when a pawn stands to take there, as the
    // crate's board keeps it (the reader accepts it either way).
    let ep = pos
        .ep_square(EnPassantMode::PseudoLegal)
        .map_or(NO_EP_SQUARE, u8::from);
    out[24] = u8::from(pos.turn() == Color::Black) << 7 | ep;
    out[25] = pos.halfmoves().min(255) as u8;
    let fullmoves = u16::try_from(pos.fullmoves().get()).unwrap_or(u16::MAX);
    out[26..28].copy_from_slice(&fullmoves.to_le_bytes());
    out[30] = match result {
        GameResult::BlackWins => 0,
        GameResult::Draw => 1,
        GameResult::WhiteWins => 2,
    };
    out
}

/// The start position and result of a game's first 32 bytes, or why they
/// are not a legal chess position.
pub fn unpack_board(bytes: &[u8; BOARD_BYTES]) -> Result<(Chess, GameResult), String> {
    let occupied = Bitboard(u64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes")));
    if occupied.count() > 32 {
        return Err(format!("{} pieces", occupied.count()));
    }
    let mut board = Board::empty();
    let mut castling_rights = Bitboard::EMPTY;
    for (i, square) in occupied.into_iter().enumerate() {
        let code = bytes[8 + i / 2] >> (4 * (i % 2)) & 15;
        let role = match code & 7 {
            CASTLING_ROOK => {
                castling_rights.add(square);
                Role::Rook
            }
            7 => return Err(format!("piece code 7 on {square}")),
            r => Role::ALL[usize::from(r)],
        };
        let color = if code & 8 == 0 {
            Color::White
        } else {
            Color::Black
        };
        board.set_piece_at(square, role.of(color));
    }
    let ep_square = match bytes[24] & 127 {
        NO_EP_SQUARE => None,
        sq if sq < 64 => Some(Square::new(u32::from(sq))),
        sq => return Err(format!("en passant square {sq}")),
    };
    let result = match bytes[30] {
        0 => GameResult::BlackWins,
        1 => GameResult::Draw,
        2 => GameResult::WhiteWins,
        r => return Err(format!("result {r}")),
    };
    let setup = Setup {
        board,
        turn: if bytes[24] >> 7 == 0 {
            Color::White
        } else {
            Color::Black
        },
        castling_rights,
        ep_square,
        halfmoves: u32::from(bytes[25]),
        // "May be left at zero" (the crate's spec): a game's first move.
        fullmoves: std::num::NonZeroU32::new(u32::from(u16::from_le_bytes([bytes[26], bytes[27]])))
            .unwrap_or(std::num::NonZeroU32::MIN),
        ..Setup::empty()
    };
    Ok((position_from_setup(setup)?, result))
}

/// A position in standard castling if its rights are standard, else
/// Chess960's; an en passant square no pawn can use is dropped.
pub fn position_from_setup(setup: Setup) -> Result<Chess, String> {
    let build = |mode| {
        Chess::from_setup(setup.clone(), mode)
            .or_else(PositionError::ignore_invalid_ep_square)
            .map_err(|e| e.to_string())
    };
    build(CastlingMode::Standard)
        .or_else(|standard| build(CastlingMode::Chess960).map_err(|_| standard))
}

/// Where a file stops being whole games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Damage {
    /// It ends inside a game (a write cut off by a kill or a full disk).
    Truncated { offset: u64 },
    /// Bytes that are no game: not a position, or a move that is not legal.
    Corrupt { offset: u64, reason: String },
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damage::Truncated { offset } => {
                write!(f, "ends inside a game at byte {offset}")
            }
            Damage::Corrupt { offset, reason } => {
                write!(f, "is not a game at byte {offset} ({reason})")
            }
        }
    }
}

/// What reading a file found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadSummary {
    pub games: u64,
    /// Bytes of the whole games read.
    pub bytes: u64,
    /// Where the whole games end, if they end before the file.
    pub damage: Option<Damage>,
}

/// Reads games from `reader` up to its end or its first damage, handing
/// each whole one to `on_game`. Damage after a whole game is reported in the
/// summary; damage before the first (the file is something else) is an
/// error, and so is a failed read.
pub fn read_games(
    reader: &mut impl BufRead,
    mut on_game: impl FnMut(Game),
) -> io::Result<ReadSummary> {
    let mut summary = ReadSummary::default();
    loop {
        match read_game(reader, summary.bytes)? {
            Next::Game(game, bytes) => {
                summary.games += 1;
                summary.bytes += bytes;
                on_game(game);
            }
            Next::End => return Ok(summary),
            Next::Damaged(damage) => {
                if summary.games == 0 && matches!(damage, Damage::Corrupt { .. }) {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("not a viriformat game file: it {damage}"),
                    ));
                }
                summary.damage = Some(damage);
                return Ok(summary);
            }
        }
    }
}

/// `read_games` on a file.
pub fn read_file(path: &Path, on_game: impl FnMut(Game)) -> io::Result<ReadSummary> {
    let mut reader = BufReader::with_capacity(1 << 20, File::open(path)?);
    read_games(&mut reader, on_game)
}

enum Next {
    Game(Game, u64),
    End,
    Damaged(Damage),
}

/// Fills `buf` unless the input ends first; returns how many bytes came.
fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn read_game(reader: &mut impl Read, offset: u64) -> io::Result<Next> {
    let mut header = [0u8; BOARD_BYTES];
    match read_up_to(reader, &mut header)? {
        0 => return Ok(Next::End),
        BOARD_BYTES => {}
        _ => return Ok(Next::Damaged(Damage::Truncated { offset })),
    }
    let (start, result) = match unpack_board(&header) {
        Ok(board) => board,
        Err(reason) => {
            return Ok(Next::Damaged(Damage::Corrupt {
                offset,
                reason: format!("start position: {reason}"),
            }));
        }
    };
    let mut game = Game::new(start, result);
    let mut pos = game.start.clone();
    let mut bytes = BOARD_BYTES as u64;
    loop {
        let mut ply = [0u8; PLY_BYTES];
        if read_up_to(reader, &mut ply)? < PLY_BYTES {
            return Ok(Next::Damaged(Damage::Truncated { offset }));
        }
        bytes += PLY_BYTES as u64;
        if ply == TERMINATOR {
            return Ok(Next::Game(game, bytes));
        }
        let raw = u16::from_le_bytes([ply[0], ply[1]]);
        let Some(m) = decode_move(&pos, raw) else {
            return Ok(Next::Damaged(Damage::Corrupt {
                offset,
                reason: format!("move {raw:#06x} at ply {} is not legal", game.plies.len()),
            }));
        };
        let white_score = i16::from_le_bytes([ply[2], ply[3]]);
        let score = if pos.turn() == Color::White {
            white_score
        } else {
            white_score.saturating_neg()
        };
        game.plies.push((m, score));
        pos.play_unchecked(m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn chess(fen: &str) -> Chess {
        let setup = fen.parse::<Fen>().unwrap().into_setup();
        position_from_setup(setup).unwrap()
    }

    /// Plays `uci` moves from `fen`, each scored by its index (so that both
    /// signs and both sides to move appear).
    fn game(fen: &str, moves: &[&str], result: GameResult) -> Game {
        let mut game = Game::new(chess(fen), result);
        let mut pos = game.start.clone();
        for (i, uci) in moves.iter().enumerate() {
            let m = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            game.plies.push((m, (i as i16 - 2) * 37));
            pos.play_unchecked(m);
        }
        game
    }

    /// Games with every kind of move: castling both ways, en passant,
    /// promotions with and without capture, under-promotion, a Chess960
    /// start, and a start with Black to move.
    fn varied_games() -> Vec<Game> {
        vec![
            game(
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                &[
                    "e2e4", "d7d5", "e4e5", "f7f5", "e5f6", "g8f6", "g1f3", "c8e6",
                ],
                GameResult::WhiteWins,
            ),
            game(
                "r3k2r/pPpp1ppp/8/8/8/8/P1PP1PPP/R3K2R w KQkq - 0 20",
                &["e1c1", "e8g8", "b7a8n", "h7h5", "a8b6", "a7b6"],
                GameResult::BlackWins,
            ),
            game(
                "8/8/8/2k5/8/8/1p4K1/8 b - - 3 60",
                &["b2b1q", "g2f3", "b1f1", "f3e4"],
                GameResult::Draw,
            ),
            // Chess960: king on b1, rooks on a1 and h1 (Shredder FEN).
            game(
                "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w AHah - 0 1",
                &["b1a1", "b8h8"],
                GameResult::Draw,
            ),
            game(
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                &[],
                GameResult::Draw,
            ),
        ]
    }

    fn bytes_of(games: &[Game]) -> Vec<u8> {
        let mut out = Vec::new();
        for g in games {
            g.write_to(&mut out).unwrap();
        }
        out
    }

    fn read_all(bytes: &[u8]) -> io::Result<(Vec<Game>, ReadSummary)> {
        let mut games = Vec::new();
        let summary = read_games(&mut &bytes[..], |g| games.push(g))?;
        Ok((games, summary))
    }

    #[test]
    fn games_round_trip_with_their_positions_and_scores() {
        let games = varied_games();
        let bytes = bytes_of(&games);
        assert_eq!(bytes.len(), games.iter().map(Game::byte_len).sum::<usize>());
        let (read, summary) = read_all(&bytes).unwrap();
        assert_eq!(read, games);
        assert_eq!(summary.games, 5);
        assert_eq!(summary.bytes, bytes.len() as u64);
        assert_eq!(summary.damage, None);
        // The same positions and side-to-move scores, ply by ply.
        for (a, b) in read.iter().zip(&games) {
            assert!(a.positions().eq(b.positions()));
        }
    }

    #[test]
    fn scores_are_white_relative_in_the_file() {
        let g = game(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["e2e4", "e7e5"],
            GameResult::WhiteWins,
        );
        let bytes = bytes_of(std::slice::from_ref(&g));
        // Side-to-move scores -74 (White) and -37 (Black): in the file
        // -74 and +37.
        let score_at = |ply: usize| {
            let at = BOARD_BYTES + PLY_BYTES * ply + 2;
            i16::from_le_bytes([bytes[at], bytes[at + 1]])
        };
        assert_eq!(g.plies[0].1, -74);
        assert_eq!(g.plies[1].1, -37);
        assert_eq!((score_at(0), score_at(1)), (-74, 37));
        // e2e4 is 12 | 28 << 6; the result byte says White won.
        assert_eq!(&bytes[32..34], &(12u16 | 28 << 6).to_le_bytes());
        assert_eq!(bytes[30], 2);
        assert_eq!(&bytes[bytes.len() - 4..], &[0, 0, 0, 0]);
    }

    #[test]
    fn a_damaged_file_is_read_up_to_its_last_whole_game() {
        let games = varied_games();
        let bytes = bytes_of(&games);
        let first_two = games[0].byte_len() + games[1].byte_len();
        // Cut anywhere inside the third game: the first two survive.
        for cut in [
            first_two + 1,
            first_two + 31,
            first_two + 33,
            first_two + 36,
        ] {
            let (read, summary) = read_all(&bytes[..cut]).unwrap();
            assert_eq!(read, games[..2], "cut at {cut}");
            assert_eq!(
                summary.damage,
                Some(Damage::Truncated {
                    offset: first_two as u64
                })
            );
        }
        // An illegal move in the third game: the same.
        let mut corrupt = bytes.clone();
        corrupt[first_two + BOARD_BYTES] ^= 0x3f;
        let (read, summary) = read_all(&corrupt).unwrap();
        assert_eq!(read, games[..2]);
        assert!(matches!(summary.damage, Some(Damage::Corrupt { .. })));
        // A bad result byte in the second: only the first.
        let mut corrupt = bytes.clone();
        corrupt[games[0].byte_len() + 30] = 7;
        assert_eq!(read_all(&corrupt).unwrap().0, games[..1]);
        // Bytes that are no game at all are an error, not zero games.
        assert!(read_all(&[0xff; 64]).is_err());
        let records = [0x11u8; 96];
        assert!(read_all(&records).is_err());
        // An empty file holds no games and no damage.
        assert_eq!(read_all(&[]).unwrap().1, ReadSummary::default());
    }

    /// Lasker's bytes are the crate's: its reader (with debug assertions,
    /// which the test profile keeps, it checks each board and that each move
    /// is legal) reads every game, and its writer writes the same bytes
    /// back; its board agrees with ours at every ply.
    #[test]
    fn the_viriformat_crate_reads_our_games_and_writes_the_same_bytes() {
        use ::viriformat::dataformat::Game as CrateGame;
        let games = varied_games();
        let bytes = bytes_of(&games);
        let mut reader = &bytes[..];
        let mut rewritten = Vec::new();
        for ours in &games {
            let theirs = CrateGame::deserialise_from(&mut reader, Vec::new()).unwrap();
            theirs.serialise_into(&mut rewritten).unwrap();
            let mut plies = ours.positions();
            theirs.visit_positions(|board, white_score| {
                let (pos, _, score) = plies.next().unwrap();
                let white = if pos.turn() == Color::White {
                    score
                } else {
                    -score
                };
                assert_eq!(white_score, i32::from(white));
                assert_eq!(fen_fields(&board.to_string()), fen_of(&pos));
            });
            assert!(plies.next().is_none());
        }
        assert!(reader.is_empty());
        assert_eq!(rewritten, bytes);
    }

    /// The crate's games (random legal moves on its own board) read back
    /// here to the same positions, moves and scores.
    #[test]
    fn we_read_the_viriformat_crates_games() {
        use ::viriformat::chess::board::Board as CrateBoard;
        use ::viriformat::chess::board::{DrawType, GameOutcome, WinType};
        use ::viriformat::dataformat::Game as CrateGame;
        let mut rng = lasker::rng::Rng::new(5);
        let mut bytes = Vec::new();
        let mut expected = Vec::new();
        let outcomes = [
            (
                GameOutcome::WhiteWin(WinType::Adjudication),
                GameResult::WhiteWins,
            ),
            (GameOutcome::Draw(DrawType::FiftyMoves), GameResult::Draw),
            (GameOutcome::BlackWin(WinType::Mate), GameResult::BlackWins),
        ];
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/pPpp1ppp/8/4pP2/8/8/P1PP1PPP/R3K2R w KQkq e6 0 20",
            "8/P1k5/8/8/8/8/1p4K1/8 b - - 0 60",
        ] {
            for (outcome, result) in outcomes.iter().chain(&outcomes[..1]) {
                let mut board = CrateBoard::new();
                board.set_from_fen(fen, false).unwrap();
                let mut game = CrateGame::new(&board);
                let mut fens = Vec::new();
                for _ in 0..120 {
                    let moves = board.legal_moves();
                    if moves.is_empty() || board.fifty_move_counter() >= 100 {
                        break;
                    }
                    let m = moves[rng.below(moves.len())];
                    let score = (rng.next_u64() % 4001) as i16 - 2000;
                    game.add_move(m, score);
                    fens.push((fen_fields(&board.to_string()), score));
                    board.make_move_simple(m);
                }
                game.set_outcome(*outcome);
                game.serialise_into(&mut bytes).unwrap();
                expected.push((fens, *result));
            }
        }
        let (games, summary) = read_all(&bytes).unwrap();
        assert_eq!(summary.games, 12);
        assert_eq!(summary.damage, None);
        for (game, (fens, result)) in games.iter().zip(&expected) {
            assert_eq!(game.result, *result);
            let ours: Vec<_> = game
                .positions()
                .map(|(pos, _, score)| {
                    let white = if pos.turn() == Color::White {
                        score
                    } else {
                        -score
                    };
                    (fen_of(&pos), white)
                })
                .collect();
            assert_eq!(&ours, fens);
        }
        // And our writer gives the crate's bytes for them.
        assert_eq!(bytes_of(&games), bytes);
    }

    /// Board, side, castling, en passant and halfmove clock of a FEN.
    fn fen_fields(fen: &str) -> String {
        fen.split_whitespace().take(5).collect::<Vec<_>>().join(" ")
    }

    fn fen_of(pos: &Chess) -> String {
        fen_fields(&Fen::from_position(pos, EnPassantMode::PseudoLegal).to_string())
    }
}
