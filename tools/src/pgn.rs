//! Games from PGN files with the engines' scores in comments, as fastchess,
//! cutechess and OpenBench write them (`1. e4 {+0.35/12 0.123s} e5
//! {-0.20/11, 0.101s}`, OpenBench's compact `{+0.35}`, mates as `+M5` or
//! `-M3`), turned into `viriformat` games.
//!
//! A comment's score is the moving engine's: the score of the position the
//! move was played from, for the side to move there, which is what a game's
//! ply holds. A move without a score (a book move, `{book}`, or none at all)
//! can't be stored, so the game is cut there and goes on as a new game from
//! the position after it: the book moves before the first scored move are
//! simply skipped. Games without a result (`*`) teach nothing and are
//! skipped; a game with an illegal move or a bad FEN is skipped and counted.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Position as _};

use super::trainingdata::GameResult;
use super::viriformat::{Game, position_from_setup};
use lasker::score::{MATE, NORMALISED_PAWN};

/// What a PGN file held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnSummary {
    /// PGN games read.
    pub games: u64,
    /// Games handed on: a PGN game with unscored moves inside it gives more
    /// than one.
    pub converted: u64,
    /// PGN games without a result, skipped.
    pub unfinished: u64,
    /// PGN games that could not be read (an illegal move, a bad FEN, a
    /// variant), skipped.
    pub rejected: u64,
    pub first_error: Option<String>,
}

impl PgnSummary {
    /// A line for the log when games were skipped for being bad.
    pub fn warning(&self, path: &Path) -> Option<String> {
        self.first_error.as_ref().map(|e| {
            format!(
                "{}: {} of {} games could not be read and were skipped (the first: {e})",
                path.display(),
                self.rejected,
                self.games
            )
        })
    }
}

pub fn read_file(path: &Path, on_game: impl FnMut(Game)) -> io::Result<PgnSummary> {
    read_pgn(
        &mut BufReader::with_capacity(1 << 20, File::open(path)?),
        on_game,
    )
}

/// Reads PGN games one at a time, handing on each scored stretch of each
/// finished game.
pub fn read_pgn(
    reader: &mut impl BufRead,
    mut on_game: impl FnMut(Game),
) -> io::Result<PgnSummary> {
    let mut summary = PgnSummary::default();
    let mut game = PgnGame::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        // Player names may be in any encoding; moves and scores are ASCII.
        let text = String::from_utf8_lossy(&line);
        let trimmed = text.trim();
        if trimmed.starts_with('[') && !game.in_comment {
            if game.has_moves {
                finish(&mut game, &mut summary, &mut on_game);
            }
            game.add_header(trimmed);
        } else if !trimmed.starts_with('%') {
            game.add_movetext(&text);
        }
    }
    if game.has_moves || !game.headers.is_empty() {
        finish(&mut game, &mut summary, &mut on_game);
    }
    Ok(summary)
}

fn finish(game: &mut PgnGame, summary: &mut PgnSummary, on_game: &mut impl FnMut(Game)) {
    let taken = std::mem::take(game);
    summary.games += 1;
    match taken.convert() {
        Ok(Some(games)) => {
            summary.converted += games.len() as u64;
            games.into_iter().for_each(on_game);
        }
        Ok(None) => summary.unfinished += 1,
        Err(e) => {
            summary.rejected += 1;
            summary
                .first_error
                .get_or_insert_with(|| format!("game {}: {e}", summary.games));
        }
    }
}

#[derive(Default)]
struct PgnGame {
    headers: Vec<(String, String)>,
    movetext: String,
    has_moves: bool,
    /// Inside a `{...}` comment at the end of the movetext so far (comments
    /// may span lines).
    in_comment: bool,
}

impl PgnGame {
    fn add_header(&mut self, line: &str) {
        let inner = line.trim_start_matches('[').trim_end_matches(']');
        let (name, rest) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        let value = rest.trim().trim_matches('"').replace("\\\"", "\"");
        self.headers.push((name.to_string(), value));
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Appends a line of movetext, dropping `;` comments (to the end of the
    /// line, outside braces).
    fn add_movetext(&mut self, line: &str) {
        for c in line.chars() {
            match c {
                ';' if !self.in_comment => break,
                '{' => self.in_comment = true,
                '}' => self.in_comment = false,
                _ => {}
            }
            self.movetext.push(c);
            self.has_moves |= !c.is_whitespace();
        }
        self.movetext.push(' ');
    }

    /// The game's scored stretches; None if it has no result.
    fn convert(&self) -> Result<Option<Vec<Game>>, String> {
        let variant = self.header("Variant").unwrap_or("standard").to_lowercase();
        if ![
            "standard",
            "chess960",
            "fischerandom",
            "from position",
            "normal",
        ]
        .contains(&variant.as_str())
        {
            return Err(format!("variant '{variant}' is not chess"));
        }
        let start = match self.header("FEN") {
            Some(fen) => position_from_fen(fen)?,
            None => Chess::default(),
        };
        let tokens = tokenize(&self.movetext);
        let result_token = tokens.iter().find_map(|t| match t {
            Token::Result(r) => Some(*r),
            _ => None,
        });
        let result = match self.header("Result").or(result_token) {
            Some("1-0") => GameResult::WhiteWins,
            Some("0-1") => GameResult::BlackWins,
            Some("1/2-1/2") => GameResult::Draw,
            _ => return Ok(None),
        };
        let mut games = Vec::new();
        let mut current = Game::new(start.clone(), result);
        let mut pos = start;
        // The last move read, waiting for the comment that may score it.
        let mut pending: Option<(shakmaty::Move, Option<i16>)> = None;
        let mut flush =
            |pending: Option<(shakmaty::Move, Option<i16>)>, pos: &Chess, current: &mut Game| {
                match pending {
                    Some((m, Some(score))) => current.plies.push((m, score)),
                    // Unscored: the game so far ends; a new one starts after it.
                    Some((_, None)) => {
                        let done = std::mem::replace(current, Game::new(pos.clone(), result));
                        if !done.plies.is_empty() {
                            games.push(done);
                        }
                    }
                    None => {}
                }
            };
        for token in &tokens {
            match token {
                Token::Move(san) => {
                    flush(pending.take(), &pos, &mut current);
                    let ply = current.plies.len();
                    let m = SanPlus::from_ascii(san.as_bytes())
                        .map_err(|e| format!("'{san}': {e}"))?
                        .san
                        .to_move(&pos)
                        .map_err(|e| format!("'{san}' after ply {ply}: {e}"))?;
                    pos.play_unchecked(m);
                    pending = Some((m, None));
                }
                Token::Comment(text) => {
                    if let Some((_, score @ None)) = &mut pending {
                        *score = parse_score(text);
                    }
                }
                Token::Result(_) => break,
            }
        }
        flush(pending.take(), &pos, &mut current);
        if !current.plies.is_empty() {
            games.push(current);
        }
        Ok(Some(games))
    }
}

/// A FEN in standard castling, or Chess960's when its rights need it.
fn position_from_fen(fen: &str) -> Result<Chess, String> {
    let setup = fen
        .parse::<Fen>()
        .map_err(|e| format!("FEN '{fen}': {e}"))?
        .into_setup();
    position_from_setup(setup).map_err(|e| format!("FEN '{fen}': {e}"))
}

#[derive(Debug, PartialEq, Eq)]
enum Token<'a> {
    Move(&'a str),
    Comment(&'a str),
    Result(&'static str),
}

/// Moves, comments and the result of a game's movetext; move numbers,
/// annotation glyphs, NAGs and variations are dropped.
fn tokenize(text: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut variation_depth = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'{' {
            let end = text[i..].find('}').map_or(text.len(), |e| i + e);
            if variation_depth == 0 {
                tokens.push(Token::Comment(&text[i + 1..end]));
            }
            i = end + 1;
        } else if c == b'(' {
            variation_depth += 1;
            i += 1;
        } else if c == b')' {
            variation_depth = (variation_depth - 1).max(0);
            i += 1;
        } else {
            let end = text[i..]
                .find(|c: char| c.is_whitespace() || "{}()".contains(c))
                .map_or(text.len(), |e| i + e);
            let word = &text[i..end];
            i = end;
            if variation_depth > 0 || word.starts_with('$') {
                continue;
            }
            if let Some(result) = ["1-0", "0-1", "1/2-1/2", "*"]
                .into_iter()
                .find(|r| *r == word)
            {
                tokens.push(Token::Result(result));
                continue;
            }
            // "12." "12..." "1.e4": the number goes, the move stays.
            let san = word
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start_matches('.')
                .trim_end_matches(['!', '?']);
            if !san.is_empty() {
                tokens.push(Token::Move(san));
            }
        }
    }
    tokens
}

/// The score at the start of a comment, in the search's units for the side
/// that moved: `+0.35`, `-1.20/14 ...`, `+M5` (mates in 5 moves), `-M3` (is
/// mated in 3). None for comments without one (`book`, a time alone).
///
/// GUIs write the score the engine printed, and Lasker prints normalised
/// pawns (`score::NORMALISED_PAWN` of its own units each, 100 cp a 50%
/// chance to win); training data holds the search's units, as datagen
/// writes them, so a pawn here is `NORMALISED_PAWN` of them.
pub fn parse_score(comment: &str) -> Option<i16> {
    let token = comment
        .trim()
        .split(|c: char| c.is_whitespace() || c == '/' || c == ',')
        .next()?;
    let (negative, unsigned) = match token.as_bytes().first()? {
        b'-' => (true, &token[1..]),
        b'+' => (false, &token[1..]),
        _ => (false, token),
    };
    let magnitude = if let Some(moves) = unsigned.strip_prefix('M') {
        let moves: i32 = moves.parse().ok()?;
        // Mate in n moves is 2n - 1 plies away; mated in n, 2n.
        if negative {
            MATE - 2 * moves
        } else {
            MATE - (2 * moves - 1)
        }
    } else {
        if !unsigned.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return None;
        }
        let pawns: f64 = unsigned.parse().ok()?;
        (pawns * f64::from(NORMALISED_PAWN))
            .round()
            .min(f64::from(i16::MAX)) as i32
    };
    let score = if negative { -magnitude } else { magnitude };
    Some(score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lasker::score::MATE_BOUND;

    fn read(text: &str) -> (Vec<Game>, PgnSummary) {
        let mut games = Vec::new();
        let summary = read_pgn(&mut text.as_bytes(), |g| games.push(g)).unwrap();
        (games, summary)
    }

    /// Normalised pawns in the search's units, rounded half away from
    /// zero: whatever the unit, a pawn is NORMALISED_PAWN of them.
    fn units(pawns: f64) -> i16 {
        (pawns * f64::from(NORMALISED_PAWN)).round() as i16
    }

    #[test]
    fn scores_are_read_from_the_comment_formats_in_use() {
        assert_eq!(parse_score("+0.35/12 0.123s"), Some(units(0.35)));
        assert_eq!(
            parse_score(" -1.20/14, 0.5s, 1234 nodes"),
            Some(units(-1.2))
        );
        assert_eq!(parse_score("+0.35"), Some(units(0.35)));
        assert_eq!(parse_score("-0.07 12/15 123 45678"), Some(units(-0.07)));
        assert_eq!(parse_score("+1.00"), Some(NORMALISED_PAWN as i16));
        assert_eq!(parse_score("-2.00"), Some(-2 * NORMALISED_PAWN as i16));
        assert_eq!(parse_score("0.00/1 0s"), Some(0));
        assert_eq!(parse_score("+M5/20 0.1s"), Some((MATE - 9) as i16));
        assert_eq!(parse_score("-M3/20"), Some((6 - MATE) as i16));
        assert!(i32::from(parse_score("-M3").unwrap()).abs() >= MATE_BOUND);
        assert_eq!(parse_score("+999.00/3"), Some(i16::MAX));
        for none in ["book", "", "0.123s", "White mates", "+/12", "M/3", "-"] {
            assert_eq!(parse_score(none), None, "{none}");
        }
    }

    const CUTECHESS: &str = r#"[Event "?"]
[White "a"]
[Black "b"]
[Result "0-1"]
[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
[SetUp "1"]

1. e4 {book} e5 {book} 2. Nf3 {+0.30/10 0.012s} Nc6 {-0.25/9 0.010s}
3. Bb5 {+0.41/11 0.011s} a6 {-0.38/10
0.010s} 4. Ba4 Nf6 {-0.20/9 0.008s} 5. O-O {+0.15/9 0.009s} (5. Qe2 {+0.5}) Be7 $1 {-0.10/10 0.013s}
0-1

[Event "?"]
[Result "*"]

1. d4 {+0.2/1} d5 {-0.1/1} *
"#;

    #[test]
    fn a_game_is_cut_at_unscored_moves_and_variations_are_skipped() {
        let (games, summary) = read(CUTECHESS);
        assert_eq!(summary.games, 2);
        assert_eq!(summary.unfinished, 1);
        assert_eq!(summary.rejected, 0);
        assert_eq!(summary.converted, 2);
        // The book moves are skipped; 4. Ba4 has no score: two games.
        let uci = |g: &Game| {
            g.plies
                .iter()
                .map(|(m, s)| (m.to_uci(shakmaty::CastlingMode::Standard).to_string(), *s))
                .collect::<Vec<_>>()
        };
        // The PGN's centipawns, in the search's units.
        let s = |m: &str, cp: i32| (m.to_string(), units(f64::from(cp) / 100.0));
        assert_eq!(
            uci(&games[0]),
            [s("g1f3", 30), s("b8c6", -25), s("f1b5", 41), s("a7a6", -38)]
        );
        assert_eq!(
            uci(&games[1]),
            [s("g8f6", -20), s("e1g1", 15), s("f8e7", -10)]
        );
        assert!(games.iter().all(|g| g.result == GameResult::BlackWins));
        // Each game starts where its first scored move was played.
        let fen = |pos: &Chess| Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string();
        assert_eq!(
            fen(&games[0].start),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        assert_eq!(games[1].start.turn(), shakmaty::Color::Black);
    }

    #[test]
    fn bad_games_are_skipped_and_counted() {
        let text = "[Result \"1-0\"]\n\n1. e4 {+0.1/1} e5 {+0.1/1} 2. Qxf7 {+1/1} 1-0\n\n\
                    [Result \"1-0\"]\n[FEN \"not a fen\"]\n\n1. e4 {+1/1} 1-0\n\n\
                    [Result \"1/2-1/2\"]\n[Variant \"atomic\"]\n\n1. e4 {+1/1} 1/2-1/2\n\n\
                    [Result \"1/2-1/2\"]\n\n1. d4 {+0.1/1} d5 {-0.2/2} 1/2-1/2\n";
        let (games, summary) = read(text);
        assert_eq!((summary.games, summary.rejected), (4, 3));
        assert!(summary.first_error.unwrap().contains("Qxf7"));
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].plies.len(), 2);
        assert_eq!(games[0].result, GameResult::Draw);
    }
}
