//! The grammar fuzzer: random UCI lines, good and bad, as GUIs, scripts
//! and people send them, fed to the real binary over a pipe without
//! waiting for answers (as a fast GUI does). What must hold whatever the
//! lines:
//!
//! - every `go` gets exactly one `bestmove`, in order;
//! - that move is legal in the position the last `position` command set,
//!   or `0000` where that command could not be read or the side to move has
//!   no move; a `ponder` move is legal after it;
//! - the engine never dies and keeps answering `isready`.
//!
//! Lines are bytes, not always text: some hold bytes that are not UTF-8
//! (a GUI passes on a Latin-1 folder name), NULs or a `\r` before the
//! line end, and some are very long (up to 100 KB); bad bytes also spoil
//! `position` move lists and `go` parameters.
//!
//! The expected position of each `position` line is known by construction:
//! the fuzzer plays random legal moves with shakmaty and then spoils the
//! line in a known way (an illegal move at a known place, castling rights
//! the board contradicts, a FEN that is no FEN, a Chess960 FEN), so the
//! checks do not repeat the engine's rules, only the protocol's.
//!
//! `LASKER_FUZZ_LINES` sets the number of lines (CI: the default, 100,000);
//! `LASKER_FUZZ_SEED` the seed; `LASKER_FUZZ_DEBUG_LOG` a file for the
//! engine's `Debug Log File` (every line in and out as the engine saw it).

mod common;

use std::collections::VecDeque;
use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, PositionError};

use common::TIMEOUT;

const DEFAULT_LINES: usize = 100_000;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// Positions the fuzzer starts its games from, all standard chess.
const BASES: &[&str] = &[
    START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    // One legal move (Black's king to b8).
    "k7/8/1K6/8/8/8/8/R7 b - - 0 1",
    // Checkmated and stalemated: no move at all.
    "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
];
/// Chess960 starts in Shredder-FEN (the engine plays them as Chess960
/// even with `UCI_Chess960` off).
const CHESS960: &[&str] = &[
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1",
    "nrbbqkrn/pppppppp/8/8/8/8/PPPPPPPP/NRBBQKRN w GBgb - 0 1",
];
/// Words that are not UCI. U+FFFD stands for bytes that are not UTF-8:
/// `wire` sends each as such bytes (which the engine reads as U+FFFD).
const JUNK: &[&str] = &[
    "wibble",
    "x",
    "-",
    "0",
    "1.5",
    "é",
    "go",
    "position",
    "",
    "moves",
    "\u{fffd}",
    "\0",
    "\0\0\0",
    "\u{fffd}\u{fffd}x",
];

/// Byte sequences that are not UTF-8: a Latin-1 letter, a cut two-byte
/// character, a continuation byte alone, an encoded surrogate, bytes that
/// never occur.
const NOT_UTF8: &[&[u8]] = &[b"\xe9", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xff\xfe"];

/// `line` as bytes to send: each U+FFFD becomes one of `NOT_UTF8`.
fn wire(line: &str, rng: &mut Rng) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(line.len());
    for c in line.chars() {
        if c == '\u{fffd}' {
            bytes.extend_from_slice(NOT_UTF8[rng.below(NOT_UTF8.len())]);
        } else {
            let mut buf = [0; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    bytes
}

/// A junk line of bytes: any byte but the line end (NULs, `\r`, bytes
/// that are not UTF-8), or a very long line.
fn junk_bytes(rng: &mut Rng) -> Vec<u8> {
    if rng.chance(70) {
        return (0..rng.below(60))
            .map(|_| {
                loop {
                    let b = rng.below(256) as u8;
                    if b != b'\n' {
                        break b;
                    }
                }
            })
            .collect();
    }
    let len = 1000 + rng.below(100_000);
    match rng.below(4) {
        0 => vec![b'x'; len],
        1 => (0..len).map(|_| b' ' + rng.below(95) as u8).collect(),
        2 => {
            let mut line = b"setoption name ".to_vec();
            line.extend((0..len).map(|_| b'a' + rng.below(26) as u8));
            line.extend_from_slice(b" value 1");
            line
        }
        _ => {
            let mut line = b"wibble".to_vec();
            line.extend(std::iter::repeat_n(b'\0', len));
            line
        }
    }
}

/// xorshift64*: the same lines for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The board a `position` line sets, as the fuzzer knows it.
#[derive(Clone)]
struct Board {
    position: Chess,
    mode: CastlingMode,
}

/// A `position` line and the board it must leave (`None`: none).
fn position_line(rng: &mut Rng) -> (String, Option<Board>) {
    let kind = rng.below(100);
    if kind < 6 {
        let bad = [
            "position fen 8/8 w".to_string(),
            "position fen 8/8/8/8/8/8/8/KK5k w - - 0 1".to_string(),
            "position fen 4k3/8/8/8/8/8/8/P3K3 w - - 0 1".to_string(),
            "position fen".to_string(),
            "position".to_string(),
            "position startpos e2e4".to_string(),
            format!("position fen {} moves e2e4", rng.pick(JUNK)),
            format!("position {}", rng.pick(JUNK)),
        ];
        return (rng.pick(&bad).clone(), None);
    }
    let chess960 = kind < 14;
    let (fen, mode) = if chess960 {
        (*rng.pick(CHESS960), CastlingMode::Chess960)
    } else {
        (*rng.pick(BASES), CastlingMode::Standard)
    };
    let mut position: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
    let mut moves = Vec::new();
    for _ in 0..rng.below(12) {
        let legal = position.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = *rng.pick(&legal);
        moves.push(m.to_uci(mode).to_string());
        position.play_unchecked(m);
    }
    // Stale castling rights: the board after the moves, as a FEN that
    // claims every right (fullmove 2 and later: not a Chess960 start).
    if !chess960 && kind < 24 {
        let mut fields: Vec<String> = Fen::from_position(&position, EnPassantMode::Legal)
            .to_string()
            .split(' ')
            .map(String::from)
            .collect();
        fields[2] = "KQkq".to_string();
        fields[5] = (position.fullmoves().get() + 1).to_string();
        let stale = fields.join(" ");
        let expected: Result<Chess, _> = stale
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .or_else(PositionError::ignore_invalid_castling_rights);
        let line = format!("position fen {stale}");
        return match expected {
            Ok(position) => (line, Some(Board { position, mode })),
            // A board shakmaty itself refuses (the side not to move in
            // check from a random game's last move can't happen; anything
            // else is a board the engine must refuse too).
            Err(_) => (line, None),
        };
    }
    let head = if fen == START && rng.chance(50) {
        "position startpos".to_string()
    } else {
        format!("position fen {fen}")
    };
    // An illegal or malformed move in the list: play stops before it.
    let mut shown = moves.clone();
    let mut expected = position;
    if rng.chance(25) {
        let at = rng.below(moves.len() + 1);
        let bad = rng
            .pick(&[
                "e2e5",
                "a1a1",
                "zz",
                "e7e8q",
                "h1h9",
                "0000",
                "e2\u{fffd}",
                "\0",
            ])
            .to_string();
        shown.insert(at, bad.clone());
        let mut replay: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
        for m in &moves[..at] {
            let parsed: UciMove = m.parse().unwrap();
            replay.play_unchecked(parsed.to_move(&replay).unwrap());
        }
        // The spoiled move may by chance be legal there: then it is
        // played and the next one decides. Only check lines where it is
        // illegal.
        let legal_by_chance = bad
            .parse::<UciMove>()
            .ok()
            .and_then(|m| m.to_move(&replay).ok())
            .is_some();
        if legal_by_chance {
            shown = moves.clone();
        } else {
            expected = replay;
        }
    }
    let line = if shown.is_empty() && rng.chance(50) {
        head
    } else {
        format!("{head} moves {}", shown.join(" "))
    };
    (
        line,
        Some(Board {
            position: expected,
            mode,
        }),
    )
}

/// A value for a `go` parameter: mostly small numbers, sometimes odd.
fn value(rng: &mut Rng, small: u64) -> String {
    match rng.below(10) {
        0 => rng
            .pick(&["0", "-1", "-500", "x", "1.5", "99999999999999999999"])
            .to_string(),
        1 => String::new(), // missing
        _ => (1 + rng.next() % small).to_string(),
    }
}

/// A `go` line: a random mix of parameters, junk among them.
fn go_line(rng: &mut Rng, board: Option<&Board>) -> String {
    let mut parts = vec!["go".to_string()];
    for _ in 0..1 + rng.below(4) {
        let part = match rng.below(16) {
            0..=3 => format!("depth {}", value(rng, 5)),
            4..=5 => format!("nodes {}", value(rng, 3000)),
            6..=7 => format!("movetime {}", value(rng, 15)),
            8 => format!("wtime {} btime {}", value(rng, 300), value(rng, 300)),
            9 => format!(
                "winc {} binc {} movestogo {}",
                value(rng, 20),
                value(rng, 20),
                value(rng, 40)
            ),
            10 => format!("mate {}", value(rng, 3)),
            11 => "infinite".to_string(),
            12 => "ponder".to_string(),
            13 => {
                let mut moves = vec!["searchmoves".to_string()];
                if let Some(b) = board {
                    for m in b.position.legal_moves().iter().take(1 + rng.below(3)) {
                        moves.push(m.to_uci(b.mode).to_string());
                    }
                }
                if rng.chance(30) {
                    moves.push("e2e5".to_string());
                }
                moves.join(" ")
            }
            _ => rng.pick(JUNK).to_string(),
        };
        parts.push(part);
    }
    parts.join(" ")
}

/// The engine behind a pipe, its lines read on a thread.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<String>,
    /// The last lines in and out, for a failure's message.
    recent: VecDeque<String>,
}

impl Engine {
    fn new() -> Engine {
        let mut child = Command::new(common::exe())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting the engine");
        let rx = common::read_lines(child.stdout.take().unwrap());
        let stdin = child.stdin.take().unwrap();
        Engine {
            child,
            stdin,
            rx,
            recent: VecDeque::new(),
        }
    }

    fn remember(&mut self, line: String) {
        if self.recent.len() == 100 {
            self.recent.pop_front();
        }
        self.recent.push_back(line);
    }

    fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    /// Sends one line of bytes, as they are, and its line end.
    fn send_bytes(&mut self, line: &[u8]) {
        let mut shown: String = String::from_utf8_lossy(line).chars().take(200).collect();
        if line.len() > shown.len() {
            shown = format!("{shown:?}... ({} bytes)", line.len());
        } else if std::str::from_utf8(line).is_err() || line.contains(&0) {
            shown = format!("{shown:?} (bytes)");
        }
        self.remember(format!("<< {shown}"));
        self.stdin
            .write_all(line)
            .and_then(|()| self.stdin.write_all(b"\n"))
            .expect("the engine reads its input");
    }

    fn context(&self) -> String {
        self.recent.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// The next line within `timeout`, or `None`.
    fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.rx.recv_timeout(timeout) {
            Ok(line) => {
                self.remember(format!(">> {line}"));
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the engine closed its output\n{}", self.context())
            }
        }
    }
}

/// A failed run must not leave its engine searching.
impl Drop for Engine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// The searches sent and not yet answered, oldest first, each with the
/// board it must answer for; and the count of answers checked.
struct Answers {
    pending: VecDeque<(String, Option<Board>)>,
    checked: usize,
}

impl Answers {
    /// Checks a line the engine wrote: a `bestmove` against the oldest
    /// search waiting for one.
    fn read(&mut self, line: &str, context: &dyn Fn() -> String) {
        let Some(rest) = line.strip_prefix("bestmove ") else {
            return;
        };
        let (go, expected) = self
            .pending
            .pop_front()
            .unwrap_or_else(|| panic!("a bestmove no go asked for: '{line}'\n{}", context()));
        let context = || {
            let fen = expected.as_ref().map_or("none".to_string(), |b| {
                Fen::from_position(&b.position, EnPassantMode::Legal).to_string()
            });
            format!("answering '{go}' in position {fen}\n{}", context())
        };
        let tokens: Vec<&str> = rest.split_whitespace().collect();
        let (best, ponder) = match tokens[..] {
            [m] => (m, None),
            [m, "ponder", p] => (m, Some(p)),
            _ => panic!("malformed '{line}'\n{}", context()),
        };
        match &expected {
            Some(board) if !board.position.legal_moves().is_empty() => {
                let after =
                    play(board, best).unwrap_or_else(|e| panic!("'{line}': {e}\n{}", context()));
                if let Some(p) = ponder {
                    play(&after, p)
                        .unwrap_or_else(|e| panic!("'{line}' ponder: {e}\n{}", context()));
                }
            }
            _ => assert!(
                best == "0000" && ponder.is_none(),
                "'{line}' where no move exists\n{}",
                context()
            ),
        }
        self.checked += 1;
    }
}

/// `text` played on `board`, if it is a legal move in the board's notation.
fn play(board: &Board, text: &str) -> Result<Board, String> {
    let parsed: UciMove = text
        .parse()
        .map_err(|_| format!("malformed move '{text}'"))?;
    let m = parsed.to_move(&board.position).map_err(|_| {
        format!(
            "illegal move '{text}' in {}",
            Fen::from_position(&board.position, EnPassantMode::Legal)
        )
    })?;
    if m.to_uci(board.mode).to_string() != text {
        return Err(format!("'{text}' in the wrong castling notation"));
    }
    let mut after = board.clone();
    after.position.play_unchecked(m);
    Ok(after)
}

/// Sends `isready` and checks every line before its `readyok`.
fn isready(engine: &mut Engine, answers: &mut Answers) {
    engine.send("isready");
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let out = engine
            .next_line(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|| panic!("no readyok\n{}", engine.context()));
        if out == "readyok" {
            return;
        }
        let context = engine.context();
        answers.read(&out, &|| context.clone());
    }
}

#[test]
fn every_go_gets_one_legal_bestmove() {
    let lines: usize = std::env::var("LASKER_FUZZ_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_LINES);
    let seed: u64 = std::env::var("LASKER_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut engine = Engine::new();
    // The engine's own record of the run, for a failure's post-mortem.
    if let Ok(path) = std::env::var("LASKER_FUZZ_DEBUG_LOG") {
        engine.send(&format!("setoption name Debug Log File value {path}"));
    }
    let mut answers = Answers {
        pending: VecDeque::new(),
        checked: 0,
    };
    let start: Chess = Chess::default();
    let mut board = Some(Board {
        position: start,
        mode: CastlingMode::Standard,
    });
    let begun = Instant::now();
    let mut gos = 0;
    let (mut not_utf8, mut with_nul, mut long) = (0, 0, 0);
    for sent in 0..lines {
        let kind = rng.below(100);
        let junk = kind >= 90;
        let line = match kind {
            0..=29 => {
                let (line, next) = position_line(&mut rng);
                board = next;
                line
            }
            30..=59 => {
                gos += 1;
                let line = go_line(&mut rng, board.as_ref());
                answers.pending.push_back((line.clone(), board.clone()));
                line
            }
            60..=69 => "stop".to_string(),
            70..=74 => "ponderhit".to_string(),
            75..=79 => "isready".to_string(),
            80..=82 => "ucinewgame".to_string(),
            83..=86 => {
                let option = rng.pick(&[
                    "Hash value 1",
                    "Hash value 2",
                    "MultiPV value 2",
                    "MultiPV value 1",
                    "UCI_ShowWDL value true",
                    "Threads value 2",
                    "Threads value 1",
                    "Skill Level value 3",
                    "Skill Level value 20",
                    "UCI_LimitStrength value true",
                    "UCI_LimitStrength value false",
                    "Hash value x",
                    "Wibble value 3",
                ]);
                format!("setoption name {option}")
            }
            87 => format!("go perft {}", rng.pick(&["1", "2", "x", "-1"])),
            88 => "d".to_string(),
            89 => "eval".to_string(),
            90..=93 => rng.pick(JUNK).to_string(),
            94..=95 => {
                // Random bytes of printable ASCII.
                (0..rng.below(30))
                    .map(|_| (b' ' + rng.below(95) as u8) as char)
                    .collect()
            }
            96 => "setoption name SyzygyPath value /no/such/folder/Jos\u{fffd}".to_string(),
            // Bytes, sent below as they are.
            _ => String::new(),
        };
        let mut bytes = if kind >= 97 {
            junk_bytes(&mut rng)
        } else {
            wire(&line, &mut rng)
        };
        // A junk line that happens to read as a command the fuzzer tracks
        // (`go`, `position`) or one that would end or stall the run is
        // not junk: only the generators above send those. (`isready`
        // would answer out of turn.)
        let text = String::from_utf8_lossy(&bytes);
        if let Some("go" | "position" | "quit" | "bench" | "solve" | "genfens" | "isready") =
            text.split_whitespace().next()
            && (!(text.starts_with("go ") || text.starts_with("position")) || junk)
        {
            bytes = b"wibble".to_vec();
        }
        not_utf8 += usize::from(std::str::from_utf8(&bytes).is_err());
        with_nul += usize::from(bytes.contains(&0));
        long += usize::from(bytes.len() > 1000);
        // Some lines end as Windows ends them.
        if rng.chance(5) {
            bytes.push(b'\r');
        }
        engine.send_bytes(&bytes);
        // Read what has come, without waiting; now and then wait for
        // `readyok`, so that searches also run while nothing is sent.
        while let Some(out) = engine.next_line(Duration::ZERO) {
            let context = engine.context();
            answers.read(&out, &|| context.clone());
        }
        if sent % 50 == 49 {
            isready(&mut engine, &mut answers);
        }
    }
    // The last search (infinite, pondering, or unlimited) ends on `stop`;
    // then every go has had its answer, and no more come.
    engine.send("stop");
    let deadline = Instant::now() + TIMEOUT;
    while !answers.pending.is_empty() {
        let out = engine
            .next_line(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|| {
                panic!(
                    "{} go without a bestmove\n{}",
                    answers.pending.len(),
                    engine.context()
                )
            });
        let context = engine.context();
        answers.read(&out, &|| context.clone());
    }
    isready(&mut engine, &mut answers);
    engine.send("quit");
    let status = engine.child.wait().expect("the engine exits");
    assert!(status.success(), "exit status {status:?}");
    assert_eq!(answers.checked, gos);
    println!(
        "fuzz: {lines} lines ({not_utf8} not UTF-8, {with_nul} with NUL, {long} over 1,000 \
         bytes), {gos} go, {} bestmoves checked, 0 failures ({:.1} s)",
        answers.checked,
        begun.elapsed().as_secs_f64()
    );
}
