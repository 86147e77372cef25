//! Perft: counts the leaf nodes of the legal move tree to a fixed depth, the
//! standard check of a move generator. It runs through `Position::make`, so
//! the incremental key and the repetition counters are exercised as well.

use shakmaty::Position as _;

use crate::position::Position;

/// Leaf nodes at `depth` below `pos` (bulk-counted at the last ply).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    let moves = pos.board().legal_moves();
    if depth <= 1 {
        return if depth == 0 { 1 } else { moves.len() as u64 };
    }
    let mut nodes = 0;
    for m in moves {
        pos.make(m);
        nodes += perft(pos, depth - 1);
        pos.unmake();
    }
    nodes
}

/// Perft split by root move, as `go perft N` prints it.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    if depth == 0 {
        return out;
    }
    for m in pos.board().legal_moves() {
        let name = pos.uci(m);
        pos.make(m);
        out.push((name, perft(pos, depth - 1)));
        pos.unmake();
    }
    out
}

/// One line of a perft EPD file: the FEN and its `(depth, nodes)` pairs.
/// Accepts both `;D1 20` and `; D1 20` field styles.
pub fn parse_perft_line(line: &str) -> Option<(String, Vec<(u32, u64)>)> {
    let mut fields = line.split(';');
    let fen = fields.next()?.trim().to_string();
    if fen.is_empty() {
        return None;
    }
    let counts = fields
        .filter_map(|f| {
            let f = f.trim();
            let rest = f.strip_prefix('D')?;
            let mut it = rest.split_whitespace();
            let depth = it.next()?.parse().ok()?;
            let nodes = it.next()?.parse().ok()?;
            Some((depth, nodes))
        })
        .collect();
    Some((fen, counts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    #[test]
    fn start_position_shallow() {
        let mut pos = Position::default();
        assert_eq!(perft(&mut pos, 1), 20);
        assert_eq!(perft(&mut pos, 3), 8902);
        let div = divide(&mut pos, 2);
        assert_eq!(div.len(), 20);
        assert_eq!(div.iter().map(|(_, n)| n).sum::<u64>(), 400);
    }

    #[test]
    fn parses_both_line_styles() {
        let (fen, c) = parse_perft_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2 9").unwrap();
        assert_eq!(fen, "8/8/8/8/8/8/8/K6k w - - 0 1");
        assert_eq!(c, vec![(1, 3), (2, 9)]);
        let (_, c) = parse_perft_line("8/8/8/8/8/8/8/K6k w - - 0 1; D1 3; D2 9").unwrap();
        assert_eq!(c, vec![(1, 3), (2, 9)]);
        let _ = Position::from_fen(&fen, CastlingMode::Standard).unwrap();
    }
}
