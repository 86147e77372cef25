//! Test suites in EPD (`bm`/`am` opcodes): `solve <file> <ms>` searches each
//! position for a fixed time on one thread from a fresh table and counts the
//! positions where the engine's move is a best move (`bm`) and not a move to
//! avoid (`am`).

use shakmaty::san::San;
use shakmaty::{CastlingMode, Move};

use std::sync::Arc;

use crate::nnue::Network;
use crate::position::Position;
use crate::search::{Control, SearchRequest, SearchSetup, Searcher};
use crate::timeman::Limits;
use crate::tt::TranspositionTable;

/// One suite position.
pub struct EpdEntry {
    pub id: String,
    pub position: Position,
    pub best: Vec<Move>,
    pub avoid: Vec<Move>,
}

/// Parses `<board> <side> <castling> <ep> op args; op args; ...`.
pub fn parse_line(line: &str) -> Result<EpdEntry, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        return Err(format!("not an EPD line: '{line}'"));
    }
    let fen = format!("{} 0 1", fields[..4].join(" "));
    let position = Position::from_fen(&fen, CastlingMode::Standard).map_err(|e| e.to_string())?;
    let rest = fields[4..].join(" ");
    let mut entry = EpdEntry {
        id: String::new(),
        position,
        best: Vec::new(),
        avoid: Vec::new(),
    };
    for op in rest.split(';') {
        let mut words = op.split_whitespace();
        let Some(code) = words.next() else { continue };
        let args: Vec<&str> = words.collect();
        match code {
            "bm" | "am" => {
                for san in args {
                    let m = san
                        .parse::<San>()
                        .ok()
                        .and_then(|s| s.to_move(entry.position.board()).ok())
                        .ok_or(format!("bad move '{san}' in '{line}'"))?;
                    if code == "bm" {
                        entry.best.push(m);
                    } else {
                        entry.avoid.push(m);
                    }
                }
            }
            "id" => entry.id = args.join(" ").trim_matches('"').to_string(),
            _ => {}
        }
    }
    Ok(entry)
}

/// Searches `entry` for `ms` milliseconds; returns the move and whether it
/// solves the position.
pub fn solve(
    entry: &EpdEntry,
    ms: u64,
    tt: &TranspositionTable,
    net: &Arc<Network>,
) -> (Option<Move>, bool) {
    tt.clear();
    tt.new_search(entry.position.piece_count());
    let control = Control::default();
    let limits = Limits {
        movetime: Some(ms),
        ..Default::default()
    };
    let request = SearchRequest {
        net: Arc::clone(net),
        ..SearchRequest::new(entry.position.clone(), limits)
    };
    let setup = SearchSetup::quiet(&request, &control, tt);
    let result = Searcher::new(&setup, 0).iterate();
    let ok = result.best.is_some_and(|m| {
        (entry.best.is_empty() || entry.best.contains(&m)) && !entry.avoid.contains(&m)
    });
    (result.best, ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bm_am_and_id() {
        let e = parse_line(
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";",
        )
        .unwrap();
        assert_eq!(e.id, "WAC.001");
        assert_eq!(e.best.len(), 1);
        assert_eq!(e.position.uci(e.best[0]), "g3g6");
        let e = parse_line("8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - am Kb2 Ka2; id \"x\";").unwrap();
        assert_eq!(e.avoid.len(), 2);
        assert!(parse_line("8/8 w").is_err());
    }

    #[test]
    fn solves_a_mate_in_one() {
        let e = parse_line("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"m1\";").unwrap();
        let tt = TranspositionTable::new(1).unwrap();
        let (m, ok) = solve(&e, 100, &tt, &crate::nnue::embedded());
        assert!(ok, "{m:?}");
    }
}
