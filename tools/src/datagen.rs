//! `lasker-tools datagen`: self-play games that become training data for the
//! evaluation network.
//!
//! Each thread plays its own games, one search at a time: from the start
//! position or, for a share of games, a double Fischer random (DFRC) one,
//! 8 or 9 random legal plies (an opening the first search finds beyond
//! ±1000 cp is dropped), then a search a move with a soft node limit whose
//! last iteration runs to its end. The game is recorded from ply 16 on:
//! every ply's move and search score, and, when the game ends by the rules
//! or by adjudication, its result, appended to the output file
//! (`viriformat` describes the format; `data` says which positions training
//! takes from it). Breadth comes from the random plies and the DFRC starts,
//! depth from the node budget; the plies before 16 are too close to the
//! random opening to teach anything but its accidents.
//!
//! Runs are reproducible per thread: thread `i` of seed `S` plays the same
//! games whatever the other threads do.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Color, Position as _};

use crate::data::{self, Format};
use crate::trainingdata::GameResult;
use crate::viriformat::Game;
use lasker::nnue::{self, Network};
use lasker::position::Position;
use lasker::rng::Rng;
use lasker::search::{MATE_BOUND, SearchMemory};
use lasker::selfplay::{self, MAX_OPENING_SCORE, NodeBudget};
use lasker::tablebase::{self, Syzygy, TbSettings, Wdl};
use lasker::tt::TranspositionTable;

/// What to generate; `USAGE` lists the flags.
#[derive(Clone, Debug)]
pub struct Config {
    pub out: PathBuf,
    pub threads: usize,
    pub seed: u64,
    /// Soft node limit of each move's search: no iteration starts after it.
    pub nodes: u64,
    /// Hard node limit of each move's search (`HARD_NODES_FACTOR` × `nodes`
    /// if `None`).
    pub max_nodes: Option<u64>,
    /// The iteration running at `nodes` searches every root move (true),
    /// or ends at its first exactly scored best move (false: cheaper,
    /// shallower labels).
    pub finish_iteration: bool,
    /// Stop once this many positions (or games) are written; neither: run
    /// until killed.
    pub positions: Option<u64>,
    pub games: Option<u64>,
    /// Random plies of an opening: from the first to the second, uniformly.
    pub random_plies: (usize, usize),
    /// Percent of games from a DFRC start instead of the start position.
    pub dfrc_percent: u32,
    /// The first ply recorded (plies counted from the start position).
    pub record_from_ply: usize,
    /// Each thread's hash table. Searches of a few thousand nodes need
    /// little, and a small table stays in the cache: 2 MB made 17% more
    /// positions a second than 16 MB (docs/evaluation.md).
    pub hash_mb: usize,
    pub progress_every: Duration,
    /// The net the games are played with (the embedded one by default).
    pub net: Arc<Network>,
    /// Endgame tablebases: a game that reaches them ends with their verdict.
    pub syzygy: Option<Syzygy>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            out: PathBuf::from("data.vf"),
            threads: 1,
            seed: 1,
            nodes: DEFAULT_NODES,
            max_nodes: None,
            finish_iteration: true,
            positions: None,
            games: None,
            random_plies: (8, 9),
            dfrc_percent: 10,
            record_from_ply: 16,
            hash_mb: 2,
            progress_every: Duration::from_secs(5),
            net: nnue::embedded(),
            syzygy: None,
        }
    }
}

/// The soft node limit of a move's search: the strong engines' 5,000
/// (Viridithas, Stormphrax), deeper labels than the 2,000 Lasker's nets to
/// 25 learned from.
pub const DEFAULT_NODES: u64 = 5_000;

/// The hard node limit as a multiple of the soft one: high enough that
/// the last iteration nearly always finishes.
pub const HARD_NODES_FACTOR: u64 = 8;

pub const USAGE: &str =
    "usage: lasker-tools datagen --out FILE [--threads N] [--seed S] [--nodes N]
                      [--max-nodes N] [--cut-iteration] [--positions N | --games N]
                      [--random-plies N[-M]] [--dfrc PERCENT] [--record-from-ply N]
                      [--hash MB] [--net embedded|FILE] [--syzygy PATH]
  Self-play games; appends them to FILE.vf (viriformat: a start position, then a move and a
  score per ply, about 4 bytes a position; `lasker-tools convert` makes 32-byte records of them).
  --nodes: soft node limit per move: no iteration starts past it (default 5000); --max-nodes:
  hard limit (default 8 x --nodes); --cut-iteration: end the last iteration at its first
  exactly scored best move instead of finishing it (cheaper, shallower).
  --random-plies: opening plies, N or a range N-M (default 8-9); --dfrc: percent of games
  from a double Fischer random start (default 10); --record-from-ply: the first ply written
  (default 16); --hash: MB of hash table per thread (default 2).
  --net: play with this evaluation network (default: the one built into lasker).
  --syzygy: tablebase folders (as SyzygyPath): a game that reaches them ends with their verdict.
  Without --positions or --games it runs until killed (Ctrl-C loses at most the games in play).";

impl Config {
    pub fn from_args(args: &[String]) -> Result<Config, String> {
        let mut config = Config::default();
        let mut out = None;
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let mut value = || {
                it.next()
                    .ok_or_else(|| format!("{flag} needs a value"))
                    .cloned()
            };
            fn number<T: std::str::FromStr>(flag: &str, v: String) -> Result<T, String> {
                v.parse()
                    .map_err(|_| format!("{flag}: '{v}' is not a valid number"))
            }
            match flag.as_str() {
                "--out" => out = Some(PathBuf::from(value()?)),
                "--threads" => config.threads = number(flag, value()?)?,
                "--seed" => config.seed = number(flag, value()?)?,
                "--nodes" => config.nodes = number(flag, value()?)?,
                "--max-nodes" => config.max_nodes = Some(number(flag, value()?)?),
                "--positions" => config.positions = Some(number(flag, value()?)?),
                "--games" => config.games = Some(number(flag, value()?)?),
                "--cut-iteration" => config.finish_iteration = false,
                "--random-plies" => {
                    let v = value()?;
                    config.random_plies = match v.split_once('-') {
                        Some((low, high)) => (
                            number(flag, low.to_string())?,
                            number(flag, high.to_string())?,
                        ),
                        None => {
                            let n = number(flag, v)?;
                            (n, n)
                        }
                    };
                }
                "--dfrc" => config.dfrc_percent = number(flag, value()?)?,
                "--record-from-ply" => config.record_from_ply = number(flag, value()?)?,
                "--hash" => config.hash_mb = number(flag, value()?)?,
                "--net" => {
                    config.net = match value()?.as_str() {
                        "embedded" => nnue::embedded(),
                        path => Arc::new(Network::load(Path::new(path)).map_err(|e| e.0)?),
                    }
                }
                "--syzygy" => config.syzygy = Some(load_tablebases(&value()?)?),
                _ => return Err(format!("unknown flag '{flag}'\n{USAGE}")),
            }
        }
        config.out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
        if Format::of(&config.out) != Ok(Format::Games) {
            return Err(format!(
                "--out {}: datagen writes games, so the name must end in .vf",
                config.out.display()
            ));
        }
        if config.threads == 0 || config.threads > 1024 {
            return Err("--threads must be in 1..1024".into());
        }
        if config.nodes == 0 || config.hash_mb == 0 {
            return Err("--nodes and --hash must be positive".into());
        }
        if config.max_nodes() < config.nodes {
            return Err("--max-nodes must be at least --nodes".into());
        }
        if config.random_plies.0 > config.random_plies.1 {
            return Err("--random-plies: a range is low-high".into());
        }
        if config.dfrc_percent > 100 {
            return Err("--dfrc is a percentage: 0..100".into());
        }
        Ok(config)
    }

    /// What one move's search may spend.
    pub fn budget(&self) -> NodeBudget {
        NodeBudget {
            soft: self.nodes,
            hard: self.max_nodes(),
            finish_iteration: self.finish_iteration,
        }
    }

    /// The hard node limit of a move's search.
    pub fn max_nodes(&self) -> u64 {
        self.max_nodes
            .unwrap_or(self.nodes.saturating_mul(HARD_NODES_FACTOR))
    }
}

/// The tables of `--syzygy`: all of them must load.
fn load_tablebases(path: &str) -> Result<Syzygy, String> {
    let loaded = tablebase::load(path);
    if let Some(error) = loaded.errors.first() {
        return Err(format!("--syzygy: {error}"));
    }
    loaded
        .tables
        .and_then(|tables| Syzygy::new(Arc::new(tables), TbSettings::default()))
        .ok_or_else(|| format!("--syzygy: no tables in '{path}'"))
}

/// Counters shared by the threads, read by the progress line.
#[derive(Default)]
pub struct Totals {
    pub games: AtomicU64,
    pub positions: AtomicU64,
    pub white_wins: AtomicU64,
    pub draws: AtomicU64,
    pub black_wins: AtomicU64,
    /// Openings dropped because the search found them decided.
    pub dropped_openings: AtomicU64,
    /// Games the tablebases ended.
    pub tablebase_results: AtomicU64,
    /// Searches (one a ply) and their nodes, in written games: the cost of
    /// a position.
    pub searches: AtomicU64,
    pub nodes: AtomicU64,
}

impl Totals {
    fn line(&self, elapsed: Duration) -> String {
        let positions = self.positions.load(Ordering::Relaxed);
        let searches = self.searches.load(Ordering::Relaxed);
        format!(
            "games {} positions {} ({:.0}/s) nodes/move {:.0} W/D/L {}/{}/{} dropped openings {} \
             tablebase results {} time {:.0} s",
            self.games.load(Ordering::Relaxed),
            positions,
            positions as f64 / elapsed.as_secs_f64().max(1e-9),
            self.nodes.load(Ordering::Relaxed) as f64 / searches.max(1) as f64,
            self.white_wins.load(Ordering::Relaxed),
            self.draws.load(Ordering::Relaxed),
            self.black_wins.load(Ordering::Relaxed),
            self.dropped_openings.load(Ordering::Relaxed),
            self.tablebase_results.load(Ordering::Relaxed),
            elapsed.as_secs_f64(),
        )
    }
}

/// Runs a generation to its end (or until a write fails) and returns the
/// totals.
pub fn run(config: &Config) -> Result<Totals, String> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&config.out)
        .map_err(|e| format!("can't open {}: {e}", config.out.display()))?;
    let output = Mutex::new(file);
    let totals = Totals::default();
    let stop = AtomicBool::new(false);
    let error = Mutex::new(None);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for thread in 0..config.threads {
            let (output, totals, stop, error) = (&output, &totals, &stop, &error);
            scope.spawn(move || {
                if let Err(e) = generate(config, thread, output, totals, stop) {
                    stop.store(true, Ordering::SeqCst);
                    *error.lock().expect("no thread panics holding it") = Some(e);
                }
            });
        }
        let mut last = Instant::now();
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
            if last.elapsed() >= config.progress_every {
                last = Instant::now();
                eprintln!("{}", totals.line(start.elapsed()));
            }
            let done = config
                .positions
                .is_some_and(|n| totals.positions.load(Ordering::SeqCst) >= n)
                || config
                    .games
                    .is_some_and(|n| totals.games.load(Ordering::SeqCst) >= n);
            if done {
                stop.store(true, Ordering::SeqCst);
            }
        }
    });
    eprintln!("{}", totals.line(start.elapsed()));
    match error.into_inner().expect("no thread panics holding it") {
        Some(e) => Err(e),
        None => Ok(totals),
    }
}

/// A thread's games until `stop`.
fn generate(
    config: &Config,
    thread: usize,
    output: &Mutex<File>,
    totals: &Totals,
    stop: &AtomicBool,
) -> Result<(), String> {
    let tt = TranspositionTable::new(config.hash_mb)
        .map_err(|e| format!("thread {thread}: hash table: {e}"))?;
    let mut rng = Rng::with_stream(config.seed, thread as u64);
    let mut bytes = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        let mut effort = Effort::default();
        let game = match play_game(config, &tt, &mut rng, stop, &mut effort) {
            Played::Game(game) => game,
            Played::DecidedOpening => {
                totals.dropped_openings.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            Played::Stopped => break,
        };
        bytes.clear();
        let write_error = |e| format!("writing {}: {e}", config.out.display());
        game.write_to(&mut bytes).map_err(write_error)?;
        // A whole game per write: a kill loses only the games in play.
        output
            .lock()
            .expect("no thread panics holding it")
            .write_all(&bytes)
            .map_err(write_error)?;
        // Counted as training will count them (the filters of `data`).
        totals.positions.fetch_add(
            data::training_positions(&game).count() as u64,
            Ordering::SeqCst,
        );
        totals.games.fetch_add(1, Ordering::SeqCst);
        totals
            .searches
            .fetch_add(effort.searches, Ordering::Relaxed);
        totals.nodes.fetch_add(effort.nodes, Ordering::Relaxed);
        totals
            .tablebase_results
            .fetch_add(u64::from(effort.tablebase_result), Ordering::Relaxed);
        let counter = match game.result {
            GameResult::WhiteWins => &totals.white_wins,
            GameResult::Draw => &totals.draws,
            GameResult::BlackWins => &totals.black_wins,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// Adjudication: a side at least this far ahead...
const WIN_SCORE: i32 = 2_000;
/// ... for this many plies in a row (both sides agreeing) has won.
const WIN_PLIES: u32 = 4;
/// From this ply on (from the start position), scores within `DRAW_SCORE` for `DRAW_PLIES` in a row
/// are a draw.
const DRAW_FROM_PLY: usize = 80;
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: u32 = 10;
/// A game this long (plies from the start position) is a draw.
const MAX_GAME_PLIES: usize = 600;

/// How a game went.
pub enum Played {
    /// Finished: its plies from the first recorded one, and its result.
    Game(Game),
    /// The random opening was over before it began (no legal move, or the
    /// first search beyond `MAX_OPENING_SCORE`), or the game ended before
    /// its first recorded ply: dropped.
    DecidedOpening,
    /// Cut short by `stop`: not to be written.
    Stopped,
}

/// What a game's searches cost, and whether the tablebases ended it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Effort {
    pub searches: u64,
    pub nodes: u64,
    pub tablebase_result: bool,
}

/// Plays one game, adding its searches to `effort`.
pub fn play_game(
    config: &Config,
    tt: &TranspositionTable,
    rng: &mut Rng,
    stop: &AtomicBool,
    effort: &mut Effort,
) -> Played {
    let Some((mut pos, random_plies)) = random_opening(config, rng) else {
        return Played::DecidedOpening;
    };
    tt.clear();
    let mut memory = SearchMemory::default();
    // Made when the first recorded ply is reached; its result is set when
    // the game ends.
    let mut game: Option<Game> = None;
    // Keys since the last capture or pawn move, for three-fold repetition.
    let mut keys = vec![pos.key()];
    let (mut win_run, mut draw_run) = (0u32, 0u32);
    let mut last_leader = None;
    let mut ply = random_plies;
    let result = loop {
        if stop.load(Ordering::Relaxed) {
            return Played::Stopped;
        }
        if let Some(result) = result_by_rules(&pos, &keys) {
            break result;
        }
        if let Some(result) = config
            .syzygy
            .as_ref()
            .and_then(|tb| tablebase_result(tb, &pos))
        {
            effort.tablebase_result = true;
            break result;
        }
        if ply >= MAX_GAME_PLIES {
            break GameResult::Draw;
        }
        let searched = selfplay::search(pos, tt, &config.net, config.budget(), memory);
        (pos, memory) = (searched.pos, searched.memory);
        effort.searches += 1;
        effort.nodes += searched.nodes;
        let (best, score) = (searched.best, searched.score);
        let Some(best) = best else {
            break GameResult::Draw;
        };
        if ply == random_plies && score.abs() > MAX_OPENING_SCORE {
            return Played::DecidedOpening;
        }
        let us = pos.turn();
        if score.abs() >= MATE_BOUND {
            break GameResult::winner(if score > 0 { us } else { !us });
        }
        // Every ply from the first recorded, noisy or in check too: the
        // game must replay; training chooses its positions when it
        // loads them.
        if ply >= config.record_from_ply {
            game.get_or_insert_with(|| Game::new(pos.board().clone(), GameResult::Draw))
                .plies
                .push((best, score as i16));
        }
        // Adjudication, on scores from White's side.
        let white_score = if us == Color::White { score } else { -score };
        let leader = (white_score.abs() >= WIN_SCORE).then_some(white_score > 0);
        win_run = if leader.is_some() && leader == last_leader {
            win_run + 1
        } else {
            u32::from(leader.is_some())
        };
        last_leader = leader;
        if win_run >= WIN_PLIES {
            let winner = if white_score > 0 {
                Color::White
            } else {
                Color::Black
            };
            break GameResult::winner(winner);
        }
        draw_run = if ply >= DRAW_FROM_PLY && score.abs() <= DRAW_SCORE {
            draw_run + 1
        } else {
            0
        };
        if draw_run >= DRAW_PLIES {
            break GameResult::Draw;
        }
        pos.make(best);
        if pos.halfmoves() == 0 {
            keys.clear();
        }
        keys.push(pos.key());
        ply += 1;
    };
    match game {
        Some(mut game) => {
            game.result = result;
            Played::Game(game)
        }
        // Over before the first recorded ply: nothing to learn.
        None => Played::DecidedOpening,
    }
}

/// A start (DFRC for `dfrc_percent` of games) and the random plies played
/// from it, with their number; `None` where the game ended on the way.
fn random_opening(config: &Config, rng: &mut Rng) -> Option<(Position, usize)> {
    let mut pos = if rng.below(100) < config.dfrc_percent as usize {
        dfrc_start(rng)
    } else {
        Position::default()
    };
    let (fewest, most) = config.random_plies;
    let plies = fewest + rng.below(most - fewest + 1);
    selfplay::play_random_plies(&mut pos, plies, rng).then_some((pos, plies))
}

/// A double Fischer random start: each side's back rank one of Chess960's
/// 960 (bishops on squares of both colours, the king between the rooks),
/// chosen independently; castling in Chess960's manner.
pub fn dfrc_start(rng: &mut Rng) -> Position {
    let ranks = [back_rank(rng), back_rank(rng)];
    let rooks = |rank: &[char; 8]| -> String {
        let files = (0..8)
            .filter(|&f| rank[f] == 'r')
            .map(|f| (b'a' + f as u8) as char);
        files.rev().collect()
    };
    let black: String = ranks[1].iter().collect();
    let white: String = ranks[0].iter().map(|c| c.to_ascii_uppercase()).collect();
    let castling = format!("{}{}", rooks(&ranks[0]).to_uppercase(), rooks(&ranks[1]));
    let fen = format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w {castling} - 0 1");
    Position::from_fen(&fen, CastlingMode::Chess960).expect("a Chess960 start is legal")
}

/// One Chess960 back rank, files a to h, as lower-case piece letters.
fn back_rank(rng: &mut Rng) -> [char; 8] {
    let mut rank = [' '; 8];
    rank[2 * rng.below(4)] = 'b';
    rank[2 * rng.below(4) + 1] = 'b';
    for piece in ['q', 'n', 'n'] {
        let free: Vec<usize> = (0..8).filter(|&f| rank[f] == ' ').collect();
        rank[free[rng.below(free.len())]] = piece;
    }
    for (f, piece) in (0..8)
        .filter(|&f| rank[f] == ' ')
        .collect::<Vec<_>>()
        .into_iter()
        .zip(['r', 'k', 'r'])
    {
        rank[f] = piece;
    }
    rank
}

/// The tables' verdict on a game that has just entered them (a capture or
/// a pawn move: the fifty-move counter is zero, so the verdict is exact,
/// the fifty-move rule included): a cursed win or a blessed loss is a
/// draw.
fn tablebase_result(tb: &Syzygy, pos: &Position) -> Option<GameResult> {
    if pos.halfmoves() != 0 || pos.piece_count() > tb.max_pieces() {
        return None;
    }
    let us = pos.turn();
    Some(match tb.probe_wdl(pos.board())? {
        Wdl::Win => GameResult::winner(us),
        Wdl::Loss => GameResult::winner(!us),
        Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss => GameResult::Draw,
    })
}

/// Checkmate, stalemate, insufficient material, the fifty-move rule and
/// three-fold repetition.
fn result_by_rules(pos: &Position, keys: &[u64]) -> Option<GameResult> {
    let board = pos.board();
    if board.legal_moves().is_empty() {
        return Some(if board.is_check() {
            GameResult::winner(!board.turn())
        } else {
            GameResult::Draw
        });
    }
    let repetitions = keys.iter().filter(|&&k| k == pos.key()).count();
    (board.is_insufficient_material() || board.halfmoves() >= 100 || repetitions >= 3)
        .then_some(GameResult::Draw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn small_config() -> Config {
        Config {
            nodes: 400,
            ..Config::default()
        }
    }

    fn games(seed: u64, count: usize) -> Vec<Game> {
        let tt = TranspositionTable::new(1).unwrap();
        let mut rng = Rng::new(seed);
        let stop = AtomicBool::new(false);
        let mut effort = Effort::default();
        std::iter::from_fn(
            || match play_game(&small_config(), &tt, &mut rng, &stop, &mut effort) {
                Played::Game(game) => Some(Some(game)),
                Played::DecidedOpening => Some(None),
                Played::Stopped => None,
            },
        )
        .flatten()
        .take(count)
        .collect()
    }

    #[test]
    fn games_repeat_from_their_seed() {
        let (a, b) = (games(7, 2), games(7, 2));
        assert_eq!(a, b);
        assert_ne!(games(8, 1)[0], a[0]);
    }

    #[test]
    fn records_decode_to_legal_positions_scored_for_the_side_to_move() {
        let (mut strong, mut disagree) = (0, 0);
        for game in games(11, 3) {
            let positions: Vec<_> = data::training_positions(&game).collect();
            assert!(!positions.is_empty());
            assert!(positions.len() < game.plies.len(), "some plies are noisy");
            for (pos, score) in &positions {
                assert!(!pos.is_check(), "positions in check are skipped");
                assert!(i32::from(score.abs()) < MATE_BOUND, "no mate scores");
                let record = crate::trainingdata::encode(pos, *score, game.result);
                assert_eq!(record.score, *score);
                let expected_result = match (game.result, pos.turn()) {
                    (GameResult::Draw, _) => 1,
                    (GameResult::WhiteWins, Color::White)
                    | (GameResult::BlackWins, Color::Black) => 2,
                    _ => 0,
                };
                assert_eq!(record.result, expected_result);
                // The decoded board, White (= the side to move) to move, is
                // a legal position ...
                let board = crate::trainingdata::decode_board(&record);
                let fen = format!("{board} w - - 0 1");
                let decoded = Position::from_fen(&fen, CastlingMode::Standard)
                    .unwrap_or_else(|e| panic!("{e}"));
                // ... whose evaluation agrees in sign with the record's
                // score where the search saw a clear advantage. The net can
                // miss what the search saw (a pawn about to queen), so a few
                // may disagree; a score kept for the wrong side would make
                // most of them disagree.
                if score.abs() > 300 {
                    strong += 1;
                    let eval = decoded_eval(&decoded);
                    if eval.signum() != i32::from(score.signum()) && eval.abs() >= 100 {
                        log::info!(
                            "score {score} but evaluation {eval} for {fen} (from {})",
                            Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
                        );
                        disagree += 1;
                    }
                }
            }
        }
        assert!(strong >= 20, "{strong} positions had a clear advantage");
        assert!(
            disagree * 10 <= strong,
            "{disagree} of {strong} clear scores disagree with the net"
        );
    }

    /// The embedded net's score of a decoded record's position.
    fn decoded_eval(pos: &Position) -> i32 {
        nnue::embedded().evaluate_board(pos.board().board(), pos.turn())
    }

    /// `--net FILE` plays with that net, `--net embedded` with the built-in
    /// one.
    #[test]
    fn the_net_is_chosen_by_flag() {
        let mut other = (*nnue::embedded()).clone();
        other.output_bias.iter_mut().for_each(|b| *b += 1);
        let path = std::env::temp_dir().join(format!("lasker-datagen-{}.nnue", std::process::id()));
        std::fs::write(&path, other.to_bytes()).unwrap();
        let args = |net: &str| ["--out", "x.vf", "--net", net].map(String::from);
        let loaded = Config::from_args(&args(path.to_str().unwrap())).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(*loaded.net, other);
        let embedded = Config::from_args(&args("embedded")).unwrap();
        assert!(Arc::ptr_eq(&embedded.net, &nnue::embedded()));
        assert!(Arc::ptr_eq(&Config::default().net, &nnue::embedded()));
    }

    /// The tables' verdict, from the side to move, once a capture or a pawn
    /// move has just entered them.
    #[test]
    fn tablebases_end_a_game_with_their_verdict() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/syzygy");
        if !Path::new(folder).is_dir() {
            eprintln!("skipped: no tablebases at {folder}");
            return;
        }
        let tb = load_tablebases(folder).unwrap();
        let result = |fen: &str| {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            tablebase_result(&tb, &pos)
        };
        let white_wins = Some(GameResult::WhiteWins);
        assert_eq!(result("8/8/8/8/8/2k5/8/KQ6 w - - 0 1"), white_wins);
        assert_eq!(result("8/8/8/8/8/2k5/8/KQ6 b - - 0 1"), white_wins);
        assert_eq!(
            result("8/8/8/8/8/2K5/8/kq6 w - - 0 1"),
            Some(GameResult::BlackWins)
        );
        assert_eq!(
            result("4k3/8/8/r7/8/8/8/4K2R w - - 0 1"),
            Some(GameResult::Draw)
        );
        // Not just entered (the fifty-move counter runs), too many pieces.
        assert_eq!(result("8/8/8/8/8/2k5/8/KQ6 w - - 3 2"), None);
        assert_eq!(result(Position::default().fen().as_str()), None);
        let bad = ["--out", "x.vf", "--syzygy", "/no/such/folder"].map(String::from);
        assert!(Config::from_args(&bad).is_err());
    }

    /// Every game's record starts at `record_from_ply` or later, and the
    /// plies before it were searched too.
    #[test]
    fn games_are_recorded_from_their_first_recorded_ply() {
        let config = small_config();
        let tt = TranspositionTable::new(1).unwrap();
        let mut rng = Rng::new(5);
        let stop = AtomicBool::new(false);
        let mut games = 0;
        while games < 4 {
            let mut effort = Effort::default();
            let Played::Game(game) = play_game(&config, &tt, &mut rng, &stop, &mut effort) else {
                continue;
            };
            games += 1;
            let start = &game.start;
            let ply =
                2 * (start.fullmoves().get() as usize - 1) + usize::from(start.turn().is_black());
            assert!(ply >= config.record_from_ply, "recorded from ply {ply}");
            assert!(
                effort.searches as usize > game.plies.len(),
                "unrecorded plies were searched"
            );
        }
    }

    /// Openings: 8 or 9 random plies, from a DFRC start in the share asked.
    #[test]
    fn openings_take_their_plies_and_starts_from_the_config() {
        let openings = |dfrc_percent| {
            let config = Config {
                dfrc_percent,
                ..Config::default()
            };
            let mut rng = Rng::new(9);
            (0..200)
                .filter_map(|_| random_opening(&config, &mut rng))
                .collect::<Vec<_>>()
        };
        let count = |openings: &[(Position, usize)], plies| {
            openings.iter().filter(|(_, n)| *n == plies).count()
        };
        let standard = openings(0);
        assert!(count(&standard, 8) > 60 && count(&standard, 9) > 60);
        assert_eq!(count(&standard, 8) + count(&standard, 9), standard.len());
        let chess960 = |openings: &[(Position, usize)]| {
            openings
                .iter()
                .filter(|(pos, _)| pos.castling_mode() == CastlingMode::Chess960)
                .count()
        };
        assert_eq!(chess960(&standard), 0);
        let all = openings(100);
        assert_eq!(chess960(&all), all.len());
        let some = openings(10);
        assert!(
            (5..=40).contains(&chess960(&some)),
            "{} of 200",
            chess960(&some)
        );
    }

    /// DFRC starts: each back rank a Chess960 arrangement (bishops on both
    /// colours, the king between its rooks), the two drawn independently,
    /// every castling right there.
    #[test]
    fn dfrc_starts_are_chess960_back_ranks() {
        use shakmaty::{Bitboard, Rank};
        let mut rng = Rng::new(3);
        let mut different = 0;
        for _ in 0..200 {
            let pos = dfrc_start(&mut rng);
            let (setup, board) = (pos.board(), pos.board().board());
            assert_eq!(setup.castles().castling_rights().count(), 4);
            let mut ranks = Vec::new();
            for (color, rank) in [(Color::White, Rank::First), (Color::Black, Rank::Eighth)] {
                let ours = board.by_color(color) & Bitboard::from_rank(rank);
                assert_eq!(ours.count(), 8);
                let bishops = ours & board.bishops();
                assert!(bishops.intersects(Bitboard::DARK_SQUARES));
                assert!(bishops.intersects(Bitboard::LIGHT_SQUARES));
                let king = board.king_of(color).unwrap();
                let rooks: Vec<_> = (ours & board.rooks()).into_iter().collect();
                assert!(rooks[0].file() < king.file() && king.file() < rooks[1].file());
                ranks.push(
                    ours.into_iter()
                        .map(|sq| board.role_at(sq))
                        .collect::<Vec<_>>(),
                );
            }
            different += usize::from(ranks[0] != ranks[1]);
        }
        assert!(different > 190, "the sides' ranks are drawn independently");
    }

    #[test]
    fn flags_are_checked() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let c = Config::from_args(&args("--out x.vf --threads 3 --nodes 900 --games 5")).unwrap();
        assert_eq!(
            (c.threads, c.nodes, c.games, c.positions),
            (3, 900, Some(5), None)
        );
        assert_eq!(c.budget().hard, 900 * HARD_NODES_FACTOR);
        assert!(c.budget().finish_iteration);
        let c = Config::from_args(&args(
            "--out x.vf --random-plies 6-10 --cut-iteration --dfrc 0",
        ))
        .unwrap();
        assert_eq!(
            (c.random_plies, c.finish_iteration, c.dfrc_percent),
            ((6, 10), false, 0)
        );
        let c = Config::from_args(&args("--out x.vf --random-plies 7")).unwrap();
        assert_eq!(c.random_plies, (7, 7));
        for bad in [
            "--threads 2",
            "--out x.vf --threads 0",
            "--out x.vf --nodes many",
            "--out x.vf --games",
            "--out x.vf --colour blue",
            "--out x.vf --net /no/such/net.nnue",
            "--out x.vf --nodes 900 --max-nodes 800",
            "--out x.vf --random-plies 9-8",
            "--out x.vf --dfrc 101",
            // Games only: records would need `convert`.
            "--out x.bin",
            "--out x",
        ] {
            assert!(Config::from_args(&args(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_run_writes_whole_games_and_stops() {
        let dir = std::env::temp_dir().join(format!("lasker-datagen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("run.vf");
        let config = Config {
            out: out.clone(),
            threads: 2,
            games: Some(2),
            ..small_config()
        };
        let totals = run(&config).unwrap();
        let (games, summary) = data::read_games(&out).unwrap();
        assert_eq!(summary.damage, None);
        assert!(totals.games.load(Ordering::SeqCst) >= 2);
        assert_eq!(games.len() as u64, totals.games.load(Ordering::SeqCst));
        let loaded = data::load(&out).unwrap();
        assert_eq!(
            loaded.records.len() as u64,
            totals.positions.load(Ordering::SeqCst)
        );

        // A folder that can't be written is an error, not a panic.
        let bad = Config {
            out: dir.join("no/such/folder/x.bin"),
            ..config
        };
        assert!(run(&bad).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
