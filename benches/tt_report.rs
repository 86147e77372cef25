//! Transposition-table measurements: the tables of
//! docs/transposition-table.md. `make tt-report` runs them all (several
//! minutes); one by its name:
//!
//! ```text
//! cargo bench --features ablation --bench tt_report -- exp3
//! ```
//!
//! - `exp1`: Lasker–Reichhelm (Fine #70) depth by depth, with and without
//!   a table.
//! - `exp2`: nodes and time to a fixed depth with and without a table, by
//!   phase.
//! - `exp3`: type-1 errors (false hits) against the number of key bits
//!   checked, measured and predicted, with Breuker's closed forms beside
//!   them.
//! - `exp5`: replacement rules (`ReplacementPolicy`) and table size in
//!   game-like use with a small table.
//!
//! (The table's checks that run with every `cargo test`, threads hammering
//! `store`/`probe` and two search threads sharing a table, are
//! `tests/tt.rs`.) Node counts are deterministic (one search thread); times
//! are the median of three runs and depend on the machine and its load.
//! Every assertion here is a sanity check, never a timing target. Depths
//! scale with the search: where a depth is not fixed it is the deepest
//! iteration completed within a node budget, which is deterministic too.

use std::process::Command;
use std::time::{Duration, Instant};

use lasker::bench::bench_fens;
use lasker::position::Position;
use lasker::rng::Rng;
use lasker::search::{SearchStats, format_score};
use lasker::timeman::Limits;
use lasker::tt::{ReplacementPolicy, TranspositionTable};
use shakmaty::Position as _;

const REPRODUCE: &str = "cargo bench --features ablation --bench tt_report --";

/// Lasker–Reichhelm 1901 (Fine, Basic Chess Endings #70; positions/kb1.epd).
/// Only 1.Kb1 wins; finding it takes a search deep enough to see a pawn
/// fall, which the table makes reachable by merging transpositions.
const KB1_FEN: &str = "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1";
const KB1_MOVE: &str = "a1b1";

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A single search (one depth or one iteration) longer than this ends a
/// per-depth series.
const SERIES_LIMIT: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------
// Helpers

#[path = "../tests/common/threads.rs"]
mod threads;
use threads::{Run, position, search_threads, table};

fn depth_limit(depth: u32) -> Limits {
    Limits::depth(depth)
}

/// One thread to `depth`.
fn search(tt: &TranspositionTable, pos: &Position, depth: u32) -> Run {
    search_threads(tt, pos, depth_limit(depth), 1).0
}

/// The deepest iteration one thread completes within `nodes` nodes from a
/// fresh table of `megabytes` (at most `max_depth`). Deterministic, so the
/// experiments scale themselves to the search they measure and still
/// repeat exactly.
fn depth_within(megabytes: usize, pos: &Position, nodes: u64, max_depth: u32) -> u32 {
    let limits = Limits {
        depth: Some(max_depth),
        nodes: Some(nodes),
        ..Default::default()
    };
    search_threads(&table(megabytes), pos, limits, 1).0.depth
}

/// Runs `f` (a deterministic single-thread measurement) `runs` times and
/// returns the first run with the median time. The node counts must agree.
fn median_of(runs: usize, mut f: impl FnMut() -> Run) -> Run {
    let mut all: Vec<Run> = (0..runs).map(|_| f()).collect();
    for r in &all {
        assert_eq!(
            r.nodes, all[0].nodes,
            "a single-thread search is deterministic"
        );
    }
    all.sort_by_key(|r| r.time);
    all.swap_remove(all.len() / 2)
}

/// Median of three; a run over `limit` is not repeated (it ends a series
/// anyway). The flag says whether the time is a median.
fn median3_unless_slow(limit: Duration, mut f: impl FnMut() -> Run) -> (Run, bool) {
    let first = f();
    if first.time > limit {
        return (first, false);
    }
    let mut rest = vec![first, f(), f()];
    for r in &rest {
        assert_eq!(
            r.nodes, rest[0].nodes,
            "a single-thread search is deterministic"
        );
    }
    rest.sort_by_key(|r| r.time);
    (rest.swap_remove(1), true)
}

fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

fn ratio(a: f64, b: f64) -> String {
    if b == 0.0 {
        "-".into()
    } else {
        format!("{:.2}", a / b)
    }
}

/// One row of the mini-game tables: nodes, nodes against the first row,
/// table hit rate, time.
fn print_games_row(label: &str, run: &Run, base_nodes: u64) {
    assert!(run.nodes > 0);
    println!(
        "| {label} | {} | {} | {:.3} | {} |",
        run.nodes,
        ratio(run.nodes as f64, base_nodes as f64),
        run.stats.tt_hits as f64 / run.stats.tt_probes as f64,
        secs(run.time)
    );
}

fn geometric_mean(xs: &[f64]) -> f64 {
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
}

/// A short description of the source the numbers come from.
fn source_tree() -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(commit) = git(&["rev-parse", "--short", "HEAD"]) else {
        return "unknown (no git)".into();
    };
    let dirty = git(&["status", "--porcelain", "--", "src"]).unwrap_or_default();
    let files: Vec<&str> = dirty.lines().map(|l| l[3..].trim()).collect();
    if files.is_empty() {
        format!("commit {commit}")
    } else {
        format!(
            "commit {commit} + uncommitted changes in {}",
            files.join(", ")
        )
    }
}

fn heading(title: &str, test: &str) {
    println!();
    println!("### {title}");
    println!();
    println!(
        "Reproduce: `{REPRODUCE} {test}` (source: {}).",
        source_tree()
    );
    println!();
}

/// The hand-picked endgames of the speedup table are legal and not over.
fn experiment_positions_are_legal() {
    for (_, name, fen) in SPEEDUP_POSITIONS {
        let pos = position(fen);
        assert!(!pos.board().legal_moves().is_empty(), "{name}: {fen}");
    }
}

// ---------------------------------------------------------------------------
// Experiment 1: Lasker–Reichhelm, depth by depth

/// Depth by depth from a fresh table each time (the search to depth d is the
/// first d iterations of any deeper search, so nodes and time are those of
/// iterative deepening on reaching depth d). Stops after a depth over
/// `SERIES_LIMIT`.
fn kb1_series(megabytes: usize, max_depth: u32) -> Vec<(Run, bool)> {
    let pos = position(KB1_FEN);
    let mut rows = Vec::new();
    println!("| depth | best move | score | nodes | time (s) |");
    println!("|---:|---|---:|---:|---:|");
    for depth in 1..=max_depth {
        let (run, median) = median3_unless_slow(SERIES_LIMIT, || {
            let tt = table(megabytes);
            search(&tt, &pos, depth)
        });
        println!(
            "| {depth} | {} | {} | {} | {}{} |",
            run.best(),
            format_score(run.score),
            run.nodes,
            secs(run.time),
            if median { "" } else { " (1 run)" }
        );
        let slow = run.time > SERIES_LIMIT;
        rows.push((run, median));
        if slow {
            break;
        }
    }
    rows
}

/// The first depth from which the best move is Kb1 at every later depth.
fn kb1_summary(rows: &[(Run, bool)]) -> Option<&Run> {
    let stable_from = rows
        .iter()
        .rposition(|(r, _)| r.best() != KB1_MOVE)
        .map_or(0, |i| i + 1);
    let found = rows.get(stable_from).map(|(r, _)| r);
    match found {
        Some(r) => println!(
            "\nBest move a1b1 (Kb1) from depth {} on (to depth {}, the last measured), \
             reached after {} s and {} nodes, score {}.",
            r.depth,
            rows.len(),
            secs(r.time),
            r.nodes,
            format_score(r.score)
        ),
        None => println!(
            "\nThe best move is not a1b1 at the last measured depth ({}).",
            rows.len()
        ),
    }
    found
}

fn exp1_lasker_reichhelm() {
    heading(
        "TT experiment 1a: Lasker–Reichhelm (Fine #70), Hash 16 MB",
        "exp1_lasker_reichhelm",
    );
    let started = Instant::now();
    println!(
        "`{KB1_FEN}`, one search thread, a fresh table for each depth (a search to depth d \
         does exactly the first d iterations of any deeper one, so nodes and time are those \
         of iterative deepening on completing depth d); time: median of 3."
    );
    println!();
    let with_tt = kb1_series(16, 30);
    let found = kb1_summary(&with_tt).map(|r| (r.depth, r.time, r.score));

    heading(
        "TT experiment 1b: Lasker–Reichhelm without a table (Hash 0)",
        "exp1_lasker_reichhelm",
    );
    println!(
        "Same position, `TranspositionTable::new(0)`; up to the first depth over {} s \
         (measured once).",
        SERIES_LIMIT.as_secs()
    );
    println!();
    let without = kb1_series(0, 60);
    let found_without = kb1_summary(&without).map(|r| r.depth);

    println!("\n(Experiment time {} s.)", secs(started.elapsed()));
    assert!(with_tt.iter().all(|(r, _)| r.nodes > 0));
    assert!(without.iter().all(|(r, _)| r.nodes > 0));
    let (depth, _, score) = found.expect("with the table Kb1 is found within depth 30");
    assert!(score > 0, "Kb1 wins");
    if let Some(d) = found_without {
        println!("\n(Without the table Kb1 first stays from depth {d}; with it from {depth}.)");
    }
}

// ---------------------------------------------------------------------------
// Experiment 2: what the table saves, by phase

/// (phase, name, FEN).
const SPEEDUP_POSITIONS: [(&str, &str, &str); 12] = [
    ("opening", "start position", START_FEN),
    (
        "opening",
        "bench 1 (move 9)",
        "rn2kb1r/pp3ppp/2p1pn2/3p3b/8/1P1P1NPP/PBPqPPB1/RN2K2R w KQkq - 0 9",
    ),
    (
        "opening",
        "bench 2 (move 9)",
        "r1bqkb1r/p2p1ppp/4p1n1/2p5/2PQP3/5N2/PP3PPP/RNB2RK1 w kq - 0 9",
    ),
    (
        "opening",
        "bench 4 (move 9)",
        "r2q1rk1/pp1nbppp/2pp1n2/4p3/4P1b1/1BPP1N2/PP1N1PPP/R1BQ1RK1 w - - 3 9",
    ),
    (
        "middlegame",
        "bench 9",
        "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    ),
    (
        "middlegame",
        "bench 10",
        "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    ),
    (
        "middlegame",
        "bench 11",
        "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    ),
    (
        "middlegame",
        "bench 12",
        "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
    ),
    ("endgame", "Fine #70 (Lasker–Reichhelm)", KB1_FEN),
    (
        "endgame",
        "Réti study (draw)",
        "7K/8/k1P5/7p/8/8/8/8 w - - 0 1",
    ),
    (
        "endgame",
        "KPK, king on the 6th (win)",
        "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1",
    ),
    (
        "endgame",
        "bench 29 (pawn ending)",
        "8/8/p2p3p/3k2p1/PP6/3K1P1P/8/8 b - - 0 1",
    ),
];

/// The depth of each row of the speedup table: the deepest the search
/// without a table completes within this many nodes (a few seconds here).
const SPEEDUP_NODES: u64 = 2_000_000;

fn exp2_speedup_by_phase() {
    heading(
        "TT experiment 2: nodes and time to a fixed depth, Hash 16 MB vs no table",
        "exp2_speedup_by_phase",
    );
    let started = Instant::now();
    println!(
        "One search thread, a fresh table for each search. Depth: the deepest iteration the \
         search without a table completes within {SPEEDUP_NODES} nodes. Time: median of 3. \
         Ratio = without / with. Where the search treats a node without a hash move \
         differently (internal iterative reduction, for one), the search without a table is \
         a different, smaller tree at the same nominal depth, and the ratio is not only what \
         the table saves."
    );
    println!();
    println!(
        "| phase | position | depth | nodes with TT | nodes without | node ratio \
         | time with (s) | time without (s) | time ratio | best with / without |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    let mut by_phase: Vec<(&str, Vec<f64>, Vec<f64>)> = Vec::new();
    for (phase, name, fen) in SPEEDUP_POSITIONS {
        let pos = position(fen);
        let depth = depth_within(0, &pos, SPEEDUP_NODES, 64);
        let with = median_of(3, || search(&table(16), &pos, depth));
        let without = median_of(3, || search(&table(0), &pos, depth));
        assert!(with.nodes > 0 && without.nodes > 0);
        let node_ratio = without.nodes as f64 / with.nodes as f64;
        let time_ratio = without.time.as_secs_f64() / with.time.as_secs_f64().max(1e-6);
        println!(
            "| {phase} | {name} | {depth} | {} | {} | {} | {} | {} | {time_ratio:.2} | {} / {} |",
            with.nodes,
            without.nodes,
            ratio(without.nodes as f64, with.nodes as f64),
            secs(with.time),
            secs(without.time),
            with.best(),
            without.best()
        );
        match by_phase.iter_mut().find(|p| p.0 == phase) {
            Some(p) => {
                p.1.push(node_ratio);
                p.2.push(time_ratio);
            }
            None => by_phase.push((phase, vec![node_ratio], vec![time_ratio])),
        }
    }
    println!();
    println!("| phase | geometric mean node ratio | geometric mean time ratio |");
    println!("|---|---:|---:|");
    for (phase, nodes, times) in &by_phase {
        println!(
            "| {phase} | {:.2} | {:.2} |",
            geometric_mean(nodes),
            geometric_mean(times)
        );
    }
    println!("\n(Experiment time {} s.)", secs(started.elapsed()));
}

// ---------------------------------------------------------------------------
// Experiment 3: key collisions (type-1 errors) against the check width

/// Bench positions searched, in order, into one table (like a game: the
/// table is not cleared between them, so it is full for most of the run).
const COLLISION_POSITIONS: usize = 10;
/// Depth of each position: the deepest it completes within this many nodes
/// from a fresh 1 MB table (fixed once, the same for every k).
const COLLISION_NODES: u64 = 1_000_000;
const COLLISION_HASH_MB: usize = 1;

struct CollisionRun {
    nodes: u64,
    stats: SearchStats,
    false_hits: u64,
    /// Mean valid entries in the bucket of a random key at the end.
    foreign: f64,
    buckets: usize,
}

fn collision_run(megabytes: usize, check_bits: u32, jobs: &[(Position, u32)]) -> CollisionRun {
    let tt = table(megabytes).with_check_bits(check_bits);
    let mut nodes = 0;
    let mut stats = SearchStats::default();
    for (pos, depth) in jobs {
        let run = search(&tt, pos, *depth);
        nodes += run.nodes;
        stats.tt_probes += run.stats.tt_probes;
        stats.tt_hits += run.stats.tt_hits;
        stats.tt_cutoffs += run.stats.tt_cutoffs;
        stats.tt_move_rejections += run.stats.tt_move_rejections;
    }
    let mut rng = Rng::new(0xc0111de);
    const SAMPLES: usize = 200_000;
    let foreign = (0..SAMPLES)
        .map(|_| tt.foreign_entries(rng.next_u64()))
        .sum::<usize>() as f64
        / SAMPLES as f64;
    CollisionRun {
        nodes,
        stats,
        false_hits: tt.false_hits(),
        foreign,
        buckets: tt.entry_count() / lasker::tt::ENTRIES_PER_BUCKET,
    }
}

/// Breuker's expected number of colliding positions among `m` distinct
/// positions with `n` possible signatures: M − N(1 − e^(−M/N)).
fn breuker_expected(m: f64, n: f64) -> f64 {
    let x = m / n;
    if x < 1e-4 {
        n * (x * x / 2.0 - x * x * x / 6.0 + x * x * x * x / 24.0)
    } else {
        m - n * (-(-x).exp_m1())
    }
}

/// A count that may be tiny: fixed point, or scientific below 0.1.
fn small(x: f64, decimals: usize) -> String {
    if x >= 0.1 || x == 0.0 {
        format!("{x:.decimals$}")
    } else {
        format!("{x:.1e}")
    }
}

fn exp3_collisions() {
    heading(
        "TT experiment 3: type-1 errors (key collisions) against the width of the key check",
        "exp3_collisions",
    );
    let started = Instant::now();
    let jobs: Vec<(Position, u32)> = bench_fens()
        .take(COLLISION_POSITIONS)
        .map(|fen| {
            let pos = position(fen);
            let depth = depth_within(COLLISION_HASH_MB, &pos, COLLISION_NODES, 64);
            (pos, depth)
        })
        .collect();
    let depths: Vec<u32> = jobs.iter().map(|j| j.1).collect();
    // Distinct positions: in a table big enough that nothing is evicted, a
    // probe misses once per new position (every node probes, then stores).
    let big = collision_run(256, 64, &jobs);
    let m = (big.stats.tt_probes - big.stats.tt_hits) as f64;
    println!(
        "Search: the first {COLLISION_POSITIONS} bench positions, one after another, to depths \
         {depths:?} (each the deepest completed within {COLLISION_NODES} nodes), one thread, \
         one {COLLISION_HASH_MB} MB table for the whole run (not cleared between positions), \
         verifying only the low k bits of the key (`with_check_bits(k)`)."
    );
    println!();
    println!(
        "Distinct positions M ≈ {m:.0}: the probes that missed in a 256 MB table, where \
         nothing is evicted ({} probes, {} nodes).",
        big.stats.tt_probes, big.nodes
    );
    println!();
    println!(
        "| k | probes | hits | misses | valid entries per bucket | predicted false hits \
         | measured false hits | TT moves rejected as illegal | nodes | Breuker N \
         | Breuker P(no error) | Breuker E |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut measured = Vec::new();
    for k in [16u32, 20, 24, 32, 64] {
        let run = collision_run(COLLISION_HASH_MB, k, &jobs);
        let bucket_bits = (run.buckets as f64).log2();
        // The bucket is chosen by the high bits and the check looks at the
        // low k: a foreign entry in the bucket passes with 2^-k, or with
        // 2^-(64 - bucket bits) once the two overlap (k = 64).
        let pass = 2f64.powf(-f64::from(k).min(64.0 - bucket_bits));
        let hits = run.stats.tt_hits as f64;
        let misses = run.stats.tt_probes as f64 - hits;
        // A probe whose key is absent meets every valid entry of its bucket;
        // one whose key is present meets the foreign entries before its own
        // slot: on average 3/8 of a full bucket's worth.
        let predicted = pass * run.foreign * (misses + hits * 3.0 / 8.0);
        let n = 2f64.powf((f64::from(k) + bucket_bits).min(64.0));
        let p_none = (-m * m / (2.0 * n)).exp();
        println!(
            "| {k} | {} | {} | {misses} | {:.2} | {} | {} | {} | {} | 2^{:.0} | {} | {} |",
            run.stats.tt_probes,
            run.stats.tt_hits,
            run.foreign,
            small(predicted, 1),
            run.false_hits,
            run.stats.tt_move_rejections,
            run.nodes,
            n.log2(),
            if p_none >= 1e-3 {
                format!("{p_none:.4}")
            } else {
                format!("e^-{:.0}", m * m / (2.0 * n))
            },
            small(breuker_expected(m, n), 1),
        );
        measured.push((k, run.false_hits));
    }
    println!();
    println!(
        "Predicted false hits = 2^-k × (valid entries per bucket) × (misses + 3/8 × hits), \
         with 2^-50 for k = 64 (the 14 bucket-index bits are the key's top bits, so they \
         overlap the check). Probes of children for enhanced transposition cutoffs (if the \
         search has them) are not in `tt_probes`, so the prediction is slightly low. \
         Breuker's closed forms take M distinct positions all kept (an unbounded table) and \
         N = 2^(k + log2 buckets) signatures: P(no error) = e^(-M²/2N), E = M − N(1 − e^(−M/N)) \
         colliding positions. With the full 64-bit check a false hit needs a complete 64-bit \
         key collision: the measured count is 0."
    );
    println!("\n(Experiment time {} s.)", secs(started.elapsed()));
    let count = |k| measured.iter().find(|(b, _)| *b == k).unwrap().1;
    assert_eq!(count(64), 0, "no false hit with the full key check");
    assert!(count(16) > 0, "16 bits let collisions through");
}

// ---------------------------------------------------------------------------
// Experiment 5: replacement policy and table size in game-like use

/// Starting positions of the mini-games (0-based bench lines): two
/// openings, four middlegames, two endgames.
const GAME_STARTS: [usize; 8] = [0, 4, 8, 11, 14, 17, 20, 28];
/// Each mini-game: this many searches, each followed by its move being
/// played (as in a game, the table lives on from search to search).
const GAME_PLIES: usize = 6;
/// The depth of a game's searches: the deepest its first search completes
/// within this many nodes from a fresh 1 MB table.
const GAME_NODES: u64 = 150_000;

struct Game {
    start: Position,
    depth: u32,
    moves: Vec<String>,
}

/// Plays every game (its moves if given, else the engine's own) with a
/// fresh table each; returns the moves and the totals of all searches.
fn play_games(
    games: &[Game],
    make_table: &dyn Fn() -> TranspositionTable,
) -> (Vec<Vec<String>>, Run) {
    let mut played = Vec::new();
    let mut total = Run {
        best: None,
        score: 0,
        depth: 0,
        nodes: 0,
        time: Duration::ZERO,
        stats: SearchStats::default(),
    };
    for game in games {
        let tt = make_table();
        let mut pos = game.start.clone();
        let mut line = Vec::new();
        for ply in 0..GAME_PLIES {
            if pos.board().legal_moves().is_empty() {
                break;
            }
            let run = search(&tt, &pos, game.depth);
            total.nodes += run.nodes;
            total.time += run.time;
            total.stats.tt_hits += run.stats.tt_hits;
            total.stats.tt_probes += run.stats.tt_probes;
            let mv = if game.moves.is_empty() {
                run.best.expect("a move")
            } else {
                match game.moves.get(ply) {
                    Some(mv) => mv.clone(),
                    None => break,
                }
            };
            pos.make_uci(&mv).expect("a legal move");
            line.push(mv);
        }
        played.push(line);
    }
    (played, total)
}

fn exp5_replacement_policy_and_size() {
    heading(
        "TT experiment 5a: replacement rules, Hash 1 MB, game-like use",
        "exp5_replacement_policy_and_size",
    );
    let started = Instant::now();
    let fens: Vec<&str> = bench_fens().collect();
    let mut games: Vec<Game> = GAME_STARTS
        .iter()
        .map(|&i| {
            let start = position(fens[i]);
            let depth = depth_within(1, &start, GAME_NODES, 64);
            Game {
                start,
                depth,
                moves: Vec::new(),
            }
        })
        .collect();
    let (moves, _) = play_games(&games, &|| table(1));
    for (game, line) in games.iter_mut().zip(moves) {
        game.moves = line;
    }
    let depths: Vec<u32> = games.iter().map(|g| g.depth).collect();
    println!(
        "{} mini-games from bench lines {GAME_STARTS:?} (0-based): {GAME_PLIES} searches each, \
         each followed by its move, one table per game that lives on from search to search \
         (`new_search` ages it). Depths {depths:?}: the deepest the game's first search \
         completes within {GAME_NODES} nodes. The moves are those the default policy chose \
         with 1 MB, replayed for every row, so every row searches the same positions. One \
         thread; nodes and time summed over all {} searches; time: median of 3.",
        games.len(),
        games.len() * GAME_PLIES
    );
    println!();
    let all_on = ReplacementPolicy::default();
    let variants = [
        ("all rules (as in play)", all_on),
        (
            "no unreachable-first",
            ReplacementPolicy {
                unreachable_first: false,
                ..all_on
            },
        ),
        (
            "no aging",
            ReplacementPolicy {
                aging: false,
                ..all_on
            },
        ),
        (
            "no depth preference",
            ReplacementPolicy {
                depth_preferred: false,
                ..all_on
            },
        ),
        (
            "none (first slot of another position)",
            ReplacementPolicy {
                unreachable_first: false,
                aging: false,
                depth_preferred: false,
            },
        ),
    ];
    println!("| policy | nodes | vs all rules | hits / probes | time (s) |");
    println!("|---|---:|---:|---:|---:|");
    let mut base = None;
    for (name, policy) in variants {
        let run = median_of(3, || play_games(&games, &|| table(1).with_policy(policy)).1);
        print_games_row(name, &run, *base.get_or_insert(run.nodes));
    }

    heading(
        "TT experiment 5b: table size, same mini-games",
        "exp5_replacement_policy_and_size",
    );
    println!("The same games, depths and moves, default policy; time: median of 3.");
    println!();
    println!("| Hash (MB) | nodes | vs 1 MB | hits / probes | time (s) |");
    println!("|---:|---:|---:|---:|---:|");
    let mut base = None;
    for mb in [1, 4, 16, 64] {
        let run = median_of(3, || play_games(&games, &|| table(mb)).1);
        print_games_row(&mb.to_string(), &run, *base.get_or_insert(run.nodes));
    }
    println!("\n(Experiment time {} s.)", secs(started.elapsed()));
}

/// Runs the experiments named on the command line (all without a name).
fn main() {
    experiment_positions_are_legal();
    let asked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let experiments: [(&str, fn()); 4] = [
        ("exp1", exp1_lasker_reichhelm),
        ("exp2", exp2_speedup_by_phase),
        ("exp3", exp3_collisions),
        ("exp5", exp5_replacement_policy_and_size),
    ];
    for (name, run) in experiments {
        if asked.is_empty() || asked.iter().any(|a| a.starts_with(name)) {
            run();
        }
    }
}
