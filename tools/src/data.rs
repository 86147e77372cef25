//! Training data files: which format a file is, the positions the trainer
//! learns from (read from any format, filtered as they load), and `lasker
//! convert` between the formats.
//!
//! A file's name says its format: `.vf` games (`viriformat`, what `datagen`
//! writes), `.bin` 32-byte records (`trainingdata`, what `datagen` wrote
//! before), `.pgn` games with engine scores in comments (`pgn`: fastchess,
//! cutechess, OpenBench). Neither binary format has a header to tell them
//! apart, so the name is the only safe sign.
//!
//! Games keep every ply; the filters choose at load time what is learned
//! from: not a position in check, nor one whose move played was a capture
//! or promotion (its score is about a tactic the net can't see), nor a mate
//! or tablebase score (not an evaluation). Records were filtered when they
//! were written; on load they lose only positions in check and decided
//! scores (their move is not stored).

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use shakmaty::{Chess, Color, Move, Position as _};

use super::pgn;
use super::trainingdata::{self, ChessBoard};
use super::viriformat::{self, Game};
use lasker::rng::mix;
use lasker::score::TB_WIN_BOUND;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.vf`: viriformat games.
    Games,
    /// `.bin`: 32-byte bulletformat records.
    Records,
    /// `.pgn`: games with engine scores in comments (read only).
    Pgn,
}

impl Format {
    pub fn of(path: &Path) -> Result<Format, String> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("vf") => Ok(Format::Games),
            Some("bin") => Ok(Format::Records),
            Some("pgn") => Ok(Format::Pgn),
            _ => Err(format!(
                "{}: the name must end in .vf (viriformat games), .bin (32-byte records) \
                 or .pgn (games with engine scores)",
                path.display()
            )),
        }
    }
}

/// Why a position is not learned from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    InCheck,
    /// The move played was a capture or a promotion.
    Noisy,
    /// A mate or tablebase score.
    Decided,
}

/// Whether the position `pos`, where `played` was played after a search
/// scored it `score` (side to move), is left out of training, and why.
pub fn skip(pos: &Chess, played: Move, score: i16) -> Option<Skip> {
    if pos.is_check() {
        Some(Skip::InCheck)
    } else if played.is_capture() || played.is_promotion() {
        Some(Skip::Noisy)
    } else if i32::from(score).abs() >= TB_WIN_BOUND {
        Some(Skip::Decided)
    } else {
        None
    }
}

/// The positions of a game that training uses, with their side-to-move
/// scores.
pub fn training_positions(game: &Game) -> impl Iterator<Item = (Chess, i16)> + '_ {
    game.positions()
        .filter(|(pos, m, score)| skip(pos, *m, *score).is_none())
        .map(|(pos, _, score)| (pos, score))
}

/// Keeps the first record of each position as the net sees it (the board
/// from the side to move's view; the score and result are the first
/// record's), in order, and returns how many were removed. Positions are
/// told apart by a 64-bit hash of the board: with 100 M positions the
/// chance that two different ones collide is under 1 in 3,000.
pub fn remove_duplicates(records: &mut Vec<ChessBoard>) -> usize {
    let before = records.len();
    let mut seen = std::collections::HashSet::with_capacity(before);
    records.retain(|record| seen.insert(board_hash(record)));
    before - records.len()
}

/// A hash of a record's board (occupancy and pieces, side-to-move
/// relative).
fn board_hash(record: &ChessBoard) -> u64 {
    let pieces = u128::from_le_bytes(record.pcs);
    mix(mix(mix(record.occ) ^ pieces as u64) ^ (pieces >> 64) as u64)
}

/// Positions left out while loading, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    pub in_check: u64,
    pub noisy: u64,
    pub decided: u64,
}

impl Skipped {
    fn count(&mut self, why: Skip) {
        match why {
            Skip::InCheck => self.in_check += 1,
            Skip::Noisy => self.noisy += 1,
            Skip::Decided => self.decided += 1,
        }
    }
}

/// What a file gave the trainer.
#[derive(Debug, Default)]
pub struct Loaded {
    pub records: Vec<ChessBoard>,
    /// Games read (None for a file of records).
    pub games: Option<u64>,
    pub skipped: Skipped,
    /// Why the file was read only in part (damage at its end).
    pub warning: Option<String>,
}

impl Loaded {
    /// One line for the log: what was read and left out.
    pub fn summary(&self, path: &Path) -> String {
        let games = self.games.map_or(String::new(), |g| format!("{g} games, "));
        let s = &self.skipped;
        format!(
            "{}: {games}{} positions (left out: {} in check, {} noisy, {} mate or tablebase scores)",
            path.display(),
            self.records.len(),
            s.in_check,
            s.noisy,
            s.decided
        )
    }

    /// Adds a game's training positions as records.
    fn add_game(&mut self, game: &Game) {
        for (pos, m, score) in game.positions() {
            match skip(&pos, m, score) {
                Some(why) => self.skipped.count(why),
                None => self
                    .records
                    .push(trainingdata::encode(&pos, score, game.result)),
            }
        }
        *self.games.get_or_insert(0) += 1;
    }
}

/// The training positions of a file in any format, filtered. A file damaged
/// at its end is read up to the damage, with a warning in `Loaded`.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let mut loaded = Loaded::default();
    let fail = |e: io::Error| format!("{}: {e}", path.display());
    match Format::of(path)? {
        Format::Games => {
            loaded.games = Some(0);
            let summary = viriformat::read_file(path, |g| loaded.add_game(&g)).map_err(fail)?;
            loaded.warning = summary.damage.map(|d| {
                format!(
                    "{} {d}: read its {} whole games, ignored the rest",
                    path.display(),
                    summary.games
                )
            });
        }
        Format::Pgn => {
            loaded.games = Some(0);
            let summary = pgn::read_file(path, |g| loaded.add_game(&g)).map_err(fail)?;
            loaded.warning = summary.warning(path);
        }
        Format::Records => {
            let file = trainingdata::read_file(path).map_err(fail)?;
            for record in file.records {
                match record_skip(&record) {
                    Some(why) => loaded.skipped.count(why),
                    None => loaded.records.push(record),
                }
            }
            if file.trailing_bytes != 0 {
                loaded.warning = Some(format!(
                    "{} ends in a partial record ({} bytes), ignored",
                    path.display(),
                    file.trailing_bytes
                ));
            }
        }
    }
    Ok(loaded)
}

/// The filters a record allows: its move is not stored, so only check and
/// decided scores.
fn record_skip(record: &ChessBoard) -> Option<Skip> {
    if i32::from(record.score).abs() >= TB_WIN_BOUND {
        return Some(Skip::Decided);
    }
    // The record's side to move is White.
    let board = trainingdata::decode_board(record);
    let king = board.king_of(Color::White)?;
    board
        .attacks_to(king, Color::Black, board.occupied())
        .any()
        .then_some(Skip::InCheck)
}

pub const CONVERT_USAGE: &str =
    "usage: lasker-tools convert --out FILE.vf|FILE.bin INPUT [INPUT ...]
  Converts training data: each INPUT is .vf (viriformat games), .bin (32-byte records) or
  .pgn (games with engine scores in comments, as fastchess, cutechess and OpenBench write).
  To .vf: games, every ply kept (from .vf or .pgn; records have no moves to make games of).
  To .bin: the positions training uses (not in check, no capture or promotion played, no mate
  or tablebase score), as the trainer would load them. FILE must not exist yet.";

/// `lasker-tools convert`: reads the inputs, writes FILE (aside, then renamed, so
/// that a stopped run leaves no half file under the name).
pub fn convert(args: &[String]) -> Result<(), String> {
    let mut out = None;
    let mut inputs = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--out" => {
                out =
                    Some(PathBuf::from(it.next().ok_or_else(|| {
                        format!("--out needs a value\n{CONVERT_USAGE}")
                    })?))
            }
            flag if flag.starts_with("--") => {
                return Err(format!("unknown flag '{flag}'\n{CONVERT_USAGE}"));
            }
            input => inputs.push(PathBuf::from(input)),
        }
    }
    let out = out.ok_or_else(|| format!("--out is required\n{CONVERT_USAGE}"))?;
    if inputs.is_empty() {
        return Err(format!("no input files\n{CONVERT_USAGE}"));
    }
    let out_format = Format::of(&out)?;
    if out_format == Format::Pgn {
        return Err("convert writes .vf or .bin, not PGN".into());
    }
    for input in &inputs {
        let format = Format::of(input)?;
        if out_format == Format::Games && format == Format::Records {
            return Err(format!(
                "{}: 32-byte records hold no moves, so they can't become games; \
                 the trainer reads them as they are",
                input.display()
            ));
        }
    }
    if out.exists() {
        return Err(format!(
            "{} exists: convert writes a new file, never over data",
            out.display()
        ));
    }
    let partial = out.with_extension("partial");
    let written = write_converted(&inputs, out_format, &partial);
    match written {
        Ok((games, positions, bytes)) => {
            fs::rename(&partial, &out).map_err(|e| format!("{}: {e}", out.display()))?;
            let games = games.map_or(String::new(), |g| format!("{g} games, "));
            eprintln!(
                "wrote {}: {games}{positions} positions, {bytes} bytes",
                out.display()
            );
            Ok(())
        }
        Err(e) => {
            let _ = fs::remove_file(&partial);
            Err(e)
        }
    }
}

/// Writes every input to `path`; returns the games (when writing games),
/// the positions and the bytes written.
fn write_converted(
    inputs: &[PathBuf],
    out_format: Format,
    path: &Path,
) -> Result<(Option<u64>, u64, u64), String> {
    let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    let write_error = |e: io::Error| format!("writing {}: {e}", path.display());
    let (mut games, mut positions, mut bytes) = (0u64, 0u64, 0u64);
    for input in inputs {
        if out_format == Format::Records {
            let loaded = load(input)?;
            eprintln!("{}", loaded.summary(input));
            if let Some(warning) = &loaded.warning {
                eprintln!("warning: {warning}");
            }
            for record in &loaded.records {
                writer
                    .write_all(&trainingdata::to_bytes(record))
                    .map_err(write_error)?;
            }
            positions += loaded.records.len() as u64;
            bytes += (loaded.records.len() * trainingdata::RECORD_BYTES) as u64;
            continue;
        }
        // Games to games, one at a time.
        let mut buffer = Vec::new();
        let mut failed = None;
        let (mut in_games, mut in_plies) = (0u64, 0u64);
        let mut write_game = |game: Game| {
            if failed.is_some() {
                return;
            }
            buffer.clear();
            let written = game
                .write_to(&mut buffer)
                .and_then(|()| writer.write_all(&buffer));
            match written {
                Ok(()) => {
                    in_games += 1;
                    in_plies += game.plies.len() as u64;
                    bytes += buffer.len() as u64;
                }
                Err(e) => failed = Some(write_error(e)),
            }
        };
        let fail = |e: io::Error| format!("{}: {e}", input.display());
        let warning = match Format::of(input)? {
            Format::Games => {
                let summary = viriformat::read_file(input, &mut write_game).map_err(fail)?;
                summary.damage.map(|d| {
                    format!(
                        "{} {d}: read its {} whole games, ignored the rest",
                        input.display(),
                        summary.games
                    )
                })
            }
            Format::Pgn => pgn::read_file(input, &mut write_game)
                .map_err(fail)?
                .warning(input),
            Format::Records => {
                return Err(format!("{}: records can't become games", input.display()));
            }
        };
        if let Some(e) = failed {
            return Err(e);
        }
        eprintln!("{}: {in_games} games, {in_plies} plies", input.display());
        if let Some(warning) = warning {
            eprintln!("warning: {warning}");
        }
        games += in_games;
        positions += in_plies;
    }
    writer.flush().map_err(write_error)?;
    Ok((
        (out_format == Format::Games).then_some(games),
        positions,
        bytes,
    ))
}

/// Reads a whole file of games (for tests and small files).
pub fn read_games(path: &Path) -> Result<(Vec<Game>, viriformat::ReadSummary), String> {
    let mut games = Vec::new();
    let mut reader = BufReader::new(File::open(path).map_err(|e| format!("{e}"))?);
    let summary = viriformat::read_games(&mut reader, |g| games.push(g))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((games, summary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen;
    use crate::test_support::chess;
    use crate::trainingdata::GameResult;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lasker-data-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn self_play(path: &Path, games: u64) {
        let config = datagen::Config {
            out: path.to_path_buf(),
            nodes: 300,
            games: Some(games),
            threads: 2,
            ..datagen::Config::default()
        };
        datagen::run(&config).unwrap();
    }

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    /// A position's first record stays, later ones go, whatever their score
    /// or result; the same board with the colours swapped and Black to move
    /// is the same position to the net.
    #[test]
    fn duplicates_keep_their_first_record() {
        use crate::trainingdata::encode;
        let start = chess("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let other = chess("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1");
        // `start` seen from the other side: colours swapped, board flipped.
        let swapped = chess("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let mut records = vec![
            encode(&start, 30, GameResult::Draw),
            encode(&other, 20, GameResult::Draw),
            encode(&start, -10, GameResult::WhiteWins),
            encode(&swapped, 15, GameResult::BlackWins),
            encode(&other, 20, GameResult::Draw),
        ];
        assert_eq!(remove_duplicates(&mut records), 3);
        assert_eq!(
            records,
            vec![
                encode(&start, 30, GameResult::Draw),
                encode(&other, 20, GameResult::Draw)
            ]
        );
        assert_eq!(remove_duplicates(&mut records), 0);
    }

    #[test]
    fn the_filters_leave_out_checks_tactics_and_decided_scores() {
        let pos = chess("rnbqkbnr/ppp2ppp/8/3pp3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3");
        let uci = |s: &str| {
            s.parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap()
        };
        assert_eq!(skip(&pos, uci("f1c4"), 50), None);
        assert_eq!(skip(&pos, uci("e4d5"), 50), Some(Skip::Noisy));
        assert_eq!(skip(&pos, uci("f3e5"), 50), Some(Skip::Noisy));
        assert_eq!(skip(&pos, uci("f1c4"), 31_900), Some(Skip::Decided));
        assert_eq!(skip(&pos, uci("f1c4"), -31_900), Some(Skip::Decided));
        let check = chess("rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3");
        let block = "c7c6".parse::<shakmaty::uci::UciMove>().unwrap();
        assert_eq!(
            skip(&check, block.to_move(&check).unwrap(), 0),
            Some(Skip::InCheck)
        );
        // Records: their move is unknown, check and score are not.
        let quiet = trainingdata::encode(&pos, 50, GameResult::Draw);
        assert_eq!(record_skip(&quiet), None);
        let mated = trainingdata::encode(&pos, -31_950, GameResult::Draw);
        assert_eq!(record_skip(&mated), Some(Skip::Decided));
        // Black in check, seen from Black's side as the record sees it.
        let in_check = trainingdata::encode(&check, 0, GameResult::Draw);
        assert_eq!(record_skip(&in_check), Some(Skip::InCheck));
    }

    #[test]
    fn a_truncated_game_file_loads_its_whole_games_with_a_warning() {
        let dir = scratch("truncated");
        let path = dir.join("games.vf");
        self_play(&path, 4);
        let (games, _) = read_games(&path).unwrap();
        let whole = load(&path).unwrap();
        assert!(whole.warning.is_none());
        assert_eq!(whole.games, Some(games.len() as u64));

        // Cut the last game short, as a kill mid-write would.
        let bytes = fs::read(&path).unwrap();
        let last = games.last().unwrap().byte_len();
        let cut = dir.join("cut.vf");
        fs::write(&cut, &bytes[..bytes.len() - last / 2]).unwrap();
        let loaded = load(&cut).unwrap();
        assert_eq!(loaded.games, Some(games.len() as u64 - 1));
        let kept: usize = games[..games.len() - 1]
            .iter()
            .map(|g| training_positions(g).count())
            .sum();
        assert_eq!(loaded.records, whole.records[..kept]);
        let warning = loaded.warning.unwrap();
        assert!(warning.contains("ends inside a game"), "{warning}");

        // `convert` mends it: the whole games, rewritten byte for byte.
        let mended = dir.join("mended.vf");
        convert(&args(&format!(
            "--out {} {}",
            mended.display(),
            cut.display()
        )))
        .unwrap();
        assert_eq!(
            fs::read(&mended).unwrap(),
            bytes[..bytes.len() - last].to_vec()
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn convert_refuses_what_it_cannot_do() {
        let dir = scratch("refuse");
        let games = dir.join("g.vf");
        self_play(&games, 1);
        let records = dir.join("r.bin");
        let run = |s: String| convert(&args(&s));
        run(format!("--out {} {}", records.display(), games.display())).unwrap();
        // Records have no moves to make games of.
        let back = dir.join("back.vf");
        let e = run(format!("--out {} {}", back.display(), records.display())).unwrap_err();
        assert!(e.contains("no moves"), "{e}");
        assert!(!back.exists());
        // Never over an existing file.
        let e = run(format!("--out {} {}", records.display(), games.display())).unwrap_err();
        assert!(e.contains("exists"), "{e}");
        for bad in [
            format!("--out {}/x.txt {}", dir.display(), games.display()),
            format!("--out {}/x.pgn {}", dir.display(), games.display()),
            format!("--out {}/x.vf", dir.display()),
            format!("{}", games.display()),
            format!("--out {}/x.vf {}/missing.vf", dir.display(), dir.display()),
            format!(
                "--out {}/x.vf --colour blue {}",
                dir.display(),
                games.display()
            ),
        ] {
            assert!(run(bad.clone()).is_err(), "{bad}");
        }
        // A failed conversion leaves no file behind, partial or not.
        assert!(!dir.join("x.vf").exists() && !dir.join("x.partial").exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
