//! "Draws done right": repetitions (in the tree and before the root), the
//! fifty-move rule at its boundary, insufficient material, and the
//! repetition counter table that makes the repetition check cheap.
//!
//! Every search here runs through `search`, which also checks that the
//! search left the position at its root with consistent repetition counters.

use lasker::position::{Position, REPETITION_TABLE_SIZE, RepetitionCheck};
use lasker::search::{
    Control, DRAW, MATE, SearchRequest, SearchResult, SearchSetup, Searcher, format_score,
};
use lasker::timeman::Limits;
use lasker::tt::TranspositionTable;
use shakmaty::{CastlingMode, Chess, Color, Move, Position as _, Role};

/// "Clearly winning": more than a minor piece ahead in the search's view.
const CLEAR: i32 = 500;

/// What one search gave, with the position it left behind.
struct Outcome {
    result: SearchResult,
    /// `Searcher::pos` after `iterate()`.
    pos: Position,
}

impl Outcome {
    fn score(&self) -> i32 {
        self.result.score
    }

    fn best(&self) -> Move {
        self.result.best.expect("a best move")
    }

    /// The best move in UCI notation.
    fn best_uci(&self) -> String {
        self.pos.uci(self.best())
    }
}

/// Builds the game: `fen`, then `history` played before the root.
fn game(fen: &str, history: &[&str]) -> Position {
    let mut pos = Position::from_fen(fen, CastlingMode::Standard).expect("valid FEN");
    for m in history {
        pos.make_uci(m)
            .unwrap_or_else(|e| panic!("history move {m}: {e}"));
    }
    pos
}

/// Searches the position after `history` to `depth` on one thread with a
/// fresh 16 MB table, optionally restricted to `searchmoves`. Checks that the
/// search unwound to the root and left the repetition counters exact.
fn search_moves(fen: &str, history: &[&str], depth: u32, searchmoves: &[&str]) -> Outcome {
    let control = Control::default();
    let tt = TranspositionTable::new(16).expect("16 MB table");
    let pos = game(fen, history);
    let root_fen = pos.fen();
    let root_key = pos.key();
    let limits = Limits {
        depth: Some(depth),
        searchmoves: searchmoves
            .iter()
            .map(|m| pos.clone().make_uci(m).expect("a legal searchmove"))
            .collect(),
        ..Default::default()
    };
    let request = SearchRequest::new(pos, limits);
    let setup = SearchSetup::quiet(&request, &control, &tt);
    let mut searcher = Searcher::new(&setup, 0);
    let result = searcher.iterate();
    let pos = searcher.pos;
    let context = format!("{fen} moves {} depth {depth}", history.join(" "));
    assert_eq!(pos.height(), history.len() + 1, "stack height: {context}");
    assert_eq!(pos.fen(), root_fen, "back at the root: {context}");
    assert_eq!(pos.key(), root_key, "root key: {context}");
    assert!(
        pos.repetition_counts_consistent(),
        "repetition counters after the search: {context}"
    );
    Outcome { result, pos }
}

fn search_history(fen: &str, history: &[&str], depth: u32) -> Outcome {
    search_moves(fen, history, depth, &[])
}

fn search_fen(fen: &str, depth: u32) -> Outcome {
    search_moves(fen, &[], depth, &[])
}

/// The FEN without the move counters: what makes positions the same.
fn placement(pos: &Position) -> String {
    pos.fen().split(' ').take(4).collect::<Vec<_>>().join(" ")
}

/// Does `m` give check in `board`?
fn gives_check(board: &Chess, m: Move) -> bool {
    let mut after = board.clone();
    after.play_unchecked(m);
    after.is_check()
}

/// Material of `color` in pawns (1/3/3/5/9).
fn material(board: &Chess, color: Color) -> u32 {
    let b = board.board();
    [
        (Role::Pawn, 1),
        (Role::Knight, 3),
        (Role::Bishop, 3),
        (Role::Rook, 5),
        (Role::Queen, 9),
    ]
    .iter()
    .map(|&(role, value)| (b.by_color(color) & b.by_role(role)).count() as u32 * value)
    .sum()
}

// ---------------------------------------------------------------------------
// 1. Perpetual check
// ---------------------------------------------------------------------------

/// Black, a rook and two pawns down, draws by 1...Qf2+ 2.Kh1 Qf1+ 3.Kh2 Qf2+:
/// the white king is boxed in by its own pawns on g3 and h3, nothing white
/// can reach g1, g2, f1 or f2, and every other Black move loses.
const PERPETUAL: &str = "1Q6/2R5/5q2/8/8/k5PP/7K/8 b - - 0 1";
/// The same with colours and ranks swapped: White to move draws by Qf7+.
const PERPETUAL_WHITE: &str = "8/7k/K5pp/8/8/5Q2/2r5/1q6 w - - 0 1";
/// As `PERPETUAL` with a white bishop on g1 guarding f2: the checks run out.
const NO_PERPETUAL: &str = "1Q6/2R5/5q2/8/8/k5PP/7K/6B1 b - - 0 1";

#[test]
fn perpetual_check_saves_a_lost_game() {
    for fen in [PERPETUAL, PERPETUAL_WHITE] {
        let board = game(fen, &[]).board().clone();
        let us = board.turn();
        assert!(
            material(&board, !us) >= material(&board, us) + 6,
            "{fen}: the side to move is materially lost"
        );
        let out = search_fen(fen, 8);
        println!(
            "perpetual {fen}: {} {} (depth {})",
            out.best_uci(),
            format_score(out.score()),
            out.result.depth
        );
        assert_eq!(out.result.depth, 8);
        assert_eq!(out.score(), DRAW, "{fen}: the perpetual is a forced draw");
        assert!(
            gives_check(&board, out.best()),
            "{fen}: best move {} is not a check",
            out.best_uci()
        );
    }
}

#[test]
fn lost_game_without_perpetual_stays_lost() {
    let out = search_fen(NO_PERPETUAL, 8);
    println!(
        "no perpetual {NO_PERPETUAL}: {} {}",
        out.best_uci(),
        format_score(out.score())
    );
    assert!(
        out.score() < -CLEAR,
        "{NO_PERPETUAL}: expected a clearly lost score, got {}",
        format_score(out.score())
    );
}

// ---------------------------------------------------------------------------
// 2 and 3. Repetitions before the root
// ---------------------------------------------------------------------------
//
// A four-position cycle in K+Q v K (White a queen up):
//   R  = Qb2, kd6, White to move       (the root of the "winning" tests)
//   X  = R after Qb2-d4+               (Black to move)
//   Y  = X after Kd6-c6                (White to move)
//   Z  = Y after Qd4-b2                (Black to move; the "losing" root)
// and Z after Kc6-d6 is R again.

/// R: Qd4+ (to X) is a natural winning move here.
const R: &str = "8/8/3k4/8/8/8/1Q6/4K3 w - - 0 1";
/// X: R after Qd4+.
const X: &str = "8/8/3k4/8/3Q4/8/8/4K3 b - - 1 1";
/// From X: X Y Z R X Y Z R(root). X has occurred twice; Qb2-d4 would make
/// it three times, and no position has yet occurred three times.
const FROM_X_TWICE: [&str; 7] = ["d6c6", "d4b2", "c6d6", "b2d4", "d6c6", "d4b2", "c6d6"];
/// From X: X Y Z R(root). X has occurred once only.
const FROM_X_ONCE: [&str; 3] = ["d6c6", "d4b2", "c6d6"];
/// Z: Y after Qd4-b2.
const Z: &str = "8/8/2k5/8/8/8/1Q6/4K3 b - - 0 1";
/// From Z: Z R X Y Z R X Y(root). Z has occurred twice; the quiet Qd4-b2
/// would make it three times.
const FROM_Z_TWICE: [&str; 7] = ["c6d6", "b2d4", "d6c6", "d4b2", "c6d6", "b2d4", "d6c6"];
/// From R: R X Y Z R X Y Z(root, Black to move). R has occurred twice;
/// Kc6-d6 would make it three times.
const FROM_R_TWICE: [&str; 7] = ["b2d4", "d6c6", "d4b2", "c6d6", "b2d4", "d6c6", "d4b2"];

#[test]
fn winning_side_avoids_a_threefold_repetition() {
    // Without the history Qd4+ is a perfectly good winning move: the only
    // reason to avoid it below is the repetition.
    let fresh = search_moves(R, &[], 8, &["b2d4"]);
    assert!(
        fresh.score() > CLEAR,
        "Qd4+ without history: {}",
        format_score(fresh.score())
    );

    let out = search_history(X, &FROM_X_TWICE, 8);
    println!(
        "winning side with history: {} {}",
        out.best_uci(),
        format_score(out.score())
    );
    assert_eq!(
        placement(&out.pos),
        placement(&game(R, &[])),
        "the root is R"
    );
    assert_ne!(
        out.best_uci(),
        "b2d4",
        "the winning side repeats X a third time"
    );
    assert!(
        out.score() > CLEAR,
        "winning side's score: {}",
        format_score(out.score())
    );
}

#[test]
fn losing_side_takes_a_threefold_repetition() {
    let out = search_history(R, &FROM_R_TWICE, 8);
    println!(
        "losing side with history: {} {}",
        out.best_uci(),
        format_score(out.score())
    );
    assert_eq!(out.best_uci(), "c6d6", "Kd6 repeats R a third time");
    assert_eq!(out.score(), DRAW);

    // The same root without the history is simply lost.
    let root = game(R, &FROM_R_TWICE).fen();
    let fresh = search_fen(&root, 8);
    assert!(
        fresh.score() < -CLEAR,
        "{root} without history: {}",
        format_score(fresh.score())
    );
}

#[test]
fn forced_third_repetition_is_scored_as_a_draw() {
    // A queen ahead, the only move allowed repeats X a third time.
    let out = search_moves(X, &FROM_X_TWICE, 8, &["b2d4"]);
    assert_eq!(out.best_uci(), "b2d4");
    assert_eq!(
        out.score(),
        DRAW,
        "third occurrence of X, a queen ahead: {}",
        format_score(out.score())
    );
    // A queen behind, the only move allowed repeats R a third time.
    let out = search_moves(R, &FROM_R_TWICE, 8, &["c6d6"]);
    assert_eq!(out.score(), DRAW, "third occurrence of R, a queen behind");
    // With X seen only once before, the same move makes a second occurrence
    // before the root: not a draw yet (the opponent can't force a third one
    // and the winning side won't allow it).
    let out = search_moves(X, &FROM_X_ONCE, 8, &["b2d4"]);
    assert!(
        out.score() > CLEAR,
        "second occurrence of X is not a draw: {}",
        format_score(out.score())
    );
    // A queen ahead, a quiet move that repeats Z a third time.
    let out = search_moves(Z, &FROM_Z_TWICE, 8, &["d4b2"]);
    assert_eq!(out.score(), DRAW, "third occurrence of Z by a quiet move");
    // Every depth from 2 on sees the draw right after the root move.
    for depth in 2..=6 {
        let out = search_moves(X, &FROM_X_TWICE, depth, &["b2d4"]);
        assert_eq!(out.score(), DRAW, "depth {depth}, Qd4+");
        let out = search_moves(Z, &FROM_Z_TWICE, depth, &["d4b2"]);
        assert_eq!(out.score(), DRAW, "depth {depth}, Qb2");
    }
}

// ---------------------------------------------------------------------------
// 4. Fifty-move rule at the boundary
// ---------------------------------------------------------------------------

#[test]
fn fifty_move_rule_at_clock_99() {
    // K+Q v K, no pawns, nothing to capture, no mate in one: every move
    // reaches clock 100.
    let out = search_fen("8/8/3k4/8/8/8/1Q6/4K3 w - - 99 80", 8);
    assert_eq!(out.score(), DRAW, "K+Q v K at clock 99");
    let out = search_fen("8/8/3k4/8/8/8/1Q6/4K3 w - - 98 80", 8);
    assert_eq!(out.score(), DRAW, "K+Q v K at clock 98");
    let out = search_fen("8/8/3k4/8/8/8/1Q6/4K3 w - - 0 80", 8);
    assert!(out.score() > CLEAR, "K+Q v K at clock 0");

    // With a pawn the winner resets the clock with it.
    let fen = "8/8/3k4/8/8/8/1QP5/4K3 w - - 99 80";
    let out = search_fen(fen, 8);
    println!(
        "clock 99 with a pawn: {} {}",
        out.best_uci(),
        format_score(out.score())
    );
    assert_eq!(out.best().role(), Role::Pawn, "{fen}: a pawn move");
    assert!(out.score() > CLEAR, "{fen}");
    // The quiet queen move draws.
    let out = search_moves(fen, &[], 8, &["b2d4"]);
    assert_eq!(out.score(), DRAW, "{fen}: Qd4+ reaches clock 100");

    // With something to take the winner resets the clock by capturing.
    let fen = "8/8/3k4/8/5n2/8/8/2Q1K3 w - - 99 80";
    let out = search_fen(fen, 8);
    println!(
        "clock 99 with a capture: {} {}",
        out.best_uci(),
        format_score(out.score())
    );
    assert_eq!(out.best_uci(), "c1f4", "{fen}: Qxf4 resets the clock");
    assert!(out.score() > CLEAR, "{fen}");
}

#[test]
fn clock_100_is_a_draw_unless_mated() {
    for fen in [
        // Winning side to move, only reversible moves, no mate in one.
        "8/8/3k4/8/8/8/1Q6/4K3 w - - 100 80",
        // Losing side to move.
        "8/8/3k4/8/8/8/1Q6/4K3 b - - 100 80",
        // Losing side in check but with legal moves.
        "8/8/3k4/8/3Q4/8/8/4K3 b - - 100 80",
        "8/8/3k4/8/3Q4/8/8/4K3 b - - 130 80",
    ] {
        let out = search_fen(fen, 8);
        assert_eq!(out.score(), DRAW, "{fen}: {}", format_score(out.score()));
    }
    // The same in-check position without the clock is lost.
    let out = search_fen("8/8/3k4/8/3Q4/8/8/4K3 b - - 0 80", 8);
    assert!(out.score() < -CLEAR);

    // Checkmated at clock 100: no legal move, and it is mate, not a draw.
    for fen in [
        "R5k1/5ppp/8/8/8/8/8/6K1 b - - 100 80",
        "k6R/8/1K6/8/8/8/8/8 b - - 100 80",
    ] {
        let pos = game(fen, &[]);
        assert!(pos.board().legal_moves().is_empty() && pos.in_check());
        let out = search_fen(fen, 6);
        assert!(out.result.best.is_none(), "{fen}");
        assert_eq!(out.score(), -MATE, "{fen}: mated, not drawn");
    }
}

#[test]
fn mate_on_the_hundredth_ply_beats_the_fifty_move_rule() {
    // Rh8# is the hundredth ply.
    let fen = "k7/8/1K6/8/8/8/8/7R w - - 99 80";
    let out = search_fen(fen, 8);
    assert_eq!(format_score(out.score()), "mate 1", "{fen}");
    assert_eq!(out.best_uci(), "h1h8");
    // Only Rh8# is not a draw: a quiet rook move is.
    let out = search_moves(fen, &[], 8, &["h1h7"]);
    assert_eq!(out.score(), DRAW, "{fen}: Rh7 reaches clock 100");

    // Mate in two, 1.Kb6 Kb8 2.Rh8#, lands on ply 100 from clock 97 ...
    let fen = "k7/8/2K5/8/8/8/8/7R w - - 97 80";
    let out = search_fen(fen, 8);
    assert_eq!(format_score(out.score()), "mate 2", "{fen}");
    // ... but from clock 98 Black's Kb8 already completes the hundred plies.
    let fen = "k7/8/2K5/8/8/8/8/7R w - - 98 80";
    let out = search_fen(fen, 8);
    assert_eq!(
        out.score(),
        DRAW,
        "{fen}: mate on ply 101 is too late: {}",
        format_score(out.score())
    );
}

// ---------------------------------------------------------------------------
// 5. Insufficient material
// ---------------------------------------------------------------------------

const INSUFFICIENT: [&str; 6] = [
    "8/8/4k3/8/8/4K3/8/8 w - - 0 1",
    "8/8/4k3/8/8/4K3/8/8 b - - 0 1",
    "8/8/4k3/8/8/4K3/4N3/8 w - - 0 1",
    "8/8/4k3/8/8/4K3/4N3/8 b - - 0 1",
    "8/8/4k3/8/8/2B1K3/8/8 w - - 0 1",
    "8/8/4k3/8/8/2b1K3/8/8 w - - 0 1",
];

#[test]
fn insufficient_material_is_a_draw() {
    for fen in INSUFFICIENT {
        for depth in 2..=8 {
            let out = search_fen(fen, depth);
            assert_eq!(
                out.score(),
                DRAW,
                "{fen} depth {depth}: {}",
                format_score(out.score())
            );
        }
    }
    // A rook is enough to mate.
    for fen in [
        "8/8/4k3/8/8/4K3/4R3/8 w - - 0 1",
        "8/8/4k3/8/8/4K3/4R3/8 b - - 0 1",
    ] {
        let sign = if fen.contains(" w ") { 1 } else { -1 };
        for depth in 1..=6 {
            let out = search_fen(fen, depth);
            assert!(
                sign * out.score() > 300,
                "{fen} depth {depth}: {}",
                format_score(out.score())
            );
        }
    }
}

/// A draw reached on the last ply of the search (the horizon) must be scored
/// as a draw too. The shallowest case is a depth-1 search: every root move
/// leads straight into the quiescence search.
#[test]
fn draws_are_seen_at_the_horizon() {
    let mut failures = Vec::new();
    let mut check = |what: &str, out: Outcome| {
        println!("{what}: {}", format_score(out.score()));
        if out.score() != DRAW {
            failures.push(format!("{what}: {}", format_score(out.score())));
        }
    };
    for fen in INSUFFICIENT {
        check(
            &format!("depth 1, insufficient material {fen}"),
            search_fen(fen, 1),
        );
    }
    // Z X Y Z R X Y(root): the quiet Qd4-b2 makes Z a third time.
    check(
        "depth 1, third repetition by a quiet move (Z, FROM_Z_TWICE, searchmoves d4b2)",
        search_moves(Z, &FROM_Z_TWICE, 1, &["d4b2"]),
    );
    check(
        "depth 1, fifty moves (K+Q v K at clock 99)",
        search_fen("8/8/3k4/8/8/8/1Q6/4K3 w - - 99 80", 1),
    );
    assert!(
        failures.is_empty(),
        "draws missed on the search horizon:\n{}",
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------
// 6. Repetition counter invariant
// ---------------------------------------------------------------------------

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random game of up to `plies` moves from `fen`, in UCI notation.
fn random_history(fen: &str, plies: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    let mut pos = game(fen, &[]);
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = pos.board().legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.below(legal.len())];
        moves.push(pos.uci(m));
        pos.make(m);
        if pos.board().legal_moves().is_empty() {
            // Don't end on a mated or stalemated root.
            pos.unmake();
            moves.pop();
            break;
        }
    }
    moves
}

#[test]
fn counters_are_consistent_after_searches() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    // Knights out and back: the start position four times (a threefold
    // already in the history), then an opening with the knights going back
    // again.
    let mut shuffles: Vec<String> = Vec::new();
    for _ in 0..3 {
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            shuffles.push(m.to_string());
        }
    }
    for m in [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "f3g1", "f6g8",
    ] {
        shuffles.push(m.to_string());
    }
    // X three times, then Z (Black to move) with R seen three times too.
    let kq_cycle: Vec<String> = FROM_X_TWICE
        .iter()
        .chain(["b2d4", "d6c6", "d4b2"].iter())
        .map(ToString::to_string)
        .collect();
    let cases: Vec<(&str, Vec<String>, u32)> = vec![
        (start, shuffles, 5),
        (start, random_history(start, 120, 0x5eed_1234), 5),
        (start, random_history(start, 200, 42), 4),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            random_history(
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                60,
                7,
            ),
            4,
        ),
        (X, kq_cycle, 7),
        (PERPETUAL, vec![], 7),
    ];
    for (fen, history, depth) in &cases {
        let history: Vec<&str> = history.iter().map(String::as_str).collect();
        // `search_moves` asserts height, root and counters.
        let out = search_history(fen, &history, *depth);
        assert_eq!(out.pos.height(), history.len() + 1);
        assert!(out.pos.repetition_counts_consistent());
        println!(
            "{} plies of history, depth {depth}: {} {}, repetition checks {} early exits {}",
            history.len(),
            out.best_uci(),
            format_score(out.score()),
            out.result.stats.repetitions.checks,
            out.result.stats.repetitions.early_exits
        );
    }
}

/// What `Position::is_repetition` must answer, computed without the counter
/// table from a shadow stack of (key, plies since the last irreversible move
/// or null move).
fn brute_force_repetition(shadow: &[(u64, usize)], plies_from_root: usize) -> bool {
    let top = shadow.len() - 1;
    let (key, reach) = shadow[top];
    let mut earlier = 0;
    let mut distance = 4;
    while distance <= reach.min(top) {
        if shadow[top - distance].0 == key {
            if distance <= plies_from_root {
                return true;
            }
            earlier += 1;
            if earlier >= 2 {
                return true;
            }
        }
        distance += 2;
    }
    false
}

#[test]
fn random_make_null_unmake_keeps_counters_exact() {
    let fens = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        // Few pieces: random walks repeat positions often.
        "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        "8/8/3k4/8/8/8/1Q6/4K3 w - - 0 1",
        "7k/8/8/8/8/8/8/K7 w - - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];
    let mut repeats_seen = 0;
    let mut scans = 0;
    for (i, fen) in fens.iter().enumerate() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (i as u64 + 1));
        let mut pos = game(fen, &[]);
        let base_plies = pos.halfmoves() as usize;
        let mut shadow: Vec<(u64, usize)> = vec![(pos.key(), base_plies)];
        for step in 0..3000 {
            let legal = pos.board().legal_moves();
            let roll = rng.below(100);
            if pos.height() > 1 && (legal.is_empty() || roll < 35 || pos.height() > 150) {
                pos.unmake();
                shadow.pop();
            } else if roll < 45 && !pos.in_check() {
                pos.make_null();
                shadow.push((pos.key(), 0));
            } else if !legal.is_empty() {
                let m = legal[rng.below(legal.len())];
                let rights_before = pos.board().castles().castling_rights();
                let mut after = pos.board().clone();
                after.play_unchecked(m);
                let irreversible =
                    m.is_zeroing() || after.castles().castling_rights() != rights_before;
                let reach = if irreversible {
                    0
                } else {
                    shadow.last().expect("non-empty").1 + 1
                };
                pos.make(m);
                shadow.push((pos.key(), reach));
            }
            assert_eq!(
                pos.repetition_table().counts(),
                &pos.expected_repetition_counts()[..],
                "{fen}: counters after step {step}"
            );
            assert_eq!(pos.height(), shadow.len());
            // The counter's early exit must never hide a repetition.
            let plies_from_root = rng.below(pos.height());
            let check = pos.check_repetition(plies_from_root);
            let found = check.is_draw();
            assert_eq!(
                found,
                brute_force_repetition(&shadow, plies_from_root),
                "{fen}: is_repetition({plies_from_root}) at step {step}, {}",
                pos.fen()
            );
            if check != RepetitionCheck::New {
                scans += 1;
            }
            repeats_seen += usize::from(found);
        }
        while pos.height() > 1 {
            pos.unmake();
            assert!(pos.repetition_counts_consistent(), "{fen}: unwinding");
        }
        let total: u32 = pos
            .repetition_table()
            .counts()
            .iter()
            .map(|&c| u32::from(c))
            .sum();
        assert_eq!(total, 1, "{fen}: only the base position is counted");
        assert_eq!(
            pos.repetition_table().counts()[pos.key() as usize & (REPETITION_TABLE_SIZE - 1)],
            1
        );
    }
    println!("random walks: {repeats_seen} repetitions found, {scans} history scans");
    assert!(repeats_seen > 0, "the walks exercised real repetitions");
}

#[test]
fn null_move_cuts_the_repetition_chain() {
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let slot = |key: u64| key as usize & (REPETITION_TABLE_SIZE - 1);

    // Control: the same position four plies later, no null move: repetition.
    let mut pos = game(fen, &[]);
    let base = pos.key();
    for m in ["a1a3", "e8f8", "a3a1", "f8e8"] {
        pos.make_uci(m).unwrap();
    }
    assert_eq!(pos.key(), base);
    assert!(
        pos.is_repetition(4),
        "in-tree repetition without a null move"
    );

    // A null move in between: Ra1-a3, pass, Ra3-a2, Ke8-d8, Ra2-a1, Kd8-e8
    // gives the base position again (White to move, same key), but the null
    // move cuts the chain.
    let mut pos = game(fen, &[]);
    pos.make_uci("a1a3").unwrap();
    pos.make_null();
    let after_null = pos.key();
    for m in ["a3a2", "e8d8", "a2a1", "d8e8"] {
        pos.make_uci(m).unwrap();
    }
    assert_eq!(pos.key(), base, "the same position as before the null move");
    assert_eq!(placement(&pos), placement(&game(fen, &[])));
    assert_eq!(
        pos.repetition_table().counts()[slot(base)],
        2,
        "both occurrences are on the stack"
    );
    for plies_from_root in [0, 2, 4, 6, 100] {
        assert_eq!(
            pos.check_repetition(plies_from_root),
            RepetitionCheck::Scanned { draw: false },
            "a position from before the null move is not a repetition ({plies_from_root}), \
             decided by the history scan, not the counter"
        );
    }
    assert!(pos.repetition_counts_consistent());

    // Repetitions entirely after the null move are still found.
    let mut pos = game(fen, &[]);
    pos.make_uci("a1a3").unwrap();
    pos.make_null();
    for m in ["a3a2", "e8d8", "a2a3", "d8e8"] {
        pos.make_uci(m).unwrap();
    }
    assert_eq!(pos.key(), after_null);
    assert!(pos.is_repetition(4), "repeat after the null move");
    for _ in 0..5 {
        pos.unmake();
    }
    pos.unmake();
    assert_eq!(pos.height(), 1);
    assert!(pos.repetition_counts_consistent());
}

// ---------------------------------------------------------------------------
// 7. Early exits
// ---------------------------------------------------------------------------

#[test]
fn counter_decides_almost_every_repetition_check() {
    let fens = [
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        "r2q1rk1/pp1nbppp/2pp1n2/4p3/4P1b1/1BPP1N2/PP1N1PPP/R1BQ1RK1 w - - 3 9",
        "2r1nrk1/p2q1ppp/bp1p4/n1pPp3/P1P1P3/2PBB1N1/4QPPP/R4RK1 w - - 0 1",
    ];
    let (mut checks, mut exits) = (0, 0);
    for fen in fens {
        let out = search_fen(fen, 7);
        let stats = out.result.stats.repetitions;
        let rate = stats.early_exits as f64 / stats.checks.max(1) as f64;
        println!(
            "{fen}: depth 7, nodes {}, repetition checks {}, early exits {} ({:.4})",
            out.result.nodes, stats.checks, stats.early_exits, rate
        );
        assert!(stats.checks > 1000, "{fen}: the search checked repetitions");
        assert!(rate > 0.99, "{fen}: early-exit rate {rate:.4}");
        checks += stats.checks;
        exits += stats.early_exits;
    }
    let rate = exits as f64 / checks as f64;
    println!("early-exit rate over all positions: {exits}/{checks} = {rate:.4}");
    assert!(rate > 0.99);
}
