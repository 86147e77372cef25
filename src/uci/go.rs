//! Parsing `go`: its parameters become the search's `Limits`.
//!
//! A `go` always starts a search (only `go perft` is a command of its own):
//! a GUI or a script that sent it waits for a `bestmove`, so nothing in the
//! line may stop one from coming. As the protocol asks, a token the engine
//! does not know is skipped, and so is a parameter whose value is missing
//! or not a number; each is named in an `info string`. A depth, mate
//! distance or node count below 1 is the smallest search of its kind.

use shakmaty::Move;

use super::Uci;
use crate::channel::excerpt;
use crate::position::Position;
use crate::score::MAX_PLY;
use crate::timeman::Limits;

/// The parameters `go` knows.
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

/// The deepest `go depth` (deeper is read as this).
const MAX_DEPTH: i64 = MAX_PLY as i64 - 1;

/// The longest clock, increment or move time `go` takes (longer is read
/// as this): 31 years, beyond any game, and small enough that the time
/// manager's sums of a few clocks can't overflow.
const MAX_CLOCK_MS: i64 = 1_000_000_000_000;

/// What a `go` line asks for.
#[derive(Debug)]
pub(super) enum GoCommand {
    /// A search with these limits; `skipped` says what of the line was
    /// left out and why, one note each.
    Search {
        limits: Limits,
        skipped: Vec<String>,
    },
    /// `go perft N`: count the move tree to depth N.
    Perft(u32),
}

impl Uci {
    /// Reads a `go` line's parameters (`args`, after `go`) for `position`
    /// (whose legal moves `searchmoves` may name). Only `go perft` with a
    /// bad depth is refused.
    pub(super) fn parse_go(
        position: Option<&Position>,
        args: &[&str],
    ) -> Result<GoCommand, String> {
        if let Some(i) = args.iter().position(|&t| t == "perft") {
            let depth = args.get(i + 1).ok_or("'go perft' needs a depth")?;
            return match depth.parse::<u32>() {
                Ok(d) if d <= 12 => Ok(GoCommand::Perft(d)),
                Ok(d) => Err(format!("perft depth {d} is too deep (at most 12)")),
                Err(_) => Err(format!("perft depth '{}' is not a number", excerpt(depth))),
            };
        }
        let mut limits = Limits::default();
        let mut skipped = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let key = args[i];
            i += 1;
            match key {
                "infinite" => limits.infinite = true,
                "ponder" => limits.ponder = true,
                "searchmoves" => {
                    while i < args.len() && !KEYWORDS.contains(&args[i]) {
                        match legal_move(position, args[i]) {
                            Ok(m) => limits.searchmoves.push(m),
                            Err(e) => skipped.push(format!("searchmoves: {e}")),
                        }
                        i += 1;
                    }
                }
                "wtime" | "btime" | "winc" | "binc" | "movestogo" | "depth" | "nodes" | "mate"
                | "movetime" => {
                    // A value that is itself a keyword is the next
                    // parameter, not this one's value.
                    let value = args.get(i).filter(|v| !KEYWORDS.contains(v));
                    let Some(value) = value else {
                        skipped.push(format!("'{key}' without a value"));
                        continue;
                    };
                    i += 1;
                    // Clocks and counts as whole numbers; a GUI may send a
                    // clock with a fraction or a sign.
                    let Some(n) = parse_number(value) else {
                        skipped.push(format!("'{key} {}': not a number", excerpt(value)));
                        continue;
                    };
                    set_limit(&mut limits, key, n);
                }
                other => skipped.push(format!("unknown parameter '{}'", excerpt(other))),
            }
        }
        Ok(GoCommand::Search { limits, skipped })
    }
}

/// A whole number, or a decimal rounded down (`12.5` is 12): `None` for
/// anything else.
fn parse_number(text: &str) -> Option<i64> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(n);
    }
    let x: f64 = text.parse().ok()?;
    x.is_finite()
        .then(|| x.clamp(i64::MIN as f64, i64::MAX as f64) as i64)
}

/// Sets the limit `key` from its value `n`: a limit below the smallest
/// search is the smallest search (depth 1 for `depth` and `mate`, one
/// node, one millisecond), a negative
/// increment none, a clock below zero (GUIs send it after a flag) zero.
fn set_limit(limits: &mut Limits, key: &str, n: i64) {
    let at_least = |min: i64, max: i64| n.clamp(min, max);
    let clock = || n.clamp(0, MAX_CLOCK_MS);
    match key {
        "wtime" => limits.wtime = Some(clock()),
        "btime" => limits.btime = Some(clock()),
        "winc" => limits.winc = Some(clock() as u64),
        "binc" => limits.binc = Some(clock() as u64),
        // movestogo 0 is read as none given (sudden death).
        "movestogo" => limits.movestogo = (n > 0).then(|| at_least(1, u32::MAX as i64) as u32),
        "depth" => limits.depth = Some(at_least(1, MAX_DEPTH) as u32),
        // No mate is found in 0 moves: the smallest search answers it.
        "mate" if n < 1 => limits.depth = Some(1),
        "mate" => limits.mate = Some(at_least(1, MAX_DEPTH) as u32),
        "nodes" => limits.nodes = Some(at_least(1, i64::MAX) as u64),
        "movetime" => limits.movetime = Some(at_least(1, MAX_CLOCK_MS) as u64),
        _ => unreachable!("'{key}' is one of the valued parameters"),
    }
}

/// `text` as a legal move in `position`, in the position's notation.
fn legal_move(position: Option<&Position>, text: &str) -> Result<Move, String> {
    let position = position.ok_or(format!("'{}': no position to play it in", excerpt(text)))?;
    let mut probe = position.clone();
    probe.make_uci(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn parse(line: &str) -> (Limits, Vec<String>) {
        let pos = Position::default();
        let args: Vec<&str> = line.split_whitespace().collect();
        match Uci::parse_go(Some(&pos), &args).unwrap() {
            GoCommand::Search { limits, skipped } => (limits, skipped),
            GoCommand::Perft(d) => panic!("'{line}' read as perft {d}"),
        }
    }

    #[test]
    fn every_parameter_is_read() {
        let (l, skipped) = parse(
            "wtime 1000 btime 2000 winc 10 binc 20 movestogo 5 depth 7 nodes 900 mate 3 \
             movetime 50 infinite ponder searchmoves e2e4 d2d4",
        );
        assert!(skipped.is_empty(), "{skipped:?}");
        assert_eq!(
            (l.wtime, l.btime, l.winc, l.binc),
            (Some(1000), Some(2000), Some(10), Some(20))
        );
        assert_eq!(
            (l.movestogo, l.depth, l.nodes, l.mate),
            (Some(5), Some(7), Some(900), Some(3))
        );
        assert_eq!(l.movetime, Some(50));
        assert!(l.infinite && l.ponder);
        let pos = Position::default();
        let moves: Vec<String> = l.searchmoves.iter().map(|m| pos.uci(*m)).collect();
        assert_eq!(moves, ["e2e4", "d2d4"]);
    }

    #[test]
    fn unknown_and_malformed_parameters_are_skipped_and_named() {
        let (l, skipped) = parse("wibble depth 3 nodes x wtime");
        assert_eq!(l.depth, Some(3));
        assert_eq!(l.nodes, None);
        assert_eq!(l.wtime, None);
        assert_eq!(skipped.len(), 3, "{skipped:?}");
        assert!(skipped[0].contains("wibble"));
        assert!(skipped[1].contains("nodes x"));
        assert!(skipped[2].contains("wtime"));
        // A keyword where a value should be starts the next parameter.
        let (l, skipped) = parse("depth infinite");
        assert!(l.infinite && l.depth.is_none());
        assert_eq!(skipped.len(), 1);
    }

    #[test]
    fn limits_below_the_smallest_search_are_the_smallest_search() {
        let (l, skipped) = parse("depth 0 nodes 0 movetime -5");
        assert!(skipped.is_empty());
        assert_eq!((l.depth, l.nodes, l.movetime), (Some(1), Some(1), Some(1)));
        let (l, _) = parse("mate 0");
        assert_eq!((l.depth, l.mate), (Some(1), None));
        let (l, _) = parse("depth -3 wtime -200 winc -10 movestogo 0");
        assert_eq!(
            (l.depth, l.wtime, l.winc, l.movestogo),
            (Some(1), Some(0), Some(0), None)
        );
        let (l, _) = parse("depth 100000 wtime 1234.9");
        assert_eq!((l.depth, l.wtime), (Some(MAX_DEPTH as u32), Some(1234)));
        let (l, _) = parse("btime 99999999999999999999 binc 1e30 movetime 1e300");
        assert_eq!(
            (l.btime, l.binc),
            (Some(MAX_CLOCK_MS), Some(MAX_CLOCK_MS as u64))
        );
        assert_eq!(l.movetime, Some(MAX_CLOCK_MS as u64));
    }

    #[test]
    fn illegal_searchmoves_are_skipped() {
        let (l, skipped) = parse("searchmoves e2e5 zz g1f3 depth 2");
        let pos = Position::default();
        assert_eq!(l.searchmoves, [pos.clone().make_uci("g1f3").unwrap()]);
        assert_eq!(l.depth, Some(2));
        assert_eq!(skipped.len(), 2, "{skipped:?}");
    }

    #[test]
    fn perft_is_its_own_command() {
        let pos = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            CastlingMode::Standard,
        )
        .unwrap();
        let go = |line: &str| {
            let args: Vec<&str> = line.split_whitespace().collect();
            Uci::parse_go(Some(&pos), &args)
        };
        assert!(matches!(go("perft 3"), Ok(GoCommand::Perft(3))));
        assert!(go("perft x").is_err());
        assert!(go("perft 13").is_err());
        assert!(go("perft").is_err());
    }
}
