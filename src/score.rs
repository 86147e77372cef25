//! Scores: centipawns for the side to move, with mates and tablebase wins
//! above every evaluation, and how UCI prints them. Below the search and the
//! table, which both speak in these.

/// Mate at the root; a mate `ply` plies away scores `MATE - ply`.
pub const MATE: i32 = 32_000;
/// Beyond every score: the window of a search that knows nothing yet.
pub const INFINITY: i32 = 32_001;
/// The deepest ply a search reaches.
pub const MAX_PLY: usize = 128;
/// Scores at or beyond this are mates (or mated) within `MAX_PLY`.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
pub const DRAW: i32 = 0;
/// A tablebase win at the node itself; one found `ply` plies away scores
/// `TB_WIN - ply`. Just below the mate range, so that a real mate still
/// beats it and it is never printed as a mate (`format_score`).
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores at or beyond this are tablebase wins (or mates): proven results,
/// stored in the table relative to the node like mates.
pub const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;
/// The largest static evaluation, either way: a hundred pawns, beyond what
/// a real net says of a real position, far below `TB_WIN_BOUND` (31,743),
/// and, normalised for UCI (`cp 6494`), below the `cp 19872` and up that
/// it prints for a tablebase win. So
/// an evaluation, whatever net `EvalFile` loads, is never read as a proven
/// result, fits the `i16` of the eval cache and the table, and never prints
/// like a table win; only mates and tablebases reach beyond it.
pub const EVAL_LIMIT: i32 = 10_000;
/// `score cp` of a tablebase win at the root, less the plies to it (as
/// Stockfish prints them).
pub const TB_WIN_CP: i32 = 20_000;

/// The search's score at which the side to move wins half its games with
/// 58 points of material on the board (`wdl::MODEL`'s `a` at 58, where
/// Stockfish anchors its scale too; a test holds the two equal). UCI
/// prints evaluations in hundredths of it, so that `cp 100` means a 50%
/// chance to win, as Stockfish's and the engines' that normalise mean: a
/// GUI's graph, lichess-bot's resign and draw thresholds and a person read
/// the score as theirs. The search and the table keep their own units.
pub const NORMALISED_PAWN: i32 = 223;

/// A search score in normalised centipawns (`NORMALISED_PAWN`), rounded
/// half away from zero.
pub fn normalised_cp(score: i32) -> i32 {
    let scaled = score * 100;
    (scaled + scaled.signum() * NORMALISED_PAWN / 2) / NORMALISED_PAWN
}

/// `score mate N` in moves (negative when being mated), else `score cp X`
/// in normalised centipawns (`normalised_cp`); a tablebase win `ply` plies
/// away is `cp 20000 - ply` (never a mate, above every evaluation).
pub fn format_score(score: i32) -> String {
    if (TB_WIN_BOUND..MATE_BOUND).contains(&score.abs()) {
        let cp = TB_WIN_CP - (TB_WIN - score.abs());
        format!("cp {}", cp * score.signum())
    } else if score >= MATE_BOUND {
        format!("mate {}", (MATE - score + 1) / 2)
    } else if score <= -MATE {
        "mate 0".to_string() // checkmated already
    } else if score <= -MATE_BOUND {
        format!("mate -{}", (MATE + score) / 2)
    } else {
        format!("cp {}", normalised_cp(score))
    }
}
