//! Mate scores: `score mate N` with the right N, in moves, negative when the
//! side to move is mated. Distances checked against Stockfish 15.1 at depth 30+.

use lasker::position::Position;
use lasker::search::{Control, SearchRequest, SearchSetup, Searcher, format_score};
use lasker::timeman::Limits;
use lasker::tt::TranspositionTable;
use shakmaty::CastlingMode;

/// (FEN, expected score, a mating first move where the line is unique)
const MATES: &[(&str, &str, Option<&str>)] = &[
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "mate 1", Some("a1a8")),
    (
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "mate 1",
        Some("h5f7"),
    ),
    ("k7/8/2K5/8/8/8/8/7R w - - 0 1", "mate 2", None), // Kb6 or Kc7
    (
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
        "mate 2",
        Some("g3g6"),
    ),
    (
        "6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1",
        "mate 2",
        Some("g2g1"),
    ),
    (
        "r2qk2r/pb4pp/1n2Pb2/2B2Q2/p1p5/2P5/2B2PPP/RN2R1K1 w - - 1 0",
        "mate 2",
        Some("f5g6"),
    ),
    (
        "5rk1/1p1q2bp/p2pN1p1/2pP2Bn/2P3P1/1P6/P4QKP/5R2 w - - 0 1",
        "mate 2",
        Some("f2f8"),
    ),
    (
        "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1",
        "mate 3",
        Some("f6a6"),
    ),
    ("k7/8/1K6/8/8/8/8/7R b - - 0 1", "mate -1", None),
    ("1k6/8/1K6/8/8/8/8/6R1 b - - 0 1", "mate -2", None),
];

fn search(fen: &str, depth: u32) -> (String, String) {
    let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
    let control = Control::default();
    let tt = TranspositionTable::new(16).unwrap();
    tt.new_search(pos.piece_count());
    let request = SearchRequest::new(pos.clone(), Limits::depth(depth));
    let setup = SearchSetup::quiet(&request, &control, &tt);
    let r = Searcher::new(&setup, 0).iterate();
    (format_score(r.score), pos.uci(r.best.unwrap()))
}

#[test]
fn mate_in_n_has_the_right_n() {
    for &(fen, expected, first) in MATES {
        // Depths well past the mates: a quiet queen sacrifice (WAC.001's
        // Qg6) survives the pruning only from depth 9 with net 1, and from
        // depth 11 with net 16 (which scores the position lower before it).
        for depth in [12, 16] {
            let (score, best) = search(fen, depth);
            assert_eq!(score, expected, "{fen} at depth {depth}");
            if let Some(m) = first {
                assert_eq!(best, m, "{fen} at depth {depth}");
            }
        }
    }
}
