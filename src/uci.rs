//! The UCI protocol: reads commands, keeps the options and the current
//! position, and hands searches to the `Engine`.
//!
//! Input is read on its own thread and arrives here over a channel, together
//! with the search thread's "finished" messages, so `stop`, `isready` and
//! `quit` are answered at once while a search runs. Every malformed command
//! gets an `info string error: ...` and leaves the state as it was.

use std::io::BufRead;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, select, unbounded};
use log::debug;
use shakmaty::{CastlingMode, Color, Position as _};

use crate::bench;
use crate::engine::{Engine, SearchFinished, SearchRequest};
use crate::epd;
use crate::nnue::{self, Network};
use crate::perft;
use crate::position::Position;
use crate::search::Techniques;
use crate::tablebase::{self, Syzygy, Tables, TbSettings};
use crate::timeman::Limits;
use crate::tt::TranspositionTable;
use std::sync::Arc;

pub const ENGINE_NAME: &str = "Lasker";
pub const ENGINE_AUTHOR: &str = "the Lasker developers";

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Writes one protocol line to stdout.
fn send(line: &str) {
    println!("{line}");
}

/// Reports a problem with the input; the engine carries on.
fn error(msg: &str) {
    send(&format!("info string error: {msg}"));
}

#[derive(Clone, Copy, Debug)]
enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Button,
    /// A free-text value (`type string`).
    Text {
        default: &'static str,
    },
}

struct OptionSpec {
    name: &'static str,
    kind: OptionKind,
}

/// Hash 0 searches without a table (for measurements).
pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_HASH_MB: i64 = 1 << 20;
pub const MAX_THREADS: i64 = 256;
pub const MAX_MULTIPV: i64 = 256;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "Hash",
        kind: OptionKind::Spin {
            default: DEFAULT_HASH_MB as i64,
            min: 0,
            max: MAX_HASH_MB,
        },
    },
    OptionSpec {
        name: "Threads",
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: MAX_THREADS,
        },
    },
    OptionSpec {
        name: "Clear Hash",
        kind: OptionKind::Button,
    },
    OptionSpec {
        name: "Move Overhead",
        kind: OptionKind::Spin {
            default: 30,
            min: 0,
            max: 5000,
        },
    },
    OptionSpec {
        name: "MultiPV",
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: MAX_MULTIPV,
        },
    },
    OptionSpec {
        name: "Ponder",
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        name: "UCI_Chess960",
        kind: OptionKind::Check { default: false },
    },
    // Endgame tablebases, named as in other engines.
    OptionSpec {
        name: "SyzygyPath",
        kind: OptionKind::Text { default: "<empty>" },
    },
    OptionSpec {
        name: "SyzygyProbeDepth",
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: 100,
        },
    },
    OptionSpec {
        name: "Syzygy50MoveRule",
        kind: OptionKind::Check { default: true },
    },
    OptionSpec {
        name: "SyzygyProbeLimit",
        kind: OptionKind::Spin {
            default: tablebase::MAX_PIECES as i64,
            min: 0,
            max: tablebase::MAX_PIECES as i64,
        },
    },
    OptionSpec {
        name: "EvalFile",
        kind: OptionKind::Text {
            default: EMBEDDED_NET_NAME,
        },
    },
];

/// `EvalFile`'s value for the net built into the binary.
const EMBEDDED_NET_NAME: &str = "<embedded>";

/// Builds with `--features ablation` (for matches that measure what a
/// search technique is worth) add `Disable`: a comma-separated list of the
/// techniques to switch off, by the names `Techniques::names` gives.
#[cfg(feature = "ablation")]
const ABLATION_OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "Disable",
    kind: OptionKind::Text { default: "<empty>" },
}];
#[cfg(not(feature = "ablation"))]
const ABLATION_OPTIONS: &[OptionSpec] = &[];

fn all_options() -> impl Iterator<Item = &'static OptionSpec> {
    OPTIONS.iter().chain(ABLATION_OPTIONS)
}

/// Current option values.
#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub move_overhead_ms: u64,
    pub multipv: usize,
    pub ponder: bool,
    pub chess960: bool,
    /// The search techniques in use: all of them, unless an ablation build
    /// switched some off.
    pub techniques: Techniques,
    /// The net `EvalFile` names (the embedded one by default).
    pub net: Arc<Network>,
    /// `SyzygyPath` as set (empty: no tablebases).
    pub syzygy_path: String,
    /// The other `Syzygy*` options.
    pub syzygy: TbSettings,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            move_overhead_ms: 30,
            multipv: 1,
            ponder: false,
            chess960: false,
            techniques: Techniques::ALL,
            net: nnue::embedded(),
            syzygy_path: String::new(),
            syzygy: TbSettings::default(),
        }
    }
}

/// What the loop does after a command.
#[derive(PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

pub struct Uci {
    options: Options,
    position: Position,
    tt: Arc<TranspositionTable>,
    /// The tables `SyzygyPath` found, if any.
    tables: Option<Arc<Tables>>,
    engine: Engine,
    done_tx: Sender<SearchFinished>,
    done_rx: Receiver<SearchFinished>,
}

impl Default for Uci {
    fn default() -> Self {
        Self::new()
    }
}

impl Uci {
    pub fn new() -> Self {
        let (done_tx, done_rx) = unbounded();
        Uci {
            options: Options::default(),
            position: Position::default(),
            tt: Arc::new(TranspositionTable::new(DEFAULT_HASH_MB).expect("default hash table")),
            tables: None,
            engine: Engine::new(),
            done_tx,
            done_rx,
        }
    }

    fn castling_mode(&self) -> CastlingMode {
        CastlingMode::from_chess960(self.options.chess960)
    }

    /// Runs the commands given on the command line, waits for the search
    /// they start, and returns.
    pub fn run_args(&mut self, args: &[String]) {
        // `lasker bench 8` is one command; `lasker "position ..." "go ..."`
        // is one command per argument.
        let commands: Vec<String> = if args.iter().any(|a| a.contains(' ')) {
            args.to_vec()
        } else {
            vec![args.join(" ")]
        };
        for c in commands {
            if self.handle(&c) == Flow::Quit {
                break;
            }
        }
        self.engine.wait();
    }

    /// The interactive loop over stdin.
    pub fn run_stdin(&mut self) {
        let (line_tx, line_rx) = unbounded::<String>();
        std::thread::Builder::new()
            .name("stdin".into())
            .spawn(move || {
                let stdin = std::io::stdin();
                for line in stdin.lock().lines() {
                    match line {
                        Ok(l) => {
                            if line_tx.send(l).is_err() {
                                break;
                            }
                        }
                        Err(e) => {
                            debug!("stdin: {e}");
                            break;
                        }
                    }
                }
                // Dropping the sender tells the loop that input ended.
            })
            .expect("spawning the input thread");
        let done_rx = self.done_rx.clone();
        loop {
            select! {
                recv(line_rx) -> line => match line {
                    Ok(l) => {
                        if self.handle(&l) == Flow::Quit {
                            break;
                        }
                    }
                    Err(_) => {
                        debug!("end of input");
                        self.engine.finish_or_stop();
                        break;
                    }
                },
                recv(done_rx) -> _ => self.engine.search_finished(),
            }
        }
    }

    fn quit(&mut self) {
        self.engine.stop();
        self.engine.wait();
    }

    /// Handles one command line.
    pub fn handle(&mut self, line: &str) -> Flow {
        debug!("<< {line}");
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = tokens.split_first() else {
            return Flow::Continue;
        };
        match cmd {
            "uci" => self.cmd_uci(),
            "isready" => send("readyok"),
            "ucinewgame" => self.cmd_ucinewgame(),
            "position" => self.cmd_position(args),
            "go" => self.cmd_go(args),
            "stop" => self.engine.stop(),
            "ponderhit" => {
                if self.engine.is_pondering() {
                    self.engine.ponderhit();
                } else {
                    debug!("ponderhit without a ponder search: ignored");
                }
            }
            "setoption" => self.cmd_setoption(args),
            "quit" => {
                self.quit();
                return Flow::Quit;
            }
            "d" => self.cmd_display(),
            "eval" => self.cmd_eval(),
            "bench" => self.cmd_bench(args),
            "solve" => self.cmd_solve(args),
            "debug" | "register" => {}
            _ => error(&format!("unknown command '{}'", line.trim())),
        }
        Flow::Continue
    }

    fn cmd_uci(&self) {
        send(&format!(
            "id name {ENGINE_NAME} {}",
            env!("CARGO_PKG_VERSION")
        ));
        send(&format!("id author {ENGINE_AUTHOR}"));
        for o in all_options() {
            let line = match o.kind {
                OptionKind::Spin { default, min, max } => {
                    format!(
                        "option name {} type spin default {default} min {min} max {max}",
                        o.name
                    )
                }
                OptionKind::Check { default } => {
                    format!("option name {} type check default {default}", o.name)
                }
                OptionKind::Button => format!("option name {} type button", o.name),
                OptionKind::Text { default } => {
                    format!("option name {} type string default {default}", o.name)
                }
            };
            send(&line);
        }
        send("uciok");
    }

    /// Commands that change state the search reads must wait for a search
    /// that has been told to stop; one still running is an error.
    fn idle_or_error(&mut self, what: &str) -> bool {
        if self.engine.is_searching() {
            error(&format!("'{what}' while searching: send 'stop' first"));
            return false;
        }
        self.engine.wait();
        true
    }

    fn cmd_ucinewgame(&mut self) {
        if self.idle_or_error("ucinewgame") {
            self.position = Position::default();
            self.forget_learned();
        }
    }

    /// `ucinewgame` and `Clear Hash`: the table and what the search threads
    /// learned belong to the old game.
    fn forget_learned(&mut self) {
        self.tt.clear();
        self.engine.forget();
    }

    fn cmd_position(&mut self, args: &[&str]) {
        match self.parse_position(args) {
            Ok(pos) => self.position = pos,
            Err(e) => error(&format!("{e}; position unchanged")),
        }
    }

    fn parse_position(&self, args: &[&str]) -> Result<Position, String> {
        let moves_at = args.iter().position(|&t| t == "moves");
        let (setup, moves) = match moves_at {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &args[args.len()..]),
        };
        let mut pos = match setup.split_first() {
            Some((&"startpos", [])) => {
                Position::from_fen(START_FEN, self.castling_mode()).map_err(|e| e.to_string())?
            }
            Some((&"fen", fen)) if !fen.is_empty() => {
                Position::from_fen(&fen.join(" "), self.castling_mode())
                    .map_err(|e| e.to_string())?
            }
            _ => {
                return Err(format!(
                    "expected 'position startpos|fen <fen> [moves ...]', got 'position {}'",
                    args.join(" ")
                ));
            }
        };
        for m in moves {
            pos.make_uci(m).map_err(|e| e.to_string())?;
        }
        Ok(pos)
    }

    fn cmd_go(&mut self, args: &[&str]) {
        let limits = match self.parse_go(args) {
            Ok(l) => l,
            Err(e) => return error(&format!("{e}; search not started")),
        };
        if let Some(depth) = limits.perft {
            return self.cmd_perft(depth);
        }
        if !self.idle_or_error("go") {
            return;
        }
        let request = SearchRequest {
            position: self.position.clone(),
            tt: Arc::clone(&self.tt),
            limits,
            threads: self.options.threads,
            multipv: self.options.multipv,
            move_overhead_ms: self.options.move_overhead_ms,
            techniques: self.options.techniques,
            net: Arc::clone(&self.options.net),
            syzygy: self
                .tables
                .as_ref()
                .and_then(|t| Syzygy::new(Arc::clone(t), self.options.syzygy)),
        };
        self.engine.go(request, self.done_tx.clone());
    }

    fn parse_go(&self, args: &[&str]) -> Result<Limits, String> {
        fn number<T: std::str::FromStr>(name: &str, v: Option<&&str>) -> Result<T, String> {
            let v = v.ok_or(format!("'{name}' needs a value"))?;
            v.parse()
                .map_err(|_| format!("'{name}' value '{v}' is not a valid number"))
        }
        const KEYWORDS: &[&str] = &[
            "searchmoves",
            "ponder",
            "wtime",
            "btime",
            "winc",
            "binc",
            "movestogo",
            "depth",
            "nodes",
            "mate",
            "movetime",
            "infinite",
            "perft",
        ];
        let mut l = Limits::default();
        let mut i = 0;
        while i < args.len() {
            let key = args[i];
            let value = args.get(i + 1);
            i += 2;
            match key {
                "wtime" => l.wtime = Some(number(key, value)?),
                "btime" => l.btime = Some(number(key, value)?),
                "winc" => l.winc = Some(number::<i64>(key, value)?.max(0) as u64),
                "binc" => l.binc = Some(number::<i64>(key, value)?.max(0) as u64),
                "movestogo" => {
                    let n: u32 = number(key, value)?;
                    l.movestogo = (n > 0).then_some(n);
                }
                "depth" => {
                    let d: u32 = number(key, value)?;
                    if d == 0 || d > 127 {
                        return Err(format!("depth {d} out of range 1..127"));
                    }
                    l.depth = Some(d);
                }
                "nodes" => l.nodes = Some(number::<u64>(key, value)?.max(1)),
                "mate" => {
                    let m: u32 = number(key, value)?;
                    if m == 0 {
                        return Err("mate 0: nothing to search".into());
                    }
                    l.mate = Some(m);
                }
                "movetime" => l.movetime = Some(number(key, value)?),
                "perft" => {
                    let d: u32 = number(key, value)?;
                    if d > 12 {
                        return Err(format!("perft depth {d} is too deep (at most 12)"));
                    }
                    l.perft = Some(d);
                }
                "infinite" => {
                    l.infinite = true;
                    i -= 1;
                }
                "ponder" => {
                    l.ponder = true;
                    i -= 1;
                }
                "searchmoves" => {
                    i -= 1;
                    while i < args.len() && !KEYWORDS.contains(&args[i]) {
                        let mut probe = self.position.clone();
                        let m = probe
                            .make_uci(args[i])
                            .map_err(|e| format!("searchmoves: {e}"))?;
                        l.searchmoves.push(self.position.uci(m));
                        i += 1;
                    }
                }
                other => return Err(format!("unknown go parameter '{other}'")),
            }
        }
        Ok(l)
    }

    fn cmd_perft(&mut self, depth: u32) {
        if !self.idle_or_error("go perft") {
            return;
        }
        let start = Instant::now();
        let mut pos = self.position.clone();
        let mut total = 0;
        for (m, n) in perft::divide(&mut pos, depth) {
            send(&format!("{m}: {n}"));
            total += n;
        }
        let secs = start.elapsed().as_secs_f64();
        send("");
        send(&format!("Nodes searched: {total}"));
        debug!("perft {depth}: {total} nodes in {secs:.3}s");
    }

    fn cmd_bench(&mut self, args: &[&str]) {
        if !self.idle_or_error("bench") {
            return;
        }
        let depth = match args.first() {
            None => bench::DEFAULT_BENCH_DEPTH,
            Some(d) => match d.parse::<u32>() {
                Ok(d) if (1..=64).contains(&d) => d,
                _ => return error(&format!("bench depth '{d}' is not a number in 1..64")),
            },
        };
        let r = bench::run(depth, self.options.techniques, &self.options.net);
        send(&format!(
            "info string repetition checks {} decided by the counter alone {} ({:.2}%)",
            r.repetition_checks,
            r.repetition_early_exits,
            100.0 * r.repetition_early_exits as f64 / r.repetition_checks.max(1) as f64
        ));
        send(&format!("{} nodes {} nps", r.nodes, r.nps()));
    }

    /// `solve <epd file> [ms]`: runs a test suite (default 1000 ms each)
    /// with the current Hash size, one thread, a fresh table per position.
    fn cmd_solve(&mut self, args: &[&str]) {
        if !self.idle_or_error("solve") {
            return;
        }
        let Some(path) = args.first() else {
            return error("expected 'solve <epd file> [milliseconds]'");
        };
        let ms = match args.get(1).map(|v| v.parse::<u64>()) {
            None => 1000,
            Some(Ok(ms)) if ms > 0 => ms,
            Some(_) => return error(&format!("'{}' is not a positive number of ms", args[1])),
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return error(&format!("can't read '{path}': {e}")),
        };
        let (mut solved, mut total) = (0, 0);
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let entry = match epd::parse_line(line) {
                Ok(e) => e,
                Err(e) => {
                    error(&e);
                    continue;
                }
            };
            let (m, ok) = epd::solve(&entry, ms, &self.tt, &self.options.net);
            total += 1;
            solved += usize::from(ok);
            let played = m.map_or("0000".to_string(), |m| entry.position.uci(m));
            let verdict = if ok { "solved" } else { "missed" };
            send(&format!("info string {} {verdict} {played}", entry.id));
        }
        send(&format!(
            "info string solved {solved} of {total} at {ms} ms"
        ));
    }

    fn cmd_setoption(&mut self, args: &[&str]) {
        if let Err(e) = self.set_option(args) {
            error(&e);
        }
    }

    fn set_option(&mut self, args: &[&str]) -> Result<(), String> {
        if args.first() != Some(&"name") {
            return Err("expected 'setoption name <name> [value <value>]'".into());
        }
        let value_at = args.iter().position(|&t| t == "value");
        let (name_tokens, value) = match value_at {
            Some(i) => (&args[1..i], Some(args[i + 1..].join(" "))),
            None => (&args[1..], None),
        };
        let name = name_tokens.join(" ");
        let spec = all_options()
            .find(|o| o.name.eq_ignore_ascii_case(&name))
            .ok_or(format!("unknown option '{name}'"))?;
        if self.engine.is_searching() {
            return Err(format!(
                "option '{}' can't change while searching",
                spec.name
            ));
        }
        self.engine.wait();
        match spec.kind {
            OptionKind::Spin { min, max, .. } => {
                let v = value.ok_or(format!("option '{}' needs a value", spec.name))?;
                let n: i64 = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("option '{}': '{v}' is not a number", spec.name))?;
                if n < min || n > max {
                    return Err(format!(
                        "option '{}': {n} is out of range {min}..{max}",
                        spec.name
                    ));
                }
                self.apply_spin(spec.name, n)
            }
            OptionKind::Check { .. } => {
                let v = value.ok_or(format!("option '{}' needs true or false", spec.name))?;
                let b = match v.trim().to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(format!(
                            "option '{}': '{v}' is not true or false",
                            spec.name
                        ));
                    }
                };
                match spec.name {
                    "Ponder" => self.options.ponder = b,
                    "UCI_Chess960" => self.set_chess960(b),
                    "Syzygy50MoveRule" => self.options.syzygy.fifty_move_rule = b,
                    _ => unreachable!("every check option is handled"),
                }
                Ok(())
            }
            OptionKind::Text { .. } => {
                let v = value.unwrap_or_default();
                let v = if v.trim() == "<empty>" { "" } else { v.trim() };
                match spec.name {
                    "Disable" => self.options.techniques = Techniques::all_but(v)?,
                    "EvalFile" => self.load_net(v)?,
                    "SyzygyPath" => self.set_syzygy_path(v),
                    _ => unreachable!("every string option is handled"),
                }
                Ok(())
            }
            OptionKind::Button => {
                debug!("{}: pressed", spec.name);
                match spec.name {
                    "Clear Hash" => self.forget_learned(),
                    _ => unreachable!("every button is handled"),
                }
                Ok(())
            }
        }
    }

    fn apply_spin(&mut self, name: &str, n: i64) -> Result<(), String> {
        match name {
            "Hash" => {
                self.resize_hash(n as usize)?;
                self.options.hash_mb = n as usize;
            }
            "Threads" => self.options.threads = n as usize,
            "Move Overhead" => self.options.move_overhead_ms = n as u64,
            "MultiPV" => self.options.multipv = n as usize,
            "SyzygyProbeDepth" => self.options.syzygy.probe_depth = n as i32,
            "SyzygyProbeLimit" => self.options.syzygy.probe_limit = n as u32,
            _ => unreachable!("every spin option is handled"),
        }
        Ok(())
    }

    /// Resizes the table in place (no search holds it now); if the memory
    /// can't be had, the old table stays.
    fn resize_hash(&mut self, megabytes: usize) -> Result<(), String> {
        match Arc::get_mut(&mut self.tt) {
            Some(tt) => tt
                .resize(megabytes)
                .map_err(|e| format!("{e}; keeping {} MB", tt.megabytes())),
            None => {
                let tt = TranspositionTable::new(megabytes).map_err(|e| e.to_string())?;
                self.tt = Arc::new(tt);
                Ok(())
            }
        }
    }

    /// `eval`: the net's score and each piece's worth to it (for people
    /// at a terminal, like `d`).
    fn cmd_eval(&self) {
        let board = self.position.board();
        for line in nnue::describe(&self.options.net, board.board(), board.turn()).lines() {
            send(line);
        }
    }

    /// `EvalFile`: loads a net file (`<embedded>` or nothing: the built-in
    /// one). A file that can't be read or doesn't match this build is
    /// refused and the current net stays.
    fn load_net(&mut self, path: &str) -> Result<(), String> {
        if path.is_empty() || path == EMBEDDED_NET_NAME {
            self.options.net = nnue::embedded();
            return Ok(());
        }
        let net = Network::load(std::path::Path::new(path))
            .map_err(|e| format!("EvalFile: {e}; keeping the current net"))?;
        self.options.net = Arc::new(net);
        send(&format!("info string EvalFile {path} loaded"));
        Ok(())
    }

    /// `SyzygyPath`: loads the tables of its folders (replacing any loaded
    /// before; the next search uses them) and says what it found. A folder
    /// that can't be read or holds no tables is an error; the engine plays
    /// on with whatever tables the other folders gave, or none.
    fn set_syzygy_path(&mut self, path: &str) {
        let loaded = tablebase::load(path);
        self.tables = loaded.tables.map(Arc::new);
        self.options.syzygy_path = path.to_string();
        let count = loaded.errors.len();
        for (i, e) in loaded.errors.iter().enumerate() {
            if i + 1 == count && self.tables.is_none() {
                error(&format!("{e}; playing without tablebases"));
            } else {
                error(e);
            }
        }
        if let Some(t) = &self.tables {
            send(&format!("info string {}", t.summary(path)));
        }
    }

    /// Switching notation re-reads the current position in the new mode, so
    /// that castling moves are parsed and printed consistently.
    fn set_chess960(&mut self, on: bool) {
        self.options.chess960 = on;
        let mode = CastlingMode::from_chess960(on);
        if let Ok(p) = Position::from_fen(&self.position.fen(), mode) {
            self.position = p;
        }
    }

    fn cmd_display(&self) {
        let board = self.position.board().board();
        let mut out = String::from(" +---+---+---+---+---+---+---+---+\n");
        for rank in (0..8).rev() {
            for file in 0..8 {
                let sq = shakmaty::Square::from_coords(
                    shakmaty::File::new(file),
                    shakmaty::Rank::new(rank),
                );
                let c = board.piece_at(sq).map_or(' ', |p| p.char());
                out.push_str(&format!(" | {c}"));
            }
            out.push_str(&format!(
                " | {}\n +---+---+---+---+---+---+---+---+\n",
                rank + 1
            ));
        }
        out.push_str("   a   b   c   d   e   f   g   h\n");
        for l in out.lines() {
            send(l);
        }
        send("");
        send(&format!("Fen: {}", self.position.fen()));
        send(&format!("Key: {:016X}", self.position.key()));
        let checkers: Vec<String> = self
            .position
            .board()
            .checkers()
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        send(&format!("Checkers: {}", checkers.join(" ")));
        let side = match self.position.turn() {
            Color::White => "white",
            Color::Black => "black",
        };
        send(&format!("Side to move: {side}"));
    }
}
