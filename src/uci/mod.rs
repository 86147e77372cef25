//! The UCI protocol: reads commands, keeps the options and the current
//! position, and hands searches to the `Engine`.
//!
//! Input is read on its own thread and arrives here over a channel, together
//! with the search thread's "finished" messages, so `stop`, `isready` and
//! `quit` are answered at once while a search runs. Every malformed command
//! gets an `info string error: ...` and leaves the state as it was.

mod go;
mod options;
mod setup;

use std::io::BufRead;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, select, unbounded};
use log::debug;
use shakmaty::{CastlingMode, Color, Position as _};

use crate::bench;
use crate::channel::{excerpt, send};
use crate::engine::{Engine, SearchFinished, send_bestmove};
use crate::epd;
use crate::genfens;
use crate::nnue;
use crate::perft;
use crate::position::Position;
use crate::rng::Rng;
use crate::search::SearchRequest;
use crate::strength::{Level, Strength};
use crate::tablebase::{Syzygy, Tables};
use crate::tt::TranspositionTable;
use go::GoCommand;
use options::Options;

pub const ENGINE_NAME: &str = "Lasker";
pub const ENGINE_AUTHOR: &str = "the Lasker developers";

/// Reports a problem with the input; the engine carries on.
fn error(msg: &str) {
    send(&format!("info string error: {msg}"));
}

/// One line of input as the commands read it: without its line end (`\n`
/// or `\r\n`), and with any byte that is not UTF-8 replaced by U+FFFD. A
/// GUI may pass on whatever a user typed (a folder's name in Latin-1, a
/// stray NUL): the command that holds it is then read, or refused, like
/// any other, and the engine goes on.
fn decode_line(bytes: &[u8]) -> String {
    let line = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    String::from_utf8_lossy(line).into_owned()
}

/// The first words of the commands `handle` knows (its match's arms).
const COMMANDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "setoption",
    "quit",
    "d",
    "eval",
    "bench",
    "solve",
    "genfens",
    "debug",
    "register",
];

/// What the loop does after a command.
#[derive(PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

pub struct Uci {
    options: Options,
    /// The board the GUI set last (`None` after a `position` that could not
    /// be read: the GUI's board is then unknown, and `go` answers `0000`).
    position: Option<Position>,
    tt: Arc<TranspositionTable>,
    /// The tables `SyzygyPath` found, if any.
    tables: Option<Arc<Tables>>,
    engine: Engine,
    /// Seeds the choices of weakened searches (`UCI_LimitStrength`), one
    /// per search: from entropy, or `StrengthSeed`.
    strength_seeds: Rng,
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
        let mut uci = Uci {
            options: Options::unset(),
            position: Some(Position::default()),
            // No table until `Hash`'s default sizes it.
            tt: Arc::new(TranspositionTable::new(0).expect("a table of no entries")),
            tables: None,
            engine: Engine::new(),
            strength_seeds: Rng::from_entropy(),
            done_tx,
            done_rx,
        };
        uci.apply_option_defaults();
        uci
    }

    fn castling_mode(&self) -> CastlingMode {
        CastlingMode::from_chess960(self.options.chess960)
    }

    /// The commands a command line holds: `lasker bench 8` is one command,
    /// `lasker "position ..." "go ..."` one per argument. One that starts
    /// with a word no command has (`lasker --bogus`, a typing error) is a
    /// usage error, for the caller to report on stderr: nothing runs.
    pub fn command_line(args: &[String]) -> Result<Vec<String>, String> {
        let commands: Vec<String> = if args.iter().any(|a| a.contains(' ')) {
            args.to_vec()
        } else {
            vec![args.join(" ")]
        };
        for c in &commands {
            if let Some(word) = c.split_whitespace().next()
                && !COMMANDS.contains(&word)
            {
                return Err(format!(
                    "unknown command or option '{}' (lasker --help lists them)",
                    excerpt(word)
                ));
            }
        }
        Ok(commands)
    }

    /// Runs `commands` (from `command_line`), waits for the search they
    /// start, and returns.
    pub fn run_args(&mut self, commands: &[String]) {
        for c in commands {
            if self.handle(c) == Flow::Quit {
                break;
            }
        }
        self.engine.wait();
    }

    /// The interactive loop over stdin.
    pub fn run_stdin(&mut self) {
        // Each line with the moment it was read: a search's clock counts
        // from its `go`, not from when the loop got round to it.
        let (line_tx, line_rx) = unbounded::<(Instant, String)>();
        std::thread::Builder::new()
            .name("stdin".into())
            .spawn(move || {
                let mut stdin = std::io::stdin().lock();
                let mut bytes = Vec::new();
                loop {
                    bytes.clear();
                    match stdin.read_until(b'\n', &mut bytes) {
                        Ok(0) => break,
                        Ok(_) => {
                            let line = decode_line(&bytes);
                            if line_tx.send((Instant::now(), line)).is_err() {
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
                    Ok((received, l)) => {
                        if self.handle_received(&l, received) == Flow::Quit {
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

    /// Handles one command line, read just now.
    pub fn handle(&mut self, line: &str) -> Flow {
        self.handle_received(line, Instant::now())
    }

    /// Handles one command line read at `received`.
    fn handle_received(&mut self, line: &str, received: Instant) -> Flow {
        debug!("<< {line}");
        crate::channel::received(line);
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = tokens.split_first() else {
            return Flow::Continue;
        };
        match cmd {
            "uci" => self.cmd_uci(),
            "isready" => send("readyok"),
            "ucinewgame" => self.cmd_ucinewgame(),
            "position" => self.cmd_position(args),
            "go" => self.cmd_go(args, received),
            "stop" => self.engine.stop(),
            "ponderhit" => {
                if self.engine.is_pondering() {
                    self.engine.ponderhit(received);
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
            "genfens" => self.cmd_genfens(args),
            "debug" | "register" => {}
            _ => {
                debug_assert!(!COMMANDS.contains(&cmd), "'{cmd}' is in COMMANDS");
                error(&format!("unknown command '{}'", excerpt(line.trim())));
            }
        }
        Flow::Continue
    }

    fn cmd_uci(&self) {
        send(&format!(
            "id name {ENGINE_NAME} {}",
            env!("CARGO_PKG_VERSION")
        ));
        send(&format!("id author {ENGINE_AUTHOR}"));
        for line in options::uci_lines() {
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

    /// `ucinewgame`: what was learned belongs to the old game. The board
    /// stays the one the GUI set last (as in Stockfish): GUIs send
    /// `position` next, and a `go` before it answers for that board.
    fn cmd_ucinewgame(&mut self) {
        if self.idle_or_error("ucinewgame") {
            self.forget_learned();
        }
    }

    /// `ucinewgame` and `Clear Hash`: the table and what the search threads
    /// learned belong to the old game.
    fn forget_learned(&mut self) {
        self.tt.clear();
        self.engine.forget();
    }

    /// `position`: the board the GUI set, never an older one (`setup`).
    fn cmd_position(&mut self, args: &[&str]) {
        let setup = setup::read(args, self.castling_mode());
        for note in &setup.notes {
            send(&format!("info string {note}"));
        }
        self.position = setup.position;
    }

    /// `go`: a search, which ends in exactly one `bestmove` whatever the
    /// line holds (`go`'s module says how it is read); or `go perft`.
    fn cmd_go(&mut self, args: &[&str], received: Instant) {
        let (limits, skipped) = match Self::parse_go(self.position.as_ref(), args) {
            Ok(GoCommand::Perft(depth)) => return self.cmd_perft(depth),
            Ok(GoCommand::Search { limits, skipped }) => (limits, skipped),
            Err(e) => return error(&format!("{e}; nothing counted")),
        };
        for note in skipped {
            send(&format!("info string go: ignored {note}"));
        }
        // A search still running (`go infinite`, or a GUI that sent no
        // `stop`) ends first with a bestmove of its own.
        if self.engine.is_searching() {
            send("info string go while searching: the running search stops first");
            self.engine.stop();
        }
        self.engine.wait();
        let Some(position) = &self.position else {
            error("go: no position (the last 'position' could not be read)");
            return send_bestmove(None, None);
        };
        let request = SearchRequest {
            received,
            position: position.clone(),
            limits,
            threads: self.options.threads,
            multipv: self.options.multipv,
            show_wdl: self.options.show_wdl,
            move_overhead_ms: self.options.move_overhead_ms,
            techniques: self.options.techniques,
            net: Arc::clone(&self.options.net),
            syzygy: self
                .tables
                .as_ref()
                .and_then(|t| Syzygy::new(Arc::clone(t), self.options.syzygy)),
            strength: self.options.playing_elo().map(|elo| Strength {
                level: Level::for_elo(elo),
                seed: self.strength_seeds.next_u64(),
            }),
        };
        self.engine
            .go(request, Arc::clone(&self.tt), self.done_tx.clone());
    }

    /// The position commands that show or count need, or an error.
    fn current_position(&self, what: &str) -> Option<&Position> {
        if self.position.is_none() {
            error(&format!(
                "{what}: no position (the last 'position' could not be read)"
            ));
        }
        self.position.as_ref()
    }

    fn cmd_perft(&mut self, depth: u32) {
        if !self.idle_or_error("go perft") {
            return;
        }
        let Some(mut pos) = self.current_position("go perft").cloned() else {
            return;
        };
        let start = Instant::now();
        let split = perft::divide(&mut pos, depth);
        for (m, n) in &split {
            send(&format!("{m}: {n}"));
        }
        // At depth 0 no move splits the count: it is the position itself.
        let total = if depth == 0 {
            perft::perft(&mut pos, 0)
        } else {
            split.iter().map(|(_, n)| n).sum()
        };
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
                _ => {
                    return error(&format!(
                        "bench depth '{}' is not a number in 1..64",
                        excerpt(d)
                    ));
                }
            },
        };
        let r = bench::run(depth, self.options.techniques, &self.options.net);
        send(&format!(
            "info string repetition checks {} decided by the counter alone {} ({:.2}%)",
            r.repetition_checks,
            r.repetition_early_exits,
            100.0 * r.repetition_early_exits as f64 / r.repetition_checks.max(1) as f64
        ));
        send(&format!(
            "info string searching {} ms, fresh table and memory {} ms (not counted in nps)",
            r.elapsed.as_millis(),
            r.setup.as_millis()
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
            Some(_) => {
                return error(&format!(
                    "'{}' is not a positive number of ms",
                    excerpt(args[1])
                ));
            }
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return error(&format!("can't read '{}': {e}", excerpt(path))),
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

    /// `genfens N seed S book <None|file>`: OpenBench's openings for data
    /// generation, one `info string genfens <FEN>` each (`genfens`).
    fn cmd_genfens(&mut self, args: &[&str]) {
        if !self.idle_or_error("genfens") {
            return;
        }
        let request = match genfens::Request::parse(args) {
            Ok(r) => r,
            Err(e) => return error(&e),
        };
        let emit = |fen: &str| send(&format!("info string genfens {fen}"));
        if let Err(e) = genfens::generate(&request, &self.options.net, self.castling_mode(), emit) {
            error(&e);
        }
    }

    /// `eval`: the net's score and each piece's worth to it (for people
    /// at a terminal, like `d`).
    fn cmd_eval(&self) {
        let Some(position) = self.current_position("eval") else {
            return;
        };
        let board = position.board();
        for line in nnue::describe(&self.options.net, board.board(), board.turn()).lines() {
            send(line);
        }
    }

    fn cmd_display(&self) {
        let Some(position) = self.current_position("d") else {
            return;
        };
        let board = position.board().board();
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
        send(&format!("Fen: {}", position.fen()));
        send(&format!("Key: {:016X}", position.key()));
        let checkers: Vec<String> = position
            .board()
            .checkers()
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        send(&format!("Checkers: {}", checkers.join(" ")));
        let side = match position.turn() {
            Color::White => "white",
            Color::Black => "black",
        };
        send(&format!("Side to move: {side}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_command_line_is_commands_or_a_usage_error() {
        let ok = |words: &[&str]| Uci::command_line(&args(words)).unwrap();
        assert_eq!(ok(&["bench", "8"]), ["bench 8"]);
        assert_eq!(
            ok(&["position startpos", "go depth 3"]),
            ["position startpos", "go depth 3"]
        );
        assert_eq!(ok(&[""]), [""]);
        for bad in [
            &["--bogus"][..],
            &["bogus", "8"],
            &["position startpos", "gox 3"],
        ] {
            let e = Uci::command_line(&args(bad)).unwrap_err();
            assert!(e.contains("unknown command or option"), "{e}");
        }
        let long = "-".repeat(100_000);
        let e = Uci::command_line(&args(&[&long])).unwrap_err();
        assert!(e.len() < 300, "{e}");
    }

    #[test]
    fn input_lines_lose_their_line_end_and_keep_every_other_byte() {
        assert_eq!(decode_line(b"isready\n"), "isready");
        assert_eq!(decode_line(b"isready\r\n"), "isready");
        assert_eq!(decode_line(b"isready"), "isready");
        assert_eq!(decode_line(b"a\rb\n"), "a\rb");
        assert_eq!(decode_line(b"\n"), "");
        // Not UTF-8 (Latin-1's e-acute): replaced, not the end of input.
        assert_eq!(
            decode_line(b"setoption name SyzygyPath value Jos\xe9\n"),
            "setoption name SyzygyPath value Jos\u{fffd}"
        );
        assert_eq!(decode_line(b"go\0depth 1\n"), "go\0depth 1");
        assert_eq!(decode_line("Jos\u{e9}\n".as_bytes()), "Jos\u{e9}");
    }
}
