//! The `lasker` binary over pipes, as a GUI drives it: shared by the test
//! files that talk UCI to the real engine (each includes it with `mod
//! common;`, and each uses only part of it).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

/// The engine binary: Cargo's path for the engine's own tests. The tools'
/// tests (`tools/`, another package of the workspace, to which Cargo gives
/// no path of the engine's binary) find the `lasker` that the same build
/// put in the target folder, above their own `deps/`.
pub fn exe() -> PathBuf {
    if let Some(path) = option_env!("CARGO_BIN_EXE_lasker") {
        return PathBuf::from(path);
    }
    let test = std::env::current_exe().expect("the test binary's path");
    let beside = test
        .parent()
        .and_then(Path::parent)
        .map(|dir| dir.join(format!("lasker{}", std::env::consts::EXE_SUFFIX)))
        .expect("a target folder");
    assert!(
        beside.exists(),
        "no engine binary at {}: run the tools' tests with the engine's (`make test`, \
         or `cargo test --workspace`), which builds it",
        beside.display()
    );
    beside
}

/// A hang guard, not a speed limit: how long to wait for an expected answer
/// before calling the engine stuck. The tests check the order and content of
/// the lines, never how fast they came (other tests run beside them on two
/// shared cores, with debug assertions on); speed is measured by `bench` and
/// by matches, where a time loss is counted.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Kiwipete: castling, en passant, checks, captures of every kind.
pub const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// A running engine with its stdout read line by line on a thread.
pub struct Engine {
    pub child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<String>,
    /// Every line read so far (for failure messages).
    seen: Vec<String>,
    /// Every command sent so far (for failure messages).
    sent: Vec<String>,
}

impl Engine {
    /// The engine in interactive mode.
    pub fn new() -> Engine {
        Engine::spawn(&[], true)
    }

    /// The engine with command-line arguments; stdin is `/dev/null` unless
    /// `piped`.
    pub fn spawn(args: &[&str], piped: bool) -> Engine {
        let mut child = Command::new(exe())
            .args(args)
            .stdin(if piped { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting the engine");
        let rx = read_lines(child.stdout.take().expect("piped stdout"));
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            rx,
            seen: Vec::new(),
            sent: Vec::new(),
        }
    }

    pub fn transcript(&self) -> String {
        format!(
            "commands sent:\n  {}\nlines received:\n  {}",
            self.sent.join("\n  "),
            self.seen.join("\n  ")
        )
    }

    pub fn send(&mut self, cmd: &str) {
        let mut shown = cmd.to_string();
        if shown.len() > 200 {
            let head: String = shown.chars().take(200).collect();
            shown = format!("{head}... ({} bytes)", cmd.len());
        }
        self.sent.push(shown);
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{cmd}").expect("writing to the engine");
        stdin.flush().expect("flushing the engine's stdin");
    }

    /// Writes `bytes` to the engine as they are (a line end only where
    /// they hold one): input that is not UTF-8, or not a whole line.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let shown: String = String::from_utf8_lossy(bytes).chars().take(200).collect();
        self.sent
            .push(format!("{shown:?} (bytes, {} in all)", bytes.len()));
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("writing to the engine");
        stdin.flush().expect("flushing the engine's stdin");
    }

    /// Closes the engine's stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.sent.push("<EOF>".to_string());
        self.stdin = None;
    }

    /// The next line, or `None` if none comes within `timeout`; panics if
    /// stdout closed.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.rx.recv_timeout(timeout) {
            Ok(line) => {
                self.seen.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                panic!("engine closed stdout\n{}", self.transcript())
            }
        }
    }

    /// Reads lines up to and including the first one matching `pred`, and
    /// returns them all; panics with the transcript if none comes in time.
    pub fn lines_until(&mut self, pred: impl Fn(&str) -> bool, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let done = pred(&line);
                    lines.push(line);
                    if done {
                        return lines;
                    }
                }
                None => panic!("no expected line within {timeout:?}\n{}", self.transcript()),
            }
        }
    }

    /// The first line matching `pred` (earlier lines are consumed).
    pub fn expect_line(&mut self, pred: impl Fn(&str) -> bool, timeout: Duration) -> String {
        self.lines_until(pred, timeout)
            .pop()
            .expect("lines_until returns the matching line")
    }

    /// The nodes of a search of `fen` to `depth` from a fresh state
    /// (`ucinewgame` clears the table and the move-ordering history): the
    /// count of the last `info depth <depth>` line. A fixed-depth search
    /// repeats exactly, so a changed count means a changed search.
    pub fn nodes_to_depth(&mut self, fen: &str, depth: u32, timeout: Duration) -> u64 {
        self.send("ucinewgame");
        self.send(&format!("position fen {fen}"));
        self.send(&format!("go depth {depth}"));
        let lines = self.lines_until(|l| l.starts_with("bestmove"), timeout);
        let depth_reached = format!("info depth {depth} ");
        let last = lines
            .iter()
            .rfind(|l| l.starts_with(&depth_reached) && l.contains(" nodes "))
            .unwrap_or_else(|| panic!("no depth {depth} info line in {lines:?}"));
        let tokens: Vec<&str> = last.split_whitespace().collect();
        let at = tokens.iter().position(|&t| t == "nodes").expect("nodes");
        tokens[at + 1].parse().expect("a node count")
    }

    /// Sends `isready` and waits for `readyok`; returns the lines before it.
    pub fn isready(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.lines_until(|l| l == "readyok", TIMEOUT);
        lines.pop();
        lines
    }

    /// Collects lines for `wait`, asserts that none matches `pred`, and
    /// returns them.
    pub fn no_line_within(
        &mut self,
        wait: Duration,
        pred: impl Fn(&str) -> bool,
        what: &str,
    ) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return lines;
            }
            if let Some(line) = self.next_line(left) {
                assert!(
                    !pred(&line),
                    "{what}: unexpected line '{line}'\n{}",
                    self.transcript()
                );
                lines.push(line);
            }
        }
    }

    /// Sends `cmd` (a bad command), then `isready`, and asserts that an
    /// `info string error:` line came before `readyok` and nothing else did.
    pub fn expect_error(&mut self, cmd: &str) {
        self.send(cmd);
        let lines = self.isready();
        let errors = lines
            .iter()
            .filter(|l| l.starts_with("info string error: "))
            .count();
        assert_eq!(
            errors,
            1,
            "'{cmd}' should give exactly one error line, got {lines:?}\n{}",
            self.transcript()
        );
        assert_eq!(
            lines.len(),
            1,
            "'{cmd}' should give only the error line, got {lines:?}"
        );
    }

    /// Sends `cmd` and `isready`, and asserts that no line at all came back.
    pub fn expect_silent(&mut self, cmd: &str) {
        self.send(cmd);
        let lines = self.isready();
        assert!(lines.is_empty(), "'{cmd}' should be silent, got {lines:?}");
    }

    /// Waits for the process to exit by itself.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("polling the engine") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "engine did not exit within {timeout:?}\n{}",
                self.transcript()
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Every remaining line until stdout closes.
    pub fn rest_of_output(&mut self, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    lines.push(line);
                }
                Err(RecvTimeoutError::Disconnected) => return lines,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("stdout still open after {timeout:?}\n{}", self.transcript())
                }
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stdin = None;
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// A standard-chess position from a FEN the test knows is good.
pub fn chess(fen: &str) -> shakmaty::Chess {
    fen.parse::<shakmaty::fen::Fen>()
        .unwrap_or_else(|e| panic!("'{fen}': {e}"))
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("'{fen}': {e}"))
}

/// A position's FEN (en passant written only where a capture is legal).
pub fn fen_of(pos: &shakmaty::Chess) -> String {
    shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

/// The engine's stdout, line by line, read on a thread of its own so that
/// a test can wait for a line with a timeout; the channel closes with
/// stdout.
pub fn read_lines(stdout: std::process::ChildStdout) -> Receiver<String> {
    let (tx, rx) = channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Runs `exe arg` with a stdout whose reader is already gone (as after
/// `| head -1`) and checks that it exits quietly: success, no panic.
pub fn exits_quietly_with_stdout_closed(exe: &std::path::Path, arg: &str) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(exe)
        .arg(arg)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{arg}: {:?} {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{arg}: {stderr}");
}
