//! OpenBench's `genfens`: openings for its data generation workloads, made
//! by the engine. OpenBench runs `./lasker "genfens N seed S book
//! <None|Books/file.epd> [extra]" "quit"` and reads each `info string
//! genfens <FEN>` line as an opening for the fastchess games it plays.
//!
//! An opening is 8 random legal plies from the start position
//! (or 2 from a random position of the book, whose lines are openings
//! already), kept only if the side to move has a legal move and a 2,000-node
//! search scores it within ±1,000 cp (one side far ahead teaches little
//! and ends fast). Each search has a fresh 2 MB table and the current net,
//! so the same seed (and net) gives the same openings on any machine.

use std::path::PathBuf;
use std::sync::Arc;

use shakmaty::CastlingMode;

use crate::channel::excerpt;
use crate::nnue::Network;
use crate::position::Position;
use crate::rng::Rng;
use crate::search::SearchMemory;
use crate::selfplay::{self, MAX_OPENING_SCORE, NodeBudget};
use crate::tt::TranspositionTable;

/// Each opening's search has a table of its own, as small as a datagen
/// thread's.
const HASH_MB: usize = 2;

/// Random plies from the start position.
const START_PLIES: usize = 8;
/// Random plies from a book position.
const BOOK_PLIES: usize = 2;
/// Draws per opening asked for before giving up: a book whose every line
/// is decided must end in an error, not a hang.
const MAX_TRIES_PER_OPENING: u64 = 100;
/// The random stream of genfens, apart from datagen's threads of the same
/// seed.
const STREAM: u64 = u64::from_le_bytes(*b"genfens\0");

/// `genfens N seed S book <None|file>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub count: u64,
    pub seed: u64,
    pub book: Option<PathBuf>,
}

pub const USAGE: &str = "genfens N seed S book <None|file.epd>";

impl Request {
    /// The arguments after `genfens`.
    pub fn parse(args: &[&str]) -> Result<Request, String> {
        let [count, "seed", seed, "book", book, extra @ ..] = args else {
            return Err(format!(
                "expected '{USAGE}', got 'genfens {}'",
                excerpt(&args.join(" "))
            ));
        };
        if let Some(word) = extra.first() {
            return Err(format!(
                "genfens: Lasker takes no extra arguments, got '{}'",
                excerpt(word)
            ));
        }
        let number = |name: &str, v: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("genfens: {name} '{}' is not a number", excerpt(v)))
        };
        Ok(Request {
            count: number("N", count)?,
            seed: number("seed", seed)?,
            book: (!book.eq_ignore_ascii_case("none")).then(|| PathBuf::from(book)),
        })
    }
}

/// Makes the openings, handing each FEN to `emit` as it is found.
pub fn generate(
    request: &Request,
    net: &Arc<Network>,
    castling_mode: CastlingMode,
    mut emit: impl FnMut(&str),
) -> Result<(), String> {
    let book = match &request.book {
        Some(path) => Some(read_book(path, castling_mode)?),
        None => None,
    };
    let tt = TranspositionTable::new(HASH_MB).map_err(|e| format!("hash table: {e}"))?;
    let mut rng = Rng::with_stream(request.seed, STREAM);
    let mut found = 0;
    let mut tries = 0u64;
    while found < request.count {
        tries += 1;
        if tries > MAX_TRIES_PER_OPENING.saturating_mul(request.count) {
            return Err(format!(
                "genfens: {found} of {} openings after {} tries: every line is decided",
                request.count,
                tries - 1
            ));
        }
        let (mut pos, plies) = match &book {
            Some(book) => (book[rng.below(book.len())].clone(), BOOK_PLIES),
            None => (
                Position::from_chess(Default::default(), castling_mode),
                START_PLIES,
            ),
        };
        if !selfplay::play_random_plies(&mut pos, plies, &mut rng) {
            continue;
        }
        tt.clear();
        let searched = selfplay::search(pos, &tt, net, NodeBudget::QUICK, SearchMemory::default());
        if searched.best.is_none() || searched.score.abs() > MAX_OPENING_SCORE {
            continue;
        }
        emit(&searched.pos.fen());
        found += 1;
    }
    Ok(())
}

/// The positions of an EPD (or FEN) book: the board, side, castling and en
/// passant fields of each line, with the move counters if the line has them
/// (as FEN fields or `hmvc`/`fmvn` opcodes). Lines that are not positions
/// are an error: a book is data someone chose.
fn read_book(path: &std::path::Path, castling_mode: CastlingMode) -> Result<Vec<Position>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("genfens: can't read book '{}': {e}", path.display()))?;
    let mut book = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let opcode = |name: &str| {
            fields
                .windows(2)
                .find(|w| w[0] == name)
                .map(|w| w[1].trim_end_matches(';'))
        };
        let counter = |index: usize, name: &str, default: &'static str| match fields
            .get(index)
            .filter(|f| f.parse::<u32>().is_ok())
        {
            Some(field) => field.to_string(),
            None => opcode(name).unwrap_or(default).to_string(),
        };
        let fen = format!(
            "{} {} {}",
            fields.get(..4).unwrap_or(&fields).join(" "),
            counter(4, "hmvc", "0"),
            counter(5, "fmvn", "1")
        );
        let pos = Position::from_fen(&fen, castling_mode).map_err(|e| {
            format!(
                "genfens: book '{}' line {}: {e}",
                path.display(),
                number + 1
            )
        })?;
        book.push(pos);
    }
    if book.is_empty() {
        return Err(format!(
            "genfens: book '{}' has no positions",
            path.display()
        ));
    }
    Ok(book)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_parsed_as_openbench_sends_them() {
        let words = |s: &'static str| s.split_whitespace().collect::<Vec<_>>();
        assert_eq!(
            Request::parse(&words("64 seed 2086340112 book None")),
            Ok(Request {
                count: 64,
                seed: 2_086_340_112,
                book: None
            })
        );
        assert_eq!(
            Request::parse(&words("3 seed 7 book Books/UHO_Lichess_4852_v1.epd")),
            Ok(Request {
                count: 3,
                seed: 7,
                book: Some(PathBuf::from("Books/UHO_Lichess_4852_v1.epd"))
            })
        );
        for bad in [
            "",
            "64",
            "x seed 1 book None",
            "64 seed -1 book None",
            "64 seeds 1 book None",
            "64 seed 1 book",
            "64 seed 1 book None dfrc",
        ] {
            assert!(Request::parse(&words(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn book_lines_keep_their_counters() {
        let dir = std::env::temp_dir().join(format!("lasker-genfens-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("book.epd");
        std::fs::write(
            &path,
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;\n\n\
             r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n\
             rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c0 \"start\";\n",
        )
        .unwrap();
        let book = read_book(&path, CastlingMode::Standard).unwrap();
        let fens: Vec<String> = book.iter().map(Position::fen).collect();
        assert_eq!(
            fens,
            [
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
                "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            ]
        );
        std::fs::write(&path, "not a position\n").unwrap();
        assert!(read_book(&path, CastlingMode::Standard).is_err());
        std::fs::write(&path, "\n").unwrap();
        assert!(read_book(&path, CastlingMode::Standard).is_err());
        assert!(read_book(&dir.join("missing.epd"), CastlingMode::Standard).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A book of positions where one side is a queen up: every opening is
    /// decided, and genfens says so instead of looping.
    #[test]
    fn a_book_of_decided_positions_is_an_error() {
        let dir = std::env::temp_dir().join(format!("lasker-genfens-d-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("decided.epd");
        std::fs::write(&path, "4k3/8/8/8/8/8/8/QQQQK3 w - -\n").unwrap();
        let request = Request {
            count: 1,
            seed: 1,
            book: Some(path),
        };
        let mut fens = Vec::new();
        let e = generate(
            &request,
            &crate::nnue::embedded(),
            CastlingMode::Standard,
            |f| fens.push(f.to_string()),
        )
        .unwrap_err();
        assert!(e.contains("decided"), "{e}");
        assert!(fens.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
