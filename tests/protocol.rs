//! Protocol tests: drive the real `lasker` binary over pipes, the way a GUI
//! does, and check what it answers.
//!
//! Every `bestmove` (and every `pv` and `ponder` move) is checked for
//! legality with shakmaty in the position the engine was given. Searches are
//! kept shallow or short so that the whole file runs in well under a minute
//! on two shared cores.

mod common;

use std::thread;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

use common::{Engine, KIWIPETE, TIMEOUT};

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const MATE_IN_TWO: &str = "k7/8/2K5/8/8/8/8/7R w - - 0 1";
const CHECKMATED: &str = "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1";
const STALEMATED: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
const CHESS960_FEN: &str = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

/// What the protocol tests add to the shared harness.
impl Engine {
    /// The `Fen:` line of `d`.
    fn fen(&mut self) -> String {
        self.send("d");
        let lines = self.isready();
        let fen = lines
            .iter()
            .find_map(|l| l.strip_prefix("Fen: "))
            .unwrap_or_else(|| panic!("no Fen line in 'd' output {lines:?}"));
        fen.to_string()
    }

    /// Sends a `go` command and reads up to its `bestmove`.
    fn go(&mut self, cmd: &str) -> SearchOutput {
        self.send(cmd);
        self.read_search(TIMEOUT)
    }

    fn read_search(&mut self, timeout: Duration) -> SearchOutput {
        let lines = self.lines_until(|l| l.starts_with("bestmove"), timeout);
        SearchOutput::parse(lines)
    }
}

/// The lines of one search up to its `bestmove`.
#[derive(Debug)]
struct SearchOutput {
    lines: Vec<String>,
    bestmove: String,
    ponder: Option<String>,
}

impl SearchOutput {
    fn parse(lines: Vec<String>) -> SearchOutput {
        let last = lines.last().expect("at least the bestmove line");
        let tokens: Vec<&str> = last.split_whitespace().collect();
        let (bestmove, ponder) = match tokens[..] {
            ["bestmove", m] => (m.to_string(), None),
            ["bestmove", m, "ponder", p] => (m.to_string(), Some(p.to_string())),
            _ => panic!("malformed bestmove line '{last}'"),
        };
        SearchOutput {
            lines,
            bestmove,
            ponder,
        }
    }

    fn infos(&self) -> impl Iterator<Item = &String> {
        self.lines.iter().filter(|l| l.starts_with("info "))
    }

    /// Asserts the search produced a legal move (and a legal ponder move,
    /// well-formed info lines with legal PVs, and nothing else) in `pos`.
    fn check(&self, pos: &Chess, mode: CastlingMode) {
        for line in &self.lines[..self.lines.len() - 1] {
            assert!(
                line.starts_with("info "),
                "only info lines may precede bestmove, got '{line}'"
            );
            check_info(line, pos, mode);
        }
        assert_ne!(
            self.bestmove, "0000",
            "a position with legal moves got bestmove 0000"
        );
        let after = play(pos, &self.bestmove, mode);
        if let Some(p) = &self.ponder {
            play(&after, p, mode);
        }
    }

    /// Asserts the search found no move (mate or stalemate).
    fn check_no_move(&self) {
        assert_eq!(self.bestmove, "0000", "{:?}", self.lines);
        assert!(self.ponder.is_none());
    }

    /// The values after `key` in the info lines.
    fn values<'a>(&'a self, key: &'a str) -> impl Iterator<Item = String> + 'a {
        self.infos().filter_map(move |l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let i = t.iter().position(|&x| x == key)?;
            Some(t.get(i + 1)?.to_string())
        })
    }
}

// ---------------------------------------------------------------------------
// Chess bookkeeping (shakmaty as the reference)
// ---------------------------------------------------------------------------

fn position(fen: &str, moves: &[&str], mode: CastlingMode) -> Chess {
    let fen: Fen = fen.parse().expect("test FENs are valid");
    let mut pos: Chess = fen.into_position(mode).expect("test positions are legal");
    for m in moves {
        pos = play(&pos, m, mode);
    }
    pos
}

/// Plays `uci` in `pos`, panicking if it is not a legal move written in the
/// notation of `mode` (king-to-rook castling in Chess960 only).
fn play(pos: &Chess, uci: &str, mode: CastlingMode) -> Chess {
    let parsed: UciMove = uci
        .parse()
        .unwrap_or_else(|e| panic!("malformed move '{uci}': {e}"));
    let m = parsed
        .to_move(pos)
        .unwrap_or_else(|e| panic!("illegal move '{uci}' in {}: {e}", fen_of(pos)));
    assert_eq!(
        m.to_uci(mode).to_string(),
        uci,
        "move '{uci}' written in the wrong notation for {mode:?}"
    );
    let mut next = pos.clone();
    next.play_unchecked(m);
    next
}

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

/// Checks one `info` line: known keys, numeric values, legal PV.
fn check_info(line: &str, pos: &Chess, mode: CastlingMode) {
    let t: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(t[0], "info", "'{line}'");
    if t.get(1) == Some(&"string") {
        return;
    }
    let num = |i: usize| -> i64 {
        t.get(i)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("expected a number at token {i} of '{line}'"))
    };
    let mut i = 1;
    while i < t.len() {
        match t[i] {
            "depth" | "seldepth" | "multipv" | "nodes" | "nps" | "tbhits" | "time"
            | "currmovenumber" => {
                assert!(num(i + 1) >= 0, "negative {} in '{line}'", t[i]);
                i += 2;
            }
            "hashfull" => {
                assert!((0..=1000).contains(&num(i + 1)), "'{line}'");
                i += 2;
            }
            "score" => {
                assert!(
                    matches!(t.get(i + 1), Some(&"cp") | Some(&"mate")),
                    "'{line}'"
                );
                num(i + 2);
                i += 3;
                if t.get(i) == Some(&"wdl") {
                    let chances = [num(i + 1), num(i + 2), num(i + 3)];
                    assert!(chances.iter().all(|c| (0..=1000).contains(c)), "'{line}'");
                    assert_eq!(chances.iter().sum::<i64>(), 1000, "'{line}'");
                    i += 4;
                }
                if matches!(t.get(i), Some(&"lowerbound") | Some(&"upperbound")) {
                    i += 1;
                }
            }
            "currmove" => {
                play(pos, t[i + 1], mode);
                i += 2;
            }
            "pv" => {
                assert!(i + 1 < t.len(), "empty pv in '{line}'");
                let mut p = pos.clone();
                for m in &t[i + 1..] {
                    p = play(&p, m, mode);
                }
                i = t.len();
            }
            other => panic!("unknown info key '{other}' in '{line}'"),
        }
    }
}

fn startpos() -> Chess {
    Chess::default()
}

// ---------------------------------------------------------------------------
// 1. Handshake
// ---------------------------------------------------------------------------

#[test]
fn uci_handshake() {
    let mut e = Engine::new();
    e.send("uci");
    let lines = e.lines_until(|l| l == "uciok", TIMEOUT);
    assert_eq!(lines.last().map(String::as_str), Some("uciok"));
    let name = lines
        .iter()
        .find_map(|l| l.strip_prefix("id name "))
        .expect("an 'id name' line");
    // The version is Cargo.toml's: what a rating list names the engine by
    // (docs/releases.md).
    assert_eq!(name, format!("Lasker {}", env!("CARGO_PKG_VERSION")));
    assert!(
        lines.iter().any(|l| l.starts_with("id author ")),
        "{lines:?}"
    );

    let mut names = Vec::new();
    for l in lines
        .iter()
        .filter(|l| !l.starts_with("id ") && *l != "uciok")
    {
        let rest = l
            .strip_prefix("option name ")
            .unwrap_or_else(|| panic!("unexpected handshake line '{l}'"));
        let (name, spec) = rest
            .split_once(" type ")
            .unwrap_or_else(|| panic!("option line without type: '{l}'"));
        assert!(!name.trim().is_empty(), "'{l}'");
        let spec: Vec<&str> = spec.split_whitespace().collect();
        match spec[..] {
            ["spin", "default", d, "min", lo, "max", hi] => {
                let (d, lo, hi): (i64, i64, i64) = (
                    d.parse().expect(l),
                    lo.parse().expect(l),
                    hi.parse().expect(l),
                );
                assert!(lo <= d && d <= hi, "default out of range: '{l}'");
            }
            ["check", "default", "true" | "false"] => {}
            ["button"] => {}
            ["string", "default", ..] => {}
            ["combo", "default", ..] => {}
            _ => panic!("malformed option line '{l}'"),
        }
        names.push(name.to_string());
    }
    for wanted in [
        "Hash",
        "Threads",
        "Clear Hash",
        "Move Overhead",
        "MultiPV",
        "Ponder",
        "UCI_Chess960",
        "UCI_ShowWDL",
    ] {
        assert!(
            names.iter().any(|n| n == wanted),
            "option '{wanted}' missing from {names:?}"
        );
    }
    // Nothing follows uciok, and the engine answers afterwards.
    assert!(e.isready().is_empty());
    e.send("quit");
    assert!(e.wait_exit(TIMEOUT).success());
}

// ---------------------------------------------------------------------------
// 2. Bad input
// ---------------------------------------------------------------------------

#[test]
fn bad_input_keeps_engine_alive_and_state_unchanged() {
    let mut e = Engine::new();
    e.send("uci");
    e.expect_line(|l| l == "uciok", TIMEOUT);
    // A position other than the start, so "unchanged" means something.
    e.send("position startpos moves e2e4 c7c5");
    let good = e.fen();
    assert_eq!(
        good,
        fen_of(&position(
            START_FEN,
            &["e2e4", "c7c5"],
            CastlingMode::Standard
        ))
    );

    let bad = [
        "wibble",
        "setoption name Foo value 1",
        "setoption name Hash value -1",
        "setoption name Hash value 2000000",
        "setoption name Threads value 100000",
        "setoption name MultiPV value many",
        "setoption name Ponder value maybe",
        "setoption name Hash",
        "setoption Hash value 1",
        "go perft x",
        "bench x",
    ];
    for cmd in bad {
        e.expect_error(cmd);
        assert_eq!(e.fen(), good, "position changed by '{cmd}'");
    }

    // `stop` and `ponderhit` with nothing running: silently fine.
    e.expect_silent("stop");
    e.expect_silent("ponderhit");
    e.expect_silent("");
    e.expect_silent("   ");
    assert_eq!(e.fen(), good);

    // Option names are case-insensitive and may contain spaces.
    e.expect_silent("setoption name move overhead value 50");
    e.expect_silent("setoption name clear hash");
    e.expect_silent("setoption name MULTIPV value 1");
    e.expect_silent("setoption name ponder value TRUE");
    e.expect_silent("setoption name Ponder value false");

    let pos = position(START_FEN, &["e2e4", "c7c5"], CastlingMode::Standard);

    // A second `go` while `go infinite` runs stops the first, which
    // answers, and starts its own search: one bestmove each.
    e.send("go infinite");
    thread::sleep(Duration::from_millis(50));
    // Changing options mid-search is refused.
    e.send("setoption name Hash value 32");
    e.expect_line(|l| l.starts_with("info string error: "), TIMEOUT);
    let lines = e.isready();
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "bestmove during go infinite: {lines:?}"
    );
    e.send("go depth 3");
    let first = e.read_search(TIMEOUT);
    first.check(&pos, CastlingMode::Standard);
    assert!(
        first.lines.iter().any(|l| l.contains("go while searching")),
        "{:?}",
        first.lines
    );
    let second = e.read_search(TIMEOUT);
    second.check(&pos, CastlingMode::Standard);
    assert!(e.isready().is_empty());
    e.no_line_within(
        Duration::from_millis(300),
        |l| l.starts_with("bestmove"),
        "a third bestmove after two go",
    );
    assert_eq!(e.fen(), good);

    // A limited search afterwards gives exactly one bestmove.
    let out = e.go("go depth 1");
    out.check(&pos, CastlingMode::Standard);
    assert!(e.isready().is_empty());

    // Still fully working.
    e.send("position startpos");
    assert_eq!(e.fen(), START_FEN);
    e.send("quit");
    assert!(e.wait_exit(TIMEOUT).success());
}

/// A GUI passes on what a user typed: a folder's name in Latin-1 (not
/// UTF-8), a NUL. Each such line is read, and answered like any other;
/// none ends the input.
#[test]
fn bytes_that_are_not_utf8_are_read_and_answered() {
    let mut e = Engine::new();
    e.send_bytes(b"setoption name SyzygyPath value Jos\xe9\nisready\n");
    let lines = e.lines_until(|l| l == "readyok", TIMEOUT);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("info string error: SyzygyPath: can't read folder 'Jos"),
        "{lines:?}"
    );
    // A NUL inside a command, and a line of NULs: each an unknown command.
    e.send_bytes(b"isready\0\n");
    e.expect_line(
        |l| l.starts_with("info string error: unknown command"),
        TIMEOUT,
    );
    e.send_bytes(b"\0\0\0\r\n");
    e.expect_line(
        |l| l.starts_with("info string error: unknown command"),
        TIMEOUT,
    );
    // A line that ends in \r\n, and one in the middle of a UTF-8 character.
    e.send_bytes(b"position startpos moves e2e4\r\n");
    e.send_bytes(b"position startpos moves d2d4 \xc3\n");
    assert_eq!(
        e.fen(),
        fen_of(&position(START_FEN, &["d2d4"], CastlingMode::Standard))
    );
    e.go("go depth 2").check(
        &position(START_FEN, &["d2d4"], CastlingMode::Standard),
        CastlingMode::Standard,
    );
    e.send("quit");
    assert!(e.wait_exit(TIMEOUT).success());
}

/// Input is quoted in an answer up to 100 characters: a line of 100 KB is
/// not answered with 100 KB (before, an unknown line came back whole).
#[test]
fn long_input_is_quoted_in_part() {
    let mut e = Engine::new();
    let long = "x".repeat(100_000);
    for cmd in [
        long.clone(),
        format!("setoption name {long} value 1"),
        format!("setoption name Hash value {long}"),
        format!("position fen {long}"),
        format!("position startpos moves {long}"),
        format!("go perft {long}"),
    ] {
        e.send(&cmd);
        let lines = e.isready();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("info string error: "), "{lines:?}");
        assert!(
            lines[0].len() < 300,
            "{} bytes: {}",
            lines[0].len(),
            &lines[0][..300]
        );
        assert!(lines[0].contains("xxx... (100000 bytes)"), "{}", lines[0]);
    }
    e.send("position startpos");
    e.send(&format!("go depth 1 {long}"));
    let out = e.read_search(TIMEOUT);
    out.check(&startpos(), CastlingMode::Standard);
    assert!(out.lines.iter().all(|l| l.len() < 300), "{:?}", out.lines);
}

// ---------------------------------------------------------------------------
// 3. go infinite / stop
// ---------------------------------------------------------------------------

#[test]
fn go_infinite_waits_for_stop() {
    let mut e = Engine::new();
    e.send("position startpos moves d2d4");
    e.send("go infinite");
    let mut lines = e.no_line_within(
        Duration::from_millis(300),
        |l| l.starts_with("bestmove"),
        "bestmove before stop under go infinite",
    );
    // isready is answered while the search runs, before any bestmove.
    let before_ready = e.isready();
    assert!(
        before_ready.iter().all(|l| !l.starts_with("bestmove")),
        "{before_ready:?}"
    );
    lines.extend(before_ready);
    e.send("stop");
    let out = e.read_search(TIMEOUT);
    lines.extend(out.lines);
    let all = SearchOutput::parse(lines);
    let pos = position(START_FEN, &["d2d4"], CastlingMode::Standard);
    all.check(&pos, CastlingMode::Standard);
    assert!(all.infos().count() >= 1, "no info line in {:?}", all.lines);
    e.no_line_within(
        Duration::from_millis(200),
        |l| l.starts_with("bestmove"),
        "second bestmove",
    );
    // A second stop is harmless.
    e.expect_silent("stop");
}

/// Regression test of a hand-off race fixed in e2a0ea6: the search thread's
/// "finished" message was taken by the UCI loop as "join the search handle".
/// If the next `go` was read before that message (the GUI answers `bestmove`
/// with its next `go` while the loop is still busy, or simply wins the race),
/// the stale message made the loop join the *new* search. Under `go infinite`
/// that search only ends on `stop`, which the blocked loop never read: the
/// engine wedged (no `bestmove` after `stop`; a later `isready` got no
/// `readyok`).
///
/// The test behaves like a correct GUI: it sends `go infinite` only after it
/// has read `bestmove`. To make the window wide, the first search ends at
/// once (mated position) while the loop is busy parsing a long `position`
/// command sent right behind the `go`.
/// A `stop` sent with the `go`, or a clock already gone, still gets the
/// first iteration's best move, not the first root move searched: beside
/// a mate in one, the mate (before, `f2f3`). The table is cleared each
/// time, so that its move can't put the mate first.
#[test]
fn a_stop_at_once_answers_the_first_iterations_best_move() {
    const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
    let mode = CastlingMode::Standard;
    let pos = position(MATE_IN_ONE, &[], mode);
    let mut e = Engine::new();
    let answer = |e: &mut Engine, go: &str, stop: bool| {
        e.send("ucinewgame");
        e.send(&format!("position fen {MATE_IN_ONE}"));
        e.send(go);
        if stop {
            e.send("stop");
        }
        let out = e.read_search(TIMEOUT);
        out.check(&pos, mode);
        assert_eq!(out.bestmove, "a1a8", "'{go}': {:?}", out.lines);
        assert!(e.isready().is_empty());
    };
    for _ in 0..10 {
        answer(&mut e, "go infinite", true);
        answer(&mut e, "go depth 20", true);
    }
    for go in ["go movetime 1", "go wtime 0 btime 0", "go nodes 1"] {
        answer(&mut e, go, false);
    }
}

#[test]
fn go_right_after_bestmove_does_not_wedge() {
    let shuffle = "g1f3 g8f6 f3g1 f6g8 ".repeat(25_000);
    let long_position = format!("position startpos moves {}", shuffle.trim_end());
    let pos = startpos();
    let mut e = Engine::new();
    for round in 0..12 {
        e.send(&format!("position fen {CHECKMATED}"));
        e.send("go depth 1");
        e.send(&long_position);
        e.read_search(TIMEOUT).check_no_move();
        e.send("go infinite");
        e.send("isready");
        let lines = e.lines_until(|l| l == "readyok", TIMEOUT);
        assert!(
            lines.iter().all(|l| !l.starts_with("bestmove")),
            "round {round}: bestmove before stop: {lines:?}"
        );
        e.send("stop");
        let out = e.read_search(TIMEOUT);
        assert!(
            out.lines.iter().all(|l| !l.starts_with("info string")),
            "round {round}: {:?}",
            out.lines
        );
        out.check(&pos, CastlingMode::Standard);
    }
}

/// Regression test of a bug fixed in e2a0ea6: `stop` only raised a flag, and
/// `go`, `ucinewgame` and `setoption` checked "is a search running?" without
/// regard to it, so a GUI that sent `stop` and its next commands at once
/// (without waiting for `bestmove`, which the protocol does not require) got
/// `info string error: 'go' while searching: send 'stop' first` and no second
/// search. `idle_or_error` now waits for a search that has been told to stop.
#[test]
fn commands_right_after_stop_wait_for_the_stopped_search() {
    let after_e4 = position(START_FEN, &["e2e4"], CastlingMode::Standard);
    let mut e = Engine::new();
    for round in 0..5 {
        e.send("position startpos");
        e.send("go infinite");
        thread::sleep(Duration::from_millis(30));
        e.send("stop");
        e.send("setoption name Clear Hash");
        e.send("ucinewgame");
        e.send("position startpos moves e2e4");
        e.send("go depth 2");
        let is_end = |l: &str| l.starts_with("bestmove") || l.starts_with("info string error");
        let first = e.lines_until(is_end, TIMEOUT);
        let second = e.lines_until(is_end, TIMEOUT);
        for lines in [&first, &second] {
            assert!(
                lines.iter().all(|l| !l.starts_with("info string error")),
                "round {round}: a command right after stop was refused: {lines:?}"
            );
        }
        SearchOutput::parse(first).check(&startpos(), CastlingMode::Standard);
        SearchOutput::parse(second).check(&after_e4, CastlingMode::Standard);
        assert!(e.isready().is_empty());
    }
}

#[test]
fn go_infinite_on_a_finished_search_still_waits() {
    // K v K: every iteration is trivial, so the search runs out of depth at
    // once, yet bestmove must wait for stop.
    let mut e = Engine::new();
    e.send("position fen 7k/8/8/8/8/8/8/K7 w - - 0 1");
    e.send("go infinite");
    e.no_line_within(
        Duration::from_millis(300),
        |l| l.starts_with("bestmove"),
        "bestmove before stop under go infinite",
    );
    e.send("stop");
    let out = e.read_search(TIMEOUT);
    out.check(
        &position("7k/8/8/8/8/8/8/K7 w - - 0 1", &[], CastlingMode::Standard),
        CastlingMode::Standard,
    );
}

// ---------------------------------------------------------------------------
// 4. Pondering
// ---------------------------------------------------------------------------

#[test]
fn go_ponder_then_ponderhit() {
    let mut e = Engine::new();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4 e7e5");
    e.send("go ponder wtime 2000 btime 2000");
    let mut lines = e.no_line_within(
        Duration::from_millis(300),
        |l| l.starts_with("bestmove"),
        "bestmove before ponderhit",
    );
    let before_ready = e.isready();
    assert!(
        before_ready.iter().all(|l| !l.starts_with("bestmove")),
        "{before_ready:?}"
    );
    lines.extend(before_ready);
    // After ponderhit the search ends by itself, on its clock: bestmove comes
    // without a stop.
    e.send("ponderhit");
    let out = e.read_search(TIMEOUT);
    lines.extend(out.lines);
    let pos = position(START_FEN, &["e2e4", "e7e5"], CastlingMode::Standard);
    SearchOutput::parse(lines).check(&pos, CastlingMode::Standard);
    assert!(e.isready().is_empty());
}

#[test]
fn go_ponder_then_stop() {
    let mut e = Engine::new();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves g1f3");
    e.send("go ponder wtime 2000 btime 2000");
    let mut lines = e.no_line_within(
        Duration::from_millis(300),
        |l| l.starts_with("bestmove"),
        "bestmove before stop while pondering",
    );
    e.send("stop");
    let out = e.read_search(TIMEOUT);
    lines.extend(out.lines);
    let pos = position(START_FEN, &["g1f3"], CastlingMode::Standard);
    SearchOutput::parse(lines).check(&pos, CastlingMode::Standard);
    // The ponderhit that arrives after the stop is ignored.
    e.expect_silent("ponderhit");
}

// ---------------------------------------------------------------------------
// 5. Limits
// ---------------------------------------------------------------------------

#[test]
fn go_depth_reports_that_depth_and_stops() {
    let mut e = Engine::new();
    e.send("position startpos");
    let out = e.go("go depth 3");
    out.check(&startpos(), CastlingMode::Standard);
    let depths: Vec<i64> = out.values("depth").map(|d| d.parse().unwrap()).collect();
    assert!(depths.contains(&3), "no depth 3 info in {:?}", out.lines);
    assert!(
        depths.iter().all(|&d| d <= 3),
        "searched past depth 3: {:?}",
        out.lines
    );
    // The last info line is the depth-3 one with a pv starting with bestmove.
    let last = out.infos().last().unwrap();
    assert!(last.contains(" depth 3 "), "{last}");
    let pv = last.split(" pv ").nth(1).expect("pv in the last info line");
    assert_eq!(pv.split_whitespace().next(), Some(out.bestmove.as_str()));
    if let Some(p) = &out.ponder {
        assert_eq!(pv.split_whitespace().nth(1), Some(p.as_str()));
    }
}

#[test]
fn go_nodes_and_movetime() {
    let mut e = Engine::new();
    e.send("position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    let pos = position(
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        &[],
        CastlingMode::Standard,
    );
    // Each search ends by itself (bestmove without a stop); the node limit
    // is kept by every iteration reported.
    let out = e.go("go nodes 5000");
    out.check(&pos, CastlingMode::Standard);
    let nodes: Vec<u64> = out.values("nodes").map(|n| n.parse().unwrap()).collect();
    assert!(!nodes.is_empty(), "no nodes reported: {:?}", out.lines);
    assert!(
        nodes.iter().all(|&n| n <= 5000),
        "past the node limit: {:?}",
        out.lines
    );

    let out = e.go("go movetime 200");
    out.check(&pos, CastlingMode::Standard);
}

#[test]
fn go_mate_finds_mate_in_two() {
    let mut e = Engine::new();
    e.send(&format!("position fen {MATE_IN_TWO}"));
    let out = e.go("go mate 2");
    let pos = position(MATE_IN_TWO, &[], CastlingMode::Standard);
    out.check(&pos, CastlingMode::Standard);
    let last = out.infos().last().expect("an info line").clone();
    assert!(last.contains("score mate 2"), "{:?}", out.lines);
    // The PV of the last line is a forced mate: play it out.
    let pv: Vec<&str> = last
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(pv.len(), 3, "mate in 2 is three plies: {last}");
    let mut p = pos;
    for m in pv {
        p = play(&p, m, CastlingMode::Standard);
    }
    assert!(p.is_checkmate(), "pv of '{last}' does not end in mate");
}

#[test]
fn no_legal_move_gives_null_bestmove() {
    for fen in [CHECKMATED, STALEMATED] {
        let mut e = Engine::new();
        e.send(&format!("position fen {fen}"));
        // Under go infinite, even the null move waits for stop.
        e.send("go infinite");
        let mut lines = e.no_line_within(
            Duration::from_millis(150),
            |l| l.starts_with("bestmove"),
            "bestmove before stop in a finished position",
        );
        e.send("stop");
        lines.extend(e.read_search(TIMEOUT).lines);
        SearchOutput::parse(lines).check_no_move();

        let out = e.go("go depth 3");
        out.check_no_move();
        for l in out.infos() {
            check_info(
                l,
                &position(fen, &[], CastlingMode::Standard),
                CastlingMode::Standard,
            );
        }
        assert!(e.isready().is_empty());
    }
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut e = Engine::new();
    e.send("position startpos");
    let out = e.go("go searchmoves a2a3 h2h3 depth 3");
    out.check(&startpos(), CastlingMode::Standard);
    assert!(
        out.bestmove == "a2a3" || out.bestmove == "h2h3",
        "bestmove {} not among searchmoves",
        out.bestmove
    );
    // Keywords after the move list are still read.
    let out = e.go("go searchmoves g1f3 depth 2");
    assert_eq!(out.bestmove, "g1f3");
}

#[test]
fn multipv_prints_several_lines() {
    let mut e = Engine::new();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    let out = e.go("go depth 3");
    out.check(&startpos(), CastlingMode::Standard);
    let at_depth3: Vec<&String> = out
        .infos()
        .filter(|l| l.contains("info depth 3 "))
        .collect();
    for k in 1..=3 {
        assert!(
            at_depth3
                .iter()
                .any(|l| l.contains(&format!(" multipv {k} "))),
            "no multipv {k} at depth 3 in {:?}",
            out.lines
        );
    }
    // The three lines start with three different moves, and multipv 1's
    // first move is the bestmove.
    let first_moves: Vec<&str> = at_depth3
        .iter()
        .map(|l| {
            l.split(" pv ")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
        })
        .collect();
    let mut distinct = first_moves.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "{at_depth3:?}");
    let mpv1 = at_depth3
        .iter()
        .find(|l| l.contains(" multipv 1 "))
        .unwrap();
    assert!(
        mpv1.contains(&format!(" pv {}", out.bestmove)),
        "multipv 1 '{mpv1}' vs bestmove {}",
        out.bestmove
    );

    // More lines than legal moves: one line per move.
    e.send("setoption name MultiPV value 256");
    e.send("position fen 7k/8/8/8/8/8/8/K7 w - - 0 1");
    let out = e.go("go depth 2");
    let at_depth2 = out.infos().filter(|l| l.contains("info depth 2 ")).count();
    assert_eq!(at_depth2, 3, "K on a1 has three moves: {:?}", out.lines);
}

#[test]
fn a_long_search_names_the_root_move_it_searches() {
    let mut e = Engine::new();
    e.send("position startpos");
    // Root moves are named as their search starts, once 3 s have passed:
    // on a busy machine the move in hand at 3 s can take long, so wait for
    // the first name rather than stop at a fixed time.
    e.send("go infinite");
    let mut lines = e.lines_until(|l| l.contains(" currmove "), TIMEOUT);
    e.send("stop");
    lines.extend(e.read_search(TIMEOUT).lines);
    let out = SearchOutput::parse(lines);
    out.check(&startpos(), CastlingMode::Standard); // currmove is legal
    let numbers: Vec<usize> = out
        .infos()
        .filter_map(|l| l.split(" currmovenumber ").nth(1))
        .map(|n| n.trim().parse().unwrap())
        .collect();
    assert!(numbers.iter().all(|n| (1..=20).contains(n)), "{numbers:?}");

    // A short search stays quiet.
    let out = e.go("go depth 6");
    assert!(
        out.infos().all(|l| !l.contains("currmove")),
        "{:?}",
        out.lines
    );
}

/// The `wdl W D L` of an info line, if it has one.
fn wdl_of(line: &str) -> Option<[u32; 3]> {
    let rest = line.split(" wdl ").nth(1)?;
    let mut numbers = rest.split_whitespace().map(|t| t.parse().unwrap());
    Some([(); 3].map(|_| numbers.next().expect("three numbers")))
}

#[test]
fn show_wdl_adds_the_chances_after_the_score() {
    let mut e = Engine::new();
    e.send("position startpos");
    let out = e.go("go depth 4");
    assert!(out.infos().all(|l| wdl_of(l).is_none()), "off by default");

    e.send("setoption name UCI_ShowWDL value true");
    let out = e.go("go depth 6");
    out.check(&startpos(), CastlingMode::Standard);
    for line in out.infos().filter(|l| l.contains(" score ")) {
        let [w, d, l] = wdl_of(line).unwrap_or_else(|| panic!("no wdl in '{line}'"));
        // Open: no side's win is likely, and a draw is well possible.
        assert!(w < 600 && l < 600 && d > 100, "'{line}'");
    }

    // A queen up: a likely win; a forced mate: a sure one.
    let queen_up = "4k3/8/8/8/8/8/3QPPP1/4K3 w - - 0 1";
    e.send(&format!("position fen {queen_up}"));
    let out = e.go("go depth 6");
    let [w, _, l] = wdl_of(out.infos().last().unwrap()).expect("wdl");
    assert!(w > 900 && l < 10, "{:?}", out.lines);
    e.send(&format!("position fen {MATE_IN_TWO}"));
    let out = e.go("go mate 2");
    let last = out.infos().last().unwrap();
    assert!(last.contains("score mate 2 wdl 1000 0 0 "), "'{last}'");

    // No move: mated or stalemated, for sure.
    for (fen, chances) in [(CHECKMATED, [0, 0, 1000]), (STALEMATED, [0, 1000, 0])] {
        e.send(&format!("position fen {fen}"));
        let out = e.go("go depth 3");
        out.check_no_move();
        assert_eq!(wdl_of(out.infos().last().unwrap()), Some(chances));
    }
}

// ---------------------------------------------------------------------------
// 6. A game on the clock
// ---------------------------------------------------------------------------

/// A game on a running clock, as a GUI keeps it (each side's wall time
/// taken off, the increment added): every move legal, the engine's position
/// ours at the end. Whether the engine loses on time is not judged here (a
/// loaded machine would decide it); matches count time losses.
#[test]
fn full_game_on_the_clock() {
    let mut e = Engine::new();
    e.send("uci");
    e.expect_line(|l| l == "uciok", TIMEOUT);
    e.send("ucinewgame");
    assert!(e.isready().is_empty());

    let mode = CastlingMode::Standard;
    let inc = 50i64;
    let mut clock = [3000i64, 3000i64]; // white, black
    let mut moves: Vec<String> = Vec::new();
    let mut pos = startpos();
    for ply in 0..60 {
        if pos.is_game_over() {
            break;
        }
        let side = ply % 2;
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        let t = Instant::now();
        let out = e.go(&format!(
            "go wtime {} btime {} winc {inc} binc {inc}",
            clock[0], clock[1]
        ));
        // A clock run below zero goes on negative: the engine must still
        // answer (short_clocks_still_give_a_legal_move).
        clock[side] -= t.elapsed().as_millis() as i64;
        clock[side] += inc;
        out.check(&pos, mode);
        pos = play(&pos, &out.bestmove, mode);
        moves.push(out.bestmove);
    }
    assert!(
        moves.len() == 60 || pos.is_game_over(),
        "game stopped early after {} plies",
        moves.len()
    );
    assert!(moves.len() >= 10, "too short a game: {moves:?}");
    // The engine's own idea of the position matches ours.
    e.send(&format!("position startpos moves {}", moves.join(" ")));
    assert_eq!(e.fen(), fen_of(&pos));
}

// ---------------------------------------------------------------------------
// 7. Short and negative clocks
// ---------------------------------------------------------------------------

/// Tiny, zero and negative clocks still give a legal move (how fast is for
/// matches to judge).
#[test]
fn short_clocks_still_give_a_legal_move() {
    let mut e = Engine::new();
    e.send("position startpos moves e2e4");
    let pos = position(START_FEN, &["e2e4"], CastlingMode::Standard);
    for go in [
        "go wtime 50 btime 50",
        "go wtime 1 btime 1",
        "go wtime 100 btime -100",
        "go wtime 0 btime 0",
        "go btime 10 wtime 10 binc 0 winc 0 movestogo 1",
    ] {
        let out = e.go(go);
        out.check(&pos, CastlingMode::Standard);
    }
    e.send("position startpos");
    let out = e.go("go wtime -100 btime 100");
    out.check(&startpos(), CastlingMode::Standard);
}

// ---------------------------------------------------------------------------
// 8. Perft
// ---------------------------------------------------------------------------

fn perft_output(e: &mut Engine, depth: u32) -> (Vec<(String, u64)>, u64) {
    e.send(&format!("go perft {depth}"));
    let lines = e.lines_until(|l| l.starts_with("Nodes searched: "), TIMEOUT);
    let total: u64 = lines
        .last()
        .unwrap()
        .strip_prefix("Nodes searched: ")
        .unwrap()
        .parse()
        .expect("a node count");
    let body = &lines[..lines.len() - 1];
    assert_eq!(body.last().map(String::as_str), Some(""), "{lines:?}");
    let moves: Vec<(String, u64)> = body[..body.len() - 1]
        .iter()
        .map(|l| {
            let (m, n) = l
                .split_once(": ")
                .unwrap_or_else(|| panic!("malformed perft line '{l}'"));
            (m.to_string(), n.parse().expect("a count"))
        })
        .collect();
    if depth > 0 {
        assert_eq!(moves.iter().map(|(_, n)| n).sum::<u64>(), total);
    }
    (moves, total)
}

#[test]
fn perft_counts() {
    let mut e = Engine::new();
    e.send("position startpos");
    let (moves, total) = perft_output(&mut e, 3);
    assert_eq!(moves.len(), 20);
    assert_eq!(total, 8902);
    for (m, _) in &moves {
        play(&startpos(), m, CastlingMode::Standard);
    }
    e.send(&format!("position fen {KIWIPETE}"));
    let (moves, total) = perft_output(&mut e, 2);
    assert_eq!(moves.len(), 48);
    assert_eq!(total, 2039);
    // Castling in standard notation.
    assert!(moves.iter().any(|(m, _)| m == "e1g1"), "{moves:?}");
    assert!(moves.iter().any(|(m, _)| m == "e1c1"), "{moves:?}");
    // perft 1, and perft 0: the position itself, one node (as every
    // perft counts it), split by no move.
    let (moves, total) = perft_output(&mut e, 1);
    assert_eq!((moves.len(), total), (48, 48));
    let (moves, total) = perft_output(&mut e, 0);
    assert_eq!((moves.len(), total), (0, 1));
    // A position with no moves: none at depth 2, itself at 0.
    e.send(&format!("position fen {CHECKMATED}"));
    let (moves, total) = perft_output(&mut e, 2);
    assert_eq!((moves.len(), total), (0, 0));
    let (moves, total) = perft_output(&mut e, 0);
    assert_eq!((moves.len(), total), (0, 1));
    assert!(e.isready().is_empty());
}

// ---------------------------------------------------------------------------
// 9. d and eval
// ---------------------------------------------------------------------------

#[test]
fn display_and_eval() {
    let mut e = Engine::new();
    e.send("position startpos");
    e.send("d");
    let lines = e.isready();
    assert!(lines.contains(&format!("Fen: {START_FEN}")), "{lines:?}");
    assert!(
        lines.contains(&"Key: 463B96181691FC9C".to_string()),
        "{lines:?}"
    );
    // The board shows the pieces: the first rank line has the white pieces.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("R | N | B | Q | K | B | N | R")),
        "{lines:?}"
    );
    // A second reference key (Polyglot) after moves, with en passant.
    e.send("position startpos moves e2e4 d7d5 e4e5 f7f5");
    e.send("d");
    let lines = e.isready();
    assert!(
        lines.contains(&"Key: 22A48B5A8E47FF78".to_string()),
        "{lines:?}"
    );
    let key = lines.iter().find_map(|l| l.strip_prefix("Key: ")).unwrap();
    assert!(key.len() == 16 && key.chars().all(|c| c.is_ascii_hexdigit()));

    // eval: the board with each piece's worth, then the net's score.
    e.send("position startpos moves e2e4");
    e.send("eval");
    let lines = e.isready();
    assert!(
        lines.iter().any(|l| l.starts_with(" 8 |   r  |   n  |")),
        "eval output {lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("NNUE evaluation: ") && l.ends_with("cp for White)")),
        "eval output {lines:?}"
    );
    // Setting the retired hand-crafted evaluation's switch is an error
    // that leaves the engine answering.
    e.expect_error("setoption name UseNNUE value false");
    assert!(e.isready().is_empty());
}

// ---------------------------------------------------------------------------
// 10. Chess960
// ---------------------------------------------------------------------------

#[test]
fn chess960_perft_and_search() {
    let mut e = Engine::new();
    e.send("setoption name UCI_Chess960 value true");
    e.send(&format!("position fen {CHESS960_FEN}"));
    let (moves, total) = perft_output(&mut e, 1);
    assert_eq!(total, 21);
    let pos = position(CHESS960_FEN, &[], CastlingMode::Chess960);
    assert_eq!(pos.legal_moves().len(), 21);
    for (m, _) in &moves {
        play(&pos, m, CastlingMode::Chess960);
    }
    let out = e.go("go depth 3");
    out.check(&pos, CastlingMode::Chess960);
}

#[test]
fn castling_notation_standard_and_chess960() {
    let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    let mut e = Engine::new();
    e.send(&format!("position fen {fen}"));
    let out = e.go("go searchmoves e1g1 depth 1");
    assert_eq!(out.bestmove, "e1g1", "standard castling notation");
    out.check(
        &position(fen, &[], CastlingMode::Standard),
        CastlingMode::Standard,
    );

    e.send("setoption name UCI_Chess960 value true");
    for castling in ["H", "K"] {
        let fen960 = format!("4k3/8/8/8/8/8/8/4K2R w {castling} - 0 1");
        e.send(&format!("position fen {fen960}"));
        let out = e.go("go searchmoves e1h1 depth 1");
        assert_eq!(out.bestmove, "e1h1", "Chess960 castling is king takes rook");
        out.check(
            &position(&fen960, &[], CastlingMode::Chess960),
            CastlingMode::Chess960,
        );
        // Played castling moves are read in that notation too.
        e.send(&format!("position fen {fen960} moves e1h1"));
        assert_eq!(e.fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    }

    // Back to standard: the same position prints e1g1 again.
    e.send("setoption name UCI_Chess960 value false");
    e.send(&format!("position fen {fen}"));
    let out = e.go("go searchmoves e1g1 depth 1");
    assert_eq!(out.bestmove, "e1g1");
}

// ---------------------------------------------------------------------------
// 11. Command-line mode
// ---------------------------------------------------------------------------

#[test]
fn command_line_search_exits_by_itself() {
    let mut e = Engine::spawn(
        &[&format!("position fen {MATE_IN_TWO}"), "go depth 4"],
        false,
    );
    let status = e.wait_exit(TIMEOUT);
    assert!(status.success(), "exit status {status:?}");
    let lines = e.rest_of_output(TIMEOUT);
    let out = SearchOutput::parse(lines);
    out.check(
        &position(MATE_IN_TWO, &[], CastlingMode::Standard),
        CastlingMode::Standard,
    );
    assert!(out.values("score").count() > 0);
}

/// An argument that starts no command is a usage error: said on stderr,
/// exit status 2, nothing on stdout (before: an `info string` on stdout,
/// and success).
#[test]
fn an_unknown_argument_is_a_usage_error() {
    for args in [
        &["--bogus"][..],
        &["bogus", "1"],
        &["position startpos", "godepth 1"],
    ] {
        let out = std::process::Command::new(common::exe())
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: {:?}", out.stdout);
        assert!(
            stderr.contains("unknown command or option"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn command_line_bench() {
    let mut e = Engine::spawn(&["bench", "2"], false);
    let status = e.wait_exit(TIMEOUT);
    assert!(status.success(), "exit status {status:?}");
    let lines = e.rest_of_output(TIMEOUT);
    let last = lines.last().expect("bench output");
    let t: Vec<&str> = last.split(' ').collect();
    let is_num = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    assert!(
        t.len() == 4 && is_num(t[0]) && t[1] == "nodes" && is_num(t[2]) && t[3] == "nps",
        "last bench line '{last}' is not 'N nodes M nps'"
    );
    assert!(t[0].parse::<u64>().unwrap() > 0);
}

// ---------------------------------------------------------------------------
// 12. End of input
// ---------------------------------------------------------------------------

#[test]
fn eof_finishes_a_limited_search() {
    let mut e = Engine::new();
    e.send("position startpos");
    e.send("go depth 4");
    e.close_stdin();
    let out = e.read_search(TIMEOUT);
    out.check(&startpos(), CastlingMode::Standard);
    assert!(
        out.values("depth").any(|d| d == "4"),
        "the search was cut short by EOF: {:?}",
        out.lines
    );
    let status = e.wait_exit(TIMEOUT);
    assert!(status.success(), "exit status {status:?}");
    assert!(e.rest_of_output(TIMEOUT).is_empty());
}

#[test]
fn eof_stops_an_infinite_search() {
    let mut e = Engine::new();
    e.send("go infinite");
    thread::sleep(Duration::from_millis(100));
    e.close_stdin();
    let out = e.read_search(TIMEOUT);
    out.check(&startpos(), CastlingMode::Standard);
    let status = e.wait_exit(TIMEOUT);
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn eof_stops_pondering() {
    let mut e = Engine::new();
    e.send("go ponder wtime 1000 btime 1000");
    e.close_stdin();
    let out = e.read_search(TIMEOUT);
    out.check(&startpos(), CastlingMode::Standard);
    assert!(e.wait_exit(TIMEOUT).success());
}

/// A search that nothing but `stop` or `ponderhit` would end is stopped at
/// the end of input: it answers with one `bestmove` and the engine exits,
/// instead of searching on for a GUI that is gone (`go mate 5` on a board
/// without a mate ran on; so do a `go` without limits and a bare `go
/// ponder`, which has no clock to play on after `ponderhit`).
#[test]
fn eof_stops_a_search_that_would_not_end_by_itself() {
    let mode = CastlingMode::Standard;
    for (fen, go) in [
        (START_FEN, "go mate 5"),
        (KIWIPETE, "go mate 3 searchmoves e2a6 d5e6"),
        (START_FEN, "go ponder"),
        (START_FEN, "go"),
        (START_FEN, "go searchmoves e2e4 d2d4"),
    ] {
        let mut e = Engine::new();
        e.send(&format!("position fen {fen}"));
        e.send(go);
        e.close_stdin();
        let status = e.wait_exit(Duration::from_secs(20));
        assert!(status.success(), "'{go}': exit status {status:?}");
        let out = SearchOutput::parse(e.rest_of_output(TIMEOUT));
        out.check(&position(fen, &[], mode), mode);
        let bestmoves = out
            .lines
            .iter()
            .filter(|l| l.starts_with("bestmove"))
            .count();
        assert_eq!(bestmoves, 1, "'{go}': {:?}", out.lines);
    }
    // After `ponderhit` a ponder search on the clock is a search on the
    // clock: it ends by itself, and is left to.
    let mut e = Engine::new();
    e.send("position startpos");
    e.send("go ponder wtime 300 btime 300");
    e.send("ponderhit");
    e.close_stdin();
    assert!(e.wait_exit(TIMEOUT).success());
    let out = SearchOutput::parse(e.rest_of_output(TIMEOUT));
    out.check(&startpos(), mode);
}

#[test]
fn quit_during_search_exits() {
    let mut e = Engine::new();
    e.send("go infinite");
    thread::sleep(Duration::from_millis(100));
    e.send("quit");
    let status = e.wait_exit(TIMEOUT);
    assert!(status.success(), "exit status {status:?}");
}

// ---------------------------------------------------------------------------
// 13. Threads
// ---------------------------------------------------------------------------

#[test]
fn two_threads_search() {
    let mut e = Engine::new();
    e.expect_silent("setoption name Threads value 2");
    e.send("position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    let pos = position(
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        &[],
        CastlingMode::Standard,
    );
    // Stop mid-search.
    e.send("go infinite");
    thread::sleep(Duration::from_millis(200));
    e.send("stop");
    e.read_search(TIMEOUT).check(&pos, CastlingMode::Standard);
    assert!(e.isready().is_empty());
    let out = e.go("go depth 5");
    out.check(&pos, CastlingMode::Standard);
    assert!(out.values("depth").any(|d| d == "5"), "{:?}", out.lines);
    // And a timed one with both threads: it ends by itself.
    let out = e.go("go movetime 200");
    out.check(&pos, CastlingMode::Standard);
    assert!(e.isready().is_empty());
}

// ---------------------------------------------------------------------------
// 12. The evaluation network: EvalFile
// ---------------------------------------------------------------------------

/// The embedded net's own file.
fn embedded_net_file() -> String {
    format!("nets/{}.nnue", lasker::nnue::EMBEDDED_NAME)
}

/// The net score `eval` prints for the side to move.
fn nnue_score(e: &mut Engine) -> i32 {
    e.send("eval");
    let lines = e.isready();
    let line = lines
        .iter()
        .find(|l| l.starts_with("NNUE evaluation: "))
        .unwrap_or_else(|| panic!("no NNUE line in {lines:?}"));
    line["NNUE evaluation: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn eval_file_refuses_bad_nets_and_keeps_the_current_one() {
    let dir = std::env::temp_dir().join(format!("lasker-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let embedded = std::fs::read(embedded_net_file()).unwrap();
    let truncated = dir.join("truncated.nnue");
    std::fs::write(&truncated, &embedded[..embedded.len() / 2]).unwrap();
    let corrupt = dir.join("corrupt.nnue");
    let mut bytes = embedded.clone();
    bytes[5000] ^= 0x40;
    std::fs::write(&corrupt, &bytes).unwrap();
    // The same net with a different output bias: a different score.
    let other = dir.join("other.nnue");
    let mut bytes = embedded.clone();
    // The output biases (one i32 per output bucket, the header's fifth
    // word) end 8 bytes before the end; each gains one 400-cp unit.
    let outputs = u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
    let body = bytes.len() - 8;
    for bias_at in (body - 4 * outputs..body).step_by(4) {
        let bias = i32::from_le_bytes(bytes[bias_at..bias_at + 4].try_into().unwrap()) + 255 * 64;
        bytes[bias_at..bias_at + 4].copy_from_slice(&bias.to_le_bytes());
    }
    let checksum = bytes[..body]
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    bytes[body..].copy_from_slice(&checksum.to_le_bytes());
    std::fs::write(&other, &bytes).unwrap();

    let mut e = Engine::new();
    e.send("position fen 8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1");
    let start = nnue_score(&mut e);
    for bad in [
        truncated.display().to_string(),
        corrupt.display().to_string(),
        "/no/such/file.nnue".to_string(),
    ] {
        e.expect_error(&format!("setoption name EvalFile value {bad}"));
        assert_eq!(nnue_score(&mut e), start, "a refused file changed the net");
    }
    e.send(&format!(
        "setoption name EvalFile value {}",
        other.display()
    ));
    let lines = e.isready();
    assert!(lines.iter().any(|l| l.contains("loaded")), "{lines:?}");
    // One 400-cp unit more (give or take the rounding of the division),
    // shown normalised: 400 * 100 / NORMALISED_PAWN.
    let moved = nnue_score(&mut e);
    let unit = 400 * 100 / lasker::score::NORMALISED_PAWN;
    assert!((moved - start - unit).abs() <= 2, "{start} -> {moved}");
    e.send("setoption name EvalFile value <embedded>");
    assert_eq!(nnue_score(&mut e), start);

    // Searching with a loaded net gives legal moves and stops at its limits.
    e.send(&format!(
        "setoption name EvalFile value {}",
        other.display()
    ));
    let mode = CastlingMode::Standard;
    for (fen, moves) in [(START_FEN, vec![]), (KIWIPETE, vec!["e1g1"])] {
        let pos = position(fen, &moves, mode);
        e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
        e.go("go depth 7").check(&pos, mode);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// 14. Playing below full strength: UCI_LimitStrength, UCI_Elo
// ---------------------------------------------------------------------------

const MIN_ELO: u32 = 600;
const DEFAULT_ELO: u32 = 1350;
const MAX_ELO: u32 = 2800;

/// An engine set to play at `elo`, its choices seeded with `seed`.
fn limited_engine(elo: u32, seed: u64) -> Engine {
    let mut e = Engine::new();
    e.expect_silent("setoption name UCI_LimitStrength value true");
    e.expect_silent(&format!("setoption name UCI_Elo value {elo}"));
    e.expect_silent(&format!("setoption name StrengthSeed value {seed}"));
    e
}

/// The node count of a search's last `info` line.
fn final_nodes(out: &SearchOutput) -> u64 {
    out.values("nodes")
        .last()
        .unwrap_or_else(|| panic!("no nodes in {:?}", out.lines))
        .parse()
        .unwrap()
}

/// A search's last `info` line is the line of the move it plays (a weakened
/// search reports several lines, and may play any of them).
fn check_last_info_is_the_move_played(out: &SearchOutput) {
    let last = out.infos().last().expect("an info line");
    let pv = last
        .split_once(" pv ")
        .unwrap_or_else(|| panic!("last info line without a pv: '{last}'"))
        .1;
    assert_eq!(
        pv.split_whitespace().next(),
        Some(out.bestmove.as_str()),
        "{:?}",
        out.lines
    );
}

#[test]
fn strength_options_are_listed_and_the_seed_is_not() {
    let mut e = Engine::new();
    e.send("uci");
    let lines = e.lines_until(|l| l == "uciok", TIMEOUT);
    for wanted in [
        "option name UCI_LimitStrength type check default false".to_string(),
        format!("option name UCI_Elo type spin default {DEFAULT_ELO} min {MIN_ELO} max {MAX_ELO}"),
        "option name Skill Level type spin default 20 min 0 max 20".to_string(),
    ] {
        assert!(lines.contains(&wanted), "'{wanted}' not in {lines:?}");
    }
    // The seed is for tests: a GUI would only show it.
    assert!(!lines.iter().any(|l| l.contains("Seed")), "{lines:?}");
    e.expect_silent("setoption name StrengthSeed value 12345");
    e.expect_error("setoption name StrengthSeed value -1");
}

#[test]
fn limited_strength_plays_legal_moves_at_one_millisecond() {
    let mode = CastlingMode::Standard;
    for elo in [MIN_ELO, 2100, MAX_ELO] {
        let mut e = limited_engine(elo, u64::from(elo));
        for (fen, moves) in [
            (START_FEN, vec!["e2e4"]),
            (KIWIPETE, vec![]),
            (MATE_IN_TWO, vec![]),
        ] {
            let pos = position(fen, &moves, mode);
            e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
            for go in [
                "go movetime 1",
                "go wtime 50 btime 50",
                "go wtime 1 btime 1",
                "go wtime 0 btime 0 winc 0 binc 0",
                "go wtime 50 btime 50 movestogo 1",
            ] {
                let out = e.go(go);
                out.check(&pos, mode);
                check_last_info_is_the_move_played(&out);
            }
        }
        // No move to play is still no move.
        e.send(&format!("position fen {CHECKMATED}"));
        e.go("go movetime 1").check_no_move();
    }
}

/// A weakened search ranks several lines to choose among (the library's
/// `a_weakened_search_ranks_its_candidate_lines` counts them), and reports
/// only the one it plays, as `multipv 1`: before, every candidate was
/// reported at every depth (up to 12 lines at 600) and then the played
/// line again as a second `multipv 1`. The top levels (weakness 0) choose
/// nothing and report as a search at full strength does.
#[test]
fn a_weakened_search_reports_only_the_line_it_plays() {
    let mode = CastlingMode::Standard;
    for (elo, chooses) in [
        (MIN_ELO, true),
        (1500, true),
        (2000, true),
        (2700, true),
        (MAX_ELO, false),
    ] {
        let mut e = limited_engine(elo, 5);
        for (fen, go) in [
            (KIWIPETE, "go movetime 300"),
            (START_FEN, "go depth 5"),
            (MATE_IN_TWO, "go depth 5"),
        ] {
            let pos = position(fen, &[], mode);
            e.send(&format!("position fen {fen}"));
            let out = e.go(go);
            out.check(&pos, mode);
            check_last_info_is_the_move_played(&out);
            let numbers: Vec<String> = out.values("multipv").collect();
            assert!(
                numbers.iter().all(|n| n == "1"),
                "at {elo}, '{go}': {:?}",
                out.lines
            );
            if chooses {
                assert_eq!(numbers.len(), 1, "at {elo}, '{go}': {:?}", out.lines);
            }
        }
    }
    // MultiPV asks for lines; a weakened search still shows the one it
    // plays.
    let mut e = limited_engine(1500, 7);
    e.expect_silent("setoption name MultiPV value 3");
    e.send(&format!("position fen {KIWIPETE}"));
    let out = e.go("go depth 5");
    out.check(&position(KIWIPETE, &[], mode), mode);
    check_last_info_is_the_move_played(&out);
    assert_eq!(
        out.values("multipv").collect::<Vec<_>>(),
        ["1"],
        "{:?}",
        out.lines
    );
}

#[test]
fn a_weak_level_plays_a_game_of_legal_moves_on_a_short_clock() {
    let mut e = limited_engine(MIN_ELO, 99);
    e.send("ucinewgame");
    let mode = CastlingMode::Standard;
    let mut pos = startpos();
    let mut moves: Vec<String> = Vec::new();
    let mut clock = [1000i64, 1000i64];
    for ply in 0..80 {
        if pos.is_game_over() {
            break;
        }
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        let t = Instant::now();
        let out = e.go(&format!(
            "go wtime {} btime {} winc 10 binc 10",
            clock[0], clock[1]
        ));
        clock[ply % 2] += 10 - t.elapsed().as_millis() as i64;
        out.check(&pos, mode);
        check_last_info_is_the_move_played(&out);
        pos = play(&pos, &out.bestmove, mode);
        moves.push(out.bestmove);
    }
    e.send(&format!("position startpos moves {}", moves.join(" ")));
    assert_eq!(e.fen(), fen_of(&pos));
}

/// The moves a fresh engine at `elo` with `seed` plays in each position
/// (a new game before each, so the table and histories start the same).
fn seeded_moves(elo: u32, seed: u64, positions: &[&str]) -> Vec<String> {
    let mut e = limited_engine(elo, seed);
    positions
        .iter()
        .map(|fen| {
            e.send("ucinewgame");
            e.send(&format!("position fen {fen}"));
            let out = e.go("go wtime 600000 btime 600000");
            out.check(
                &position(fen, &[], CastlingMode::Standard),
                CastlingMode::Standard,
            );
            out.bestmove
        })
        .collect()
}

#[test]
fn the_same_seed_and_position_give_the_same_move() {
    let positions = [
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        KIWIPETE,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    ];
    let first = seeded_moves(MIN_ELO, 7, &positions);
    assert_eq!(seeded_moves(MIN_ELO, 7, &positions), first);
    let stronger = seeded_moves(2300, 7, &positions);
    assert_eq!(seeded_moves(2300, 7, &positions), stronger);
    // Other seeds choose other moves somewhere: the choice is random.
    let others: Vec<Vec<String>> = (1..=6)
        .map(|s| seeded_moves(MIN_ELO, s, &positions))
        .collect();
    assert!(
        others.iter().any(|m| *m != first),
        "seven seeds, one choice: {first:?} {others:?}"
    );
}

#[test]
fn uci_elo_out_of_range_is_refused_and_keeps_the_old_value() {
    let mode = CastlingMode::Standard;
    let pos = position(KIWIPETE, &[], mode);
    // 2300 rather than the top: its budget (360,000 nodes) ends the search
    // before the clock does, and soon.
    let mut e = limited_engine(2300, 1);
    // Searched nodes tell the level: a higher Elo searches more.
    let nodes_at = |e: &mut Engine| {
        e.send("ucinewgame");
        e.send(&format!("position fen {KIWIPETE}"));
        let out = e.go("go wtime 600000 btime 600000");
        out.check(&pos, mode);
        final_nodes(&out)
    };
    let strong = nodes_at(&mut e);
    e.expect_silent("setoption name UCI_Elo value 2000");
    let middle = nodes_at(&mut e);
    e.expect_silent(&format!("setoption name UCI_Elo value {MIN_ELO}"));
    let weakest = nodes_at(&mut e);
    assert!(
        weakest < middle && middle < strong,
        "{weakest} {middle} {strong}"
    );
    for bad in [
        format!("setoption name UCI_Elo value {}", MAX_ELO + 1),
        format!("setoption name UCI_Elo value {}", MIN_ELO - 1),
        "setoption name UCI_Elo value -5".to_string(),
        "setoption name UCI_Elo value strong".to_string(),
        "setoption name UCI_Elo".to_string(),
    ] {
        e.send(&bad);
        let lines = e.isready();
        assert!(
            matches!(&lines[..], [l] if l.starts_with("info string error: ") && l.contains("UCI_Elo")),
            "'{bad}' gave {lines:?}"
        );
    }
    assert_eq!(
        nodes_at(&mut e),
        weakest,
        "a refused UCI_Elo changed the level"
    );

    // Off again: the search is the full-strength one, node for node.
    e.expect_silent("setoption name UCI_LimitStrength value false");
    e.send("ucinewgame");
    e.send(&format!("position fen {KIWIPETE}"));
    let off = final_nodes(&e.go("go depth 8"));
    let mut fresh = Engine::new();
    fresh.send(&format!("position fen {KIWIPETE}"));
    assert_eq!(final_nodes(&fresh.go("go depth 8")), off);
}

/// Lasker–Reichhelm (Fine #70): only 1.Kb1 wins. With the embedded net a
/// search from a fresh engine settles on Kb1, with a winning score, within
/// `KB1_NODES` nodes and keeps it at every later depth to the end of a
/// 600,000-node search, at least five depths on. The budget is issue 44's
/// 25 ms in nodes: the project's machine searches this ending at about 2.9 M
/// nodes a second, and the embedded net 28 settles from depth 18 at 72,254
/// nodes (docs/testing.md has each net's depth and nodes). Nodes, not time:
/// one thread searches the same tree on any machine.
#[test]
fn lasker_reichhelm_settles_on_kb1_within_the_node_budget() {
    const KB1_NODES: u64 = 75_000;
    let mut e = Engine::new();
    e.send("position fen 8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1");
    let out = e.go("go nodes 600000");
    // Each depth's last full line: (depth, nodes, first move, score).
    let mut depths: Vec<(u32, u64, String, i32)> = Vec::new();
    for line in out.infos() {
        let t: Vec<&str> = line.split_whitespace().collect();
        let at = |key: &str| t.iter().position(|&x| x == key).map(|i| t[i + 1]);
        let bound = t.contains(&"upperbound") || t.contains(&"lowerbound");
        let (Some(depth), Some(nodes), Some(pv), Some("cp")) =
            (at("depth"), at("nodes"), at("pv"), at("score"))
        else {
            continue;
        };
        if bound {
            continue;
        }
        let score: i32 = t[t.iter().position(|&x| x == "score").unwrap() + 2]
            .parse()
            .unwrap();
        let row = (
            depth.parse().unwrap(),
            nodes.parse().unwrap(),
            pv.to_string(),
            score,
        );
        match depths.last_mut() {
            Some(last) if last.0 == row.0 => *last = row,
            _ => depths.push(row),
        }
    }
    assert_eq!(out.bestmove, "a1b1", "{depths:?}");
    let settled = depths
        .iter()
        .rposition(|(_, _, pv, score)| pv != "a1b1" || *score <= 100)
        .map_or(0, |i| i + 1);
    let (depth, nodes, _, score) = depths
        .get(settled)
        .unwrap_or_else(|| panic!("never settled on Kb1: {depths:?}"));
    assert!(
        *nodes <= KB1_NODES,
        "Kb1 for good only from depth {depth} at {nodes} nodes ({score} cp): {depths:?}"
    );
    assert!(depths.last().unwrap().0 > *depth + 4, "{depths:?}");
}

// ---------------------------------------------------------------------------
// 15. Every go answered
// ---------------------------------------------------------------------------

/// A `go` whose line the engine can't read in full still searches and
/// answers once, naming what it skipped; limits below the smallest search
/// are the smallest search.
#[test]
fn every_go_gets_one_bestmove_whatever_follows_it() {
    let mode = CastlingMode::Standard;
    let mut e = Engine::new();
    e.send("position startpos moves e2e4 c7c5");
    let pos = position(START_FEN, &["e2e4", "c7c5"], mode);
    for (go, skipped) in [
        ("go wibble depth 2", 1),
        ("go depth 0", 0),
        ("go mate 0", 0),
        ("go nodes 0", 0),
        ("go movetime 0", 0),
        ("go depth x movetime 20", 1),
        ("go depth -3", 0),
        ("go nodes depth 2", 1),
        ("go searchmoves e2e5 depth 2", 1),
        ("go searchmoves zz g1f3 depth 1", 1),
        ("go wtime -100 btime -100", 0),
        ("go wtime 99999999999999999999 btime 216 depth 3", 0),
        ("go wtime 1000.5 btime 1000 winc x", 1),
        ("go depth 2 wibble wobble", 2),
    ] {
        let out = e.go(go);
        out.check(&pos, mode);
        let notes = out
            .lines
            .iter()
            .filter(|l| l.starts_with("info string go: ignored"))
            .count();
        assert_eq!(notes, skipped, "'{go}': {:?}", out.lines);
        if go.contains("searchmoves zz g1f3") {
            assert_eq!(out.bestmove, "g1f3");
        }
        assert!(e.isready().is_empty(), "after '{go}'");
    }
    // A bare `go` (or one of unknown words only) searches until `stop`.
    e.send("go wibble");
    e.no_line_within(
        Duration::from_millis(200),
        |l| l.starts_with("bestmove"),
        "bestmove of an unlimited go before stop",
    );
    e.send("stop");
    e.read_search(TIMEOUT).check(&pos, mode);
}

// ---------------------------------------------------------------------------
// 16. The board the GUI set, never an older one
// ---------------------------------------------------------------------------

#[test]
fn castling_rights_the_board_contradicts_are_dropped() {
    let mut e = Engine::new();
    // The white king has gone to e2 and the h8-rook is gone, as a
    // hand-edited FEN still claims KQkq.
    let fen = "rnbqkbn1/pppppppp/8/8/8/8/PPPPKPPP/RNBQ1BNR w KQkq - 0 1";
    e.send(&format!("position fen {fen}"));
    let lines = e.isready();
    assert!(
        matches!(&lines[..], [l] if l.starts_with("info string castling rights 'KQkq'")),
        "{lines:?}"
    );
    let read = "rnbqkbn1/pppppppp/8/8/8/8/PPPPKPPP/RNBQ1BNR w q - 0 1";
    assert_eq!(e.fen(), read);
    e.go("go depth 3").check(
        &position(read, &[], CastlingMode::Standard),
        CastlingMode::Standard,
    );
}

#[test]
fn a_chess960_fen_in_standard_mode_is_played_as_chess960() {
    let mut e = Engine::new();
    e.send(&format!("position fen {CHESS960_FEN}"));
    let lines = e.isready();
    assert!(
        matches!(&lines[..], [l] if l.contains("Chess960")),
        "{lines:?}"
    );
    let pos = position(CHESS960_FEN, &[], CastlingMode::Chess960);
    e.go("go depth 4").check(&pos, CastlingMode::Chess960);
    // Castling is king takes rook there: e1h1 castles in this one.
    let fen = "r3k2r/8/8/8/8/8/8/1R2K1R1 w GBha - 0 1";
    e.send(&format!("position fen {fen} moves e1g1"));
    e.isready();
    assert!(
        e.fen().starts_with("r3k2r/8/8/8/8/8/8/1R3RK1 b "),
        "{}",
        e.fen()
    );
    // The next standard position is standard again.
    e.send("position startpos");
    assert!(e.isready().is_empty());
    let out = e.go("go depth 2");
    out.check(&startpos(), CastlingMode::Standard);
}

#[test]
fn a_move_list_is_played_up_to_its_first_illegal_move() {
    let mode = CastlingMode::Standard;
    let mut e = Engine::new();
    e.send("position startpos moves e2e4 e7e5 e4e5 g1f3");
    let lines = e.isready();
    assert!(
        matches!(&lines[..], [l] if l.starts_with("info string error: ") && l.contains("e4e5")),
        "{lines:?}"
    );
    let pos = position(START_FEN, &["e2e4", "e7e5"], mode);
    assert_eq!(e.fen(), fen_of(&pos));
    e.go("go depth 3").check(&pos, mode);
}

#[test]
fn an_unreadable_position_answers_go_with_no_move() {
    let mut e = Engine::new();
    e.send("position startpos moves e2e4");
    for bad in [
        "position fen 8/8 w",
        "position fen 8/8/8/8/8/8/8/KK5k w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
        "position fen",
        "position",
        "position startpos e2e4",
    ] {
        e.expect_error(bad);
        // Not the old board's move: none.
        e.send("go depth 3");
        let out = e.read_search(TIMEOUT);
        out.check_no_move();
        assert!(
            out.lines
                .iter()
                .any(|l| l.starts_with("info string error: ")),
            "'{bad}' then go: {:?}",
            out.lines
        );
        e.expect_error("d");
        // A good position after it plays again.
        e.send("position startpos");
        e.go("go depth 1")
            .check(&startpos(), CastlingMode::Standard);
        e.send("position startpos moves e2e4");
    }
}

// ---------------------------------------------------------------------------
// 17. A forced move at once
// ---------------------------------------------------------------------------

#[test]
fn a_forced_move_is_answered_after_a_shallow_search() {
    let mode = CastlingMode::Standard;
    // Black's king in check from the rook has one square: b8.
    let fen = "k7/8/1K6/8/8/8/8/R7 b - - 0 1";
    let pos = position(fen, &[], mode);
    assert_eq!(pos.legal_moves().len(), 1);
    let mut e = Engine::new();
    e.send(&format!("position fen {fen}"));
    let out = e.go("go wtime 60000 btime 60000 winc 1000 binc 1000");
    out.check(&pos, mode);
    // A minute on the clock would buy seconds of search; the forced move
    // takes a shallow one (its node count, not its time: the machine may
    // be busy).
    let nodes = final_nodes(&out);
    assert!(nodes < 100_000, "{nodes} nodes for a forced move");
    let depth: u32 = out.values("depth").last().unwrap().parse().unwrap();
    assert!(depth <= 8, "depth {depth}");
    // A search the user timed runs as asked.
    let out = e.go("go depth 12");
    out.check(&pos, mode);
    assert!(out.values("depth").any(|d| d == "12"), "{:?}", out.lines);
}

// ---------------------------------------------------------------------------
// 18. MultiPV: exact lines only
// ---------------------------------------------------------------------------

#[test]
fn multipv_lines_are_exact() {
    let mode = CastlingMode::Standard;
    let mut e = Engine::new();
    e.send("setoption name MultiPV value 3");
    // A sharp position, where aspiration windows fail often.
    e.send(&format!("position fen {KIWIPETE}"));
    let out = e.go("go movetime 1500");
    out.check(&position(KIWIPETE, &[], mode), mode);
    assert!(out.values("multipv").any(|v| v == "3"), "{:?}", out.lines);
    for l in out.infos() {
        assert!(
            !l.contains("lowerbound") && !l.contains("upperbound"),
            "a bound among MultiPV lines: '{l}'"
        );
    }
}

/// A line's value after `key` in an info line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut tokens = line.split_whitespace();
    tokens.find(|&t| t == key)?;
    tokens.next()
}

/// An info line's score as one number that orders as scores do: a mate in
/// fewer moves above one in more, above every centipawn score.
fn ordered_score(line: &str) -> i64 {
    if let Some(cp) = field(line, "cp") {
        return cp.parse().unwrap();
    }
    let moves: i64 = field(line, "mate")
        .unwrap_or_else(|| panic!("no score in '{line}'"))
        .parse()
        .unwrap();
    if moves > 0 {
        1_000_000 - moves
    } else {
        -1_000_000 - moves
    }
}

/// Every depth's MultiPV lines come best first, and the move played is
/// the last depth's first line. Each line is a search of its own, so a
/// later one can score above an earlier one: the finished lines are ranked
/// again after each. Fixed depths from a fresh table, so that a failure
/// repeats; each position had depths out of order before the lines were
/// ranked again (the Italian at 9 to 12, 1 s of search).
#[test]
fn multipv_lines_come_best_first_at_every_depth() {
    let mode = CastlingMode::Standard;
    let mut e = Engine::new();
    e.send("setoption name MultiPV value 4");
    for fen in [
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        START_FEN,
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    ] {
        e.send("ucinewgame");
        e.send(&format!("position fen {fen}"));
        let out = e.go("go depth 12");
        out.check(&position(fen, &[], mode), mode);
        let lines: Vec<&str> = out
            .infos()
            .filter(|l| l.contains(" multipv "))
            .map(String::as_str)
            .collect();
        let depths: Vec<&[&str]> = lines
            .chunk_by(|a, b| field(a, "depth") == field(b, "depth"))
            .collect();
        let last = depths.last().expect("MultiPV lines");
        assert_eq!(field(last[0], "depth"), Some("12"), "{:?}", out.lines);
        for depth in &depths {
            let numbers: Vec<&str> = depth.iter().map(|l| field(l, "multipv").unwrap()).collect();
            assert_eq!(numbers, ["1", "2", "3", "4"], "{fen}: {depth:?}");
            let scores: Vec<i64> = depth.iter().map(|l| ordered_score(l)).collect();
            assert!(
                scores.windows(2).all(|w| w[0] >= w[1]),
                "{fen}: lines out of order {scores:?} in {depth:?}"
            );
        }
        assert_eq!(
            field(last[0], "pv"),
            Some(out.bestmove.as_str()),
            "{:?}",
            out.lines
        );
    }
}

// ---------------------------------------------------------------------------
// 19. Troubleshooting: Debug Log File, --version, --help, EvalFile's folder
// ---------------------------------------------------------------------------

#[test]
fn the_debug_log_keeps_every_line_in_and_out() {
    let dir = std::env::temp_dir().join(format!("lasker-debuglog-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("lasker.log");
    let mut e = Engine::new();
    e.expect_silent(&format!(
        "setoption name Debug Log File value {}",
        log.display()
    ));
    e.send("position startpos");
    let out = e.go("go depth 2");
    e.expect_silent("setoption name Debug Log File value <empty>");
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Each line: date, time, direction, the line itself.
    for l in &lines {
        let t: Vec<&str> = l.splitn(4, ' ').collect();
        assert!(
            t.len() == 4 && t[0].len() == 10 && t[1].len() == 12,
            "'{l}'"
        );
        assert!(matches!(t[2], "<<" | ">>"), "'{l}'");
    }
    let body: Vec<String> = lines
        .iter()
        .map(|l| l.splitn(4, ' ').nth(3).unwrap().to_string())
        .collect();
    assert!(body.contains(&"position startpos".to_string()), "{body:?}");
    assert!(body.contains(&"go depth 2".to_string()), "{body:?}");
    assert!(body.contains(&"readyok".to_string()), "{body:?}");
    assert!(body.contains(out.lines.last().unwrap()), "{body:?}");
    // After the option was emptied, nothing more was written.
    assert_eq!(
        body.last().unwrap(),
        "setoption name Debug Log File value <empty>"
    );
    // A file that can't be opened is an error, and the engine goes on.
    e.expect_error("setoption name Debug Log File value /no/such/folder/x.log");
    e.go("go depth 1")
        .check(&startpos(), CastlingMode::Standard);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn version_and_help() {
    let mut e = Engine::spawn(&["--version"], false);
    assert!(e.wait_exit(TIMEOUT).success());
    let lines = e.rest_of_output(TIMEOUT);
    assert_eq!(lines[0], format!("Lasker {}", env!("CARGO_PKG_VERSION")));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("build: x86-64") || l.starts_with("build: aarch64")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("net: net")), "{lines:?}");
    let mut e = Engine::spawn(&["--help"], false);
    assert!(e.wait_exit(TIMEOUT).success());
    let lines = e.rest_of_output(TIMEOUT);
    assert!(
        lines.iter().any(|l| l.contains("lasker bench")),
        "{lines:?}"
    );
}

/// `lasker --help | head -1` closes the pipe before the engine has
/// written: the engine exits quietly instead of panicking on it (CI's
/// `lasker-tools --help | grep -q` failed that way; `tools/tests` holds that
/// binary to the same).
#[test]
fn a_closed_stdout_is_no_panic() {
    for arg in ["--help", "--version"] {
        common::exits_quietly_with_stdout_closed(&common::exe(), arg);
    }
}

#[test]
fn eval_file_is_found_beside_the_binary() {
    let dir = std::env::temp_dir().join(format!("lasker-beside-{}", std::process::id()));
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let exe = dir.join("lasker");
    std::fs::copy(common::exe(), &exe).unwrap();
    std::fs::copy(embedded_net_file(), dir.join("beside.nnue")).unwrap();
    let mut child = std::process::Command::new(&exe)
        .current_dir(&elsewhere)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "setoption name EvalFile value beside.nnue\nisready\nquit"
    )
    .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("info string EvalFile ") && l.contains("beside.nnue loaded")),
        "{text}"
    );
    assert!(!text.contains("error"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// 20. Skill Level
// ---------------------------------------------------------------------------

#[test]
fn skill_level_plays_the_elo_tables_levels() {
    let mode = CastlingMode::Standard;
    let pos = position(KIWIPETE, &[], mode);
    let mut e = Engine::new();
    e.expect_silent("setoption name StrengthSeed value 3");
    e.send(&format!("position fen {KIWIPETE}"));
    // Skill Level 0: the weakest UCI_Elo, whose budget (16 nodes) ends the
    // search with its first iteration; it reports only the line it plays.
    e.expect_silent("setoption name Skill Level value 0");
    let out = e.go("go wtime 60000 btime 60000");
    out.check(&pos, mode);
    check_last_info_is_the_move_played(&out);
    let most = |out: &SearchOutput| {
        out.values("multipv")
            .map(|v| v.parse::<usize>().unwrap())
            .max()
    };
    assert_eq!(most(&out), Some(1), "{:?}", out.lines);
    assert_eq!(
        out.values("depth").collect::<Vec<_>>(),
        ["1"],
        "{:?}",
        out.lines
    );
    let weakest = final_nodes(&out);
    // UCI_LimitStrength's UCI_Elo comes first: 2000's budget, 15,100 nodes.
    e.expect_silent("setoption name UCI_LimitStrength value true");
    e.expect_silent("setoption name UCI_Elo value 2000");
    let out = e.go("go wtime 60000 btime 60000");
    assert_eq!(most(&out), Some(1), "{:?}", out.lines);
    assert!(
        final_nodes(&out) >= 15_100 && weakest < 15_100,
        "{weakest} nodes at Skill Level 0, then {:?}",
        out.lines
    );
    // Skill Level 20 is full strength: one line, searched to the limit.
    e.expect_silent("setoption name UCI_LimitStrength value false");
    e.expect_silent("setoption name Skill Level value 20");
    let out = e.go("go depth 6");
    assert_eq!(most(&out), Some(1));
    assert!(out.values("depth").any(|d| d == "6"));
    e.expect_error("setoption name Skill Level value 21");
}
