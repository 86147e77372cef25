//! PGNs of a real match between two Lasker processes (written here as
//! fastchess and cutechess write them, as OpenBench's data generation
//! uploads them) converted to training data by `lasker-tools convert`.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use lasker_tools::data;
use lasker_tools::trainingdata::{self, GameResult};
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, KnownOutcome, Outcome, Position};

use common::{Engine, TIMEOUT, chess, fen_of};

/// The tools binary.
const TOOLS: &str = env!("CARGO_BIN_EXE_lasker-tools");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lasker-tools-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// What these tests add to the shared harness (`common`).
impl Engine {
    /// A Lasker process that has answered `uci`.
    fn start() -> Engine {
        let mut engine = Engine::new();
        engine.send("uci");
        engine.until(|l| l == "uciok");
        engine
    }

    /// Lines up to and including the first that `done` accepts.
    fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.lines_until(done, TIMEOUT)
    }

    /// The engine's move and its last reported score for the side to move
    /// (a mate as `MATE_IN` moves, signed) and depth.
    fn think(&mut self, start: &str, moves: &[String]) -> (String, Score, u32) {
        self.send(&format!("position fen {start} moves {}", moves.join(" ")));
        self.send("go nodes 3000");
        let lines = self.until(|l| l.starts_with("bestmove"));
        let mut last = None;
        for line in &lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            let value = |key: &str| {
                words
                    .windows(2)
                    .find(|w| w[0] == key)
                    .map(|w| w[1].to_string())
            };
            if let (Some(kind), Some(depth)) = (
                words.iter().position(|w| *w == "score"),
                value("depth").and_then(|d| d.parse().ok()),
            ) {
                let n: i32 = words[kind + 2].parse().unwrap();
                let score = match words[kind + 1] {
                    "cp" => Score::Cp(n),
                    "mate" => Score::Mate(n),
                    other => panic!("score {other}"),
                };
                last = Some((score, depth));
            }
        }
        let best = lines
            .last()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string();
        let (score, depth) = last.expect("a scored info line");
        (best, score, depth)
    }
}

#[derive(Clone, Copy, Debug)]
enum Score {
    Cp(i32),
    Mate(i32),
}

impl Score {
    /// As fastchess and cutechess print it: pawns, or `+M3`/`-M3`.
    fn pgn(self) -> String {
        match self {
            Score::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
            Score::Mate(n) if n > 0 => format!("+M{n}"),
            Score::Mate(n) => format!("-M{}", -n),
        }
    }
}

/// One played game: its start, book moves, engine moves with their scores
/// (side to move), and its PGN.
struct Played {
    start: String,
    book: Vec<String>,
    plies: Vec<(String, Score)>,
    result: &'static str,
    pgn: String,
}

/// Plays `white` against `black` from `start` after the `book` moves, at
/// most `max_plies` engine moves; a game not over by then is adjudicated
/// to the side the last search favoured (fastchess' `-resign` would have).
/// `fastchess` chooses its comment style (`{+0.35/12, 0.004s}`) over
/// cutechess' (`{+0.35/12 0.004s}`).
fn play(
    white: &mut Engine,
    black: &mut Engine,
    start: &str,
    book: &[&str],
    max_plies: usize,
    fastchess: bool,
) -> Played {
    let mut pos = chess(start);
    let mut moves: Vec<String> = Vec::new();
    let mut movetext = String::new();
    let mut plies = Vec::new();
    let mut add = |pos: &mut Chess, uci: &str, comment: String| {
        let m = uci
            .parse::<UciMove>()
            .unwrap()
            .to_move(pos)
            .unwrap_or_else(|e| panic!("{uci} in {}: {e}", fen_of(pos)));
        if pos.turn() == Color::White {
            movetext.push_str(&format!("{}. ", pos.fullmoves()));
        }
        let san = SanPlus::from_move_and_play_unchecked(pos, m);
        movetext.push_str(&format!("{san} {{{comment}}} "));
    };
    for uci in book {
        add(&mut pos, uci, "book".into());
        moves.push(uci.to_string());
    }
    let mut last_score = Score::Cp(0);
    while plies.len() < max_plies && !pos.is_game_over() {
        let engine = if pos.turn() == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let (best, score, depth) = engine.think(start, &moves);
        let comment = if fastchess {
            format!("{}/{depth}, 0.004s", score.pgn())
        } else {
            format!("{}/{depth} 0.004s", score.pgn())
        };
        let mover = pos.turn();
        add(&mut pos, &best, comment);
        moves.push(best.clone());
        plies.push((best, score));
        last_score = match score {
            Score::Cp(cp) if mover == Color::Black => Score::Cp(-cp),
            Score::Mate(n) if mover == Color::Black => Score::Mate(-n),
            white_view => white_view,
        };
    }
    let result = match pos.outcome() {
        Outcome::Known(KnownOutcome::Decisive {
            winner: Color::White,
        }) => "1-0",
        Outcome::Known(KnownOutcome::Decisive {
            winner: Color::Black,
        }) => "0-1",
        Outcome::Known(KnownOutcome::Draw) => "1/2-1/2",
        Outcome::Unknown => match last_score {
            Score::Cp(cp) if cp.abs() < 300 => "1/2-1/2",
            Score::Cp(cp) if cp > 0 => "1-0",
            Score::Mate(n) if n > 0 => "1-0",
            _ => "0-1",
        },
    };
    let pgn = format!(
        "[Event \"lasker test\"]\n[White \"lasker\"]\n[Black \"lasker\"]\n[Result \"{result}\"]\n\
         [FEN \"{start}\"]\n[SetUp \"1\"]\n\n{movetext}{result}\n\n"
    );
    Played {
        start: start.to_string(),
        book: book.iter().map(|s| s.to_string()).collect(),
        plies,
        result,
        pgn,
    }
}

/// A short match between two Lasker processes, each side a queen up in one
/// game; its PGN converted by `lasker-tools convert` keeps each move's score for
/// the side to move, with the sign of the side that is ahead.
#[test]
fn the_pgn_of_a_real_match_converts_to_scores_for_the_side_to_move() {
    let dir = scratch("pgn");
    let (mut a, mut b) = (Engine::start(), Engine::start());
    // White a queen up, then Black.
    let white_ahead = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let black_ahead = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1";
    let games = [
        play(&mut a, &mut b, white_ahead, &["e2e4", "e7e5"], 40, false),
        play(&mut b, &mut a, black_ahead, &["d2d4"], 40, true),
    ];
    drop((a, b));
    let mut scored = 0;
    assert_eq!(games[0].result, "1-0", "{}", games[0].pgn);
    assert_eq!(games[1].result, "0-1", "{}", games[1].pgn);
    let pgn = dir.join("match.pgn");
    fs::write(
        &pgn,
        games.iter().map(|g| g.pgn.as_str()).collect::<String>(),
    )
    .unwrap();

    let convert = |out: &Path| {
        let status = Command::new(TOOLS)
            .args([
                "convert",
                "--out",
                out.to_str().unwrap(),
                pgn.to_str().unwrap(),
            ])
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    };
    let vf = dir.join("match.vf");
    convert(&vf);
    let (converted, summary) = data::read_games(&vf).unwrap();
    assert_eq!(summary.damage, None);
    assert_eq!(
        converted.len(),
        2,
        "one game each: the book moves are left out"
    );
    for (game, played) in converted.iter().zip(&games) {
        let ahead = if played.start == white_ahead {
            Color::White
        } else {
            Color::Black
        };
        assert_eq!(game.result, GameResult::winner(ahead));
        // The game starts after the book moves.
        let mut start = chess(&played.start);
        for uci in &played.book {
            let m = uci.parse::<UciMove>().unwrap().to_move(&start).unwrap();
            start.play_unchecked(m);
        }
        assert_eq!(fen_of(&game.start), fen_of(&start));
        assert_eq!(game.plies.len(), played.plies.len());
        for ((pos, m, score), (uci, reported)) in game.positions().zip(&played.plies) {
            assert_eq!(m.to_uci(CastlingMode::Standard).to_string(), *uci);
            match *reported {
                // The engine's score as it said it, for the side to move,
                // in the search's units again (it printed normalised
                // centipawns: NORMALISED_PAWN of its units a pawn).
                Score::Cp(cp) => {
                    scored += 1;
                    let pawn = f64::from(lasker::score::NORMALISED_PAWN);
                    let internal = (f64::from(cp) / 100.0 * pawn).round() as i32;
                    assert_eq!(i32::from(score), internal);
                    // And with the sign of the side that is a queen up.
                    let sign = if pos.turn() == ahead { 1 } else { -1 };
                    assert!(
                        cp * sign > 0,
                        "{cp} for {:?} in {}",
                        pos.turn(),
                        fen_of(&pos)
                    );
                }
                Score::Mate(n) => {
                    assert_eq!(i32::from(score).signum(), n.signum());
                    assert!(i32::from(score).abs() > 31_000);
                }
            }
        }
    }
    assert!(scored > 30, "{scored} plies scored in centipawns");

    // As records: side-to-move boards whose scores and results agree with
    // the net's own view of each board.
    let bin = dir.join("match.bin");
    convert(&bin);
    let loaded = data::load(&bin).unwrap();
    assert!(loaded.records.len() > 20, "{}", loaded.records.len());
    let net = lasker::nnue::embedded();
    let mut strong = 0;
    for record in &loaded.records {
        let board = trainingdata::decode_board(record);
        let eval = net.evaluate_board(&board, Color::White);
        assert_ne!(record.result, 1, "no draws in these games");
        // Won (2) exactly when the side to move is the side ahead.
        assert_eq!(record.result == 2, record.score > 0, "{record:?}");
        if record.score.abs() > 300 {
            strong += 1;
            assert_eq!(eval.signum(), i32::from(record.score.signum()), "{board}");
        }
    }
    assert!(strong > 20);
    fs::remove_dir_all(&dir).unwrap();
}

/// `lasker-tools --help | grep -q datagen` closes the pipe before the tool
/// has written (CI failed on it once, with a panic): the tool exits quietly.
#[test]
fn a_closed_stdout_is_no_panic() {
    for arg in ["--help", "--version"] {
        common::exits_quietly_with_stdout_closed(std::path::Path::new(TOOLS), arg);
    }
}
