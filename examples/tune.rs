//! Texel tuning of the evaluation weights on positions from Lasker's games.
//!
//! ```text
//! nice -n 19 cargo run --release --example tune -- TRAIN VALID [options]
//!   --budget SECONDS   CPU time for the local search (default 900)
//!   --start-step N     largest step (default 8; passes at N, N/2, .., 1)
//!   --limit N          use only the first N positions of each file
//!   --out FILE         write the tuned weights as Rust source to FILE
//! ```
//!
//! TRAIN and VALID hold one position a line, `FEN;result` with the result
//! 1.0/0.5/0.0 from White's point of view (`tests/tune/make_dataset.py`
//! writes them). Each position is first resolved to a quiet one: a
//! captures-only quiescence search with stand pat under the default weights,
//! keeping the leaf of its principal variation. Then K is chosen to minimise
//! the mean squared error E = mean((result - sigmoid(K * eval / 400))^2) on
//! the training set, with eval the evaluation from White's point of view
//! (tempo included) and sigmoid(x) = 1 / (1 + 10^-x), and kept fixed while a
//! local search changes one weight at a time by +step or -step and keeps
//! every change that lowers the training E (going on in that direction while
//! it does). A pass visits every weight; the step halves once a pass gains
//! less than 1e-6, and the search ends after such a pass at step 1 or when
//! the CPU budget is spent.

use std::io::{BufRead, BufReader};
use std::time::Instant;

use lasker::eval::{DEFAULT_PARAMS, EvalParams, evaluate_board};
use lasker::movepick::mvv_lva;
use shakmaty::fen::Fen;
use shakmaty::{Board, CastlingMode, Chess, Color, Position};

/// A quiet position and the game's result from White's point of view.
struct Sample {
    board: Board,
    turn: Color,
    result: f64,
}

/// Weights the local search leaves alone: the king's material; one entry
/// of each placement group whose constant shift another weight already has
/// (the typical mobility counts, the pawn on its second rank, the knight,
/// bishop and queen on the rim: their material; the king's back rank, rim
/// and a-file: one king each side, so a shift cancels); entries no position
/// can reach (pawns on the first or last rank, mobility of pawns and kings,
/// a king attack by pawns or kings or by no piece, a shelter pawn at
/// distance 0).
const FIXED: [&str; 21] = [
    "material[5].",
    "mobility_typical[",
    "pawn_rank[1].",
    "knight_ring[3].",
    "bishop_ring[3].",
    "queen_ring[3].",
    "king_rank[0].",
    "king_ring[3].",
    "king_file[0].",
    "mobility[0].",
    "mobility[5].",
    "pawn_rank[0].",
    "pawn_rank[7].",
    "connected_pawn[0].",
    "connected_pawn[7].",
    "passed_pawn[0].",
    "passed_pawn[7].",
    "king_attack[0]",
    "king_attack[5]",
    "king_attackers_weight[0]",
    "shelter_penalty[0]",
];

/// The range a weight may take: percentages and 64ths stay in range; other
/// weights within max(50, half their size) of the hand-written value.
fn bounds(name: &str, default: i32) -> (i32, i32) {
    if name.starts_with("king_attackers_weight") {
        (0, 100)
    } else if name.starts_with("scale_") {
        (0, 64)
    } else if name == "tempo" {
        (0, 40)
    } else {
        let r = (default.abs() / 2).max(50);
        (default - r, default + r)
    }
}

/// CPU time of this process in seconds.
fn cpu_seconds() -> f64 {
    // utime and stime, fields 14 and 15 of /proc/self/stat, in clock ticks.
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: u64 = fields
        .get(11..13)
        .map_or(0, |f| f.iter().filter_map(|t| t.parse::<u64>().ok()).sum());
    ticks as f64 / 100.0
}

fn static_eval(pos: &Chess, p: &EvalParams) -> i32 {
    evaluate_board(pos.board(), pos.turn(), p)
}

/// Captures-only quiescence search with stand pat (fail-hard), returning the
/// score for the side to move and the leaf of the principal variation.
fn quiescence(pos: &Chess, mut alpha: i32, beta: i32, p: &EvalParams, ply: u32) -> (i32, Chess) {
    let stand_pat = static_eval(pos, p);
    if stand_pat >= beta {
        return (beta, pos.clone());
    }
    let mut leaf = pos.clone();
    alpha = alpha.max(stand_pat);
    if ply >= 32 {
        return (alpha, leaf);
    }
    let mut moves = pos.capture_moves();
    // Most valuable victim first, least valuable attacker second.
    moves.sort_by_key(|&m| -mvv_lva(m));
    for m in moves {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let (score, child_leaf) = quiescence(&child, -beta, -alpha, p, ply + 1);
        let score = -score;
        if score > alpha {
            alpha = score;
            leaf = child_leaf;
            if score >= beta {
                return (beta, leaf);
            }
        }
    }
    (alpha, leaf)
}

fn load(path: &str, limit: usize) -> Vec<Sample> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut samples = Vec::new();
    for line in BufReader::new(file).lines().take(limit) {
        let line = line.expect("readable line");
        let Some((fen, result)) = line.trim().split_once(';') else {
            continue;
        };
        let result: f64 = result.trim().parse().expect("result 1.0/0.5/0.0");
        let pos: Chess = Fen::from_ascii(fen.as_bytes())
            .expect("valid FEN")
            .into_position(CastlingMode::Standard)
            .expect("legal position");
        let (_, leaf) = quiescence(&pos, -100_000, 100_000, &DEFAULT_PARAMS, 0);
        samples.push(Sample {
            board: leaf.board().clone(),
            turn: leaf.turn(),
            result,
        });
    }
    samples
}

fn white_eval(s: &Sample, p: &EvalParams) -> f64 {
    let e = evaluate_board(&s.board, s.turn, p);
    f64::from(if s.turn == Color::White { e } else { -e })
}

fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

/// Mean squared error of the predictions from `evals` (one per sample).
fn error_of(samples: &[Sample], evals: impl IntoIterator<Item = f64>, k: f64) -> f64 {
    let sum: f64 = samples
        .iter()
        .zip(evals)
        .map(|(s, e)| (s.result - sigmoid(k, e)).powi(2))
        .sum();
    sum / samples.len() as f64
}

fn error(samples: &[Sample], p: &EvalParams, k: f64) -> f64 {
    error_of(samples, samples.iter().map(|s| white_eval(s, p)), k)
}

/// The K minimising the error under `p` (golden-section search).
fn best_k(samples: &[Sample], p: &EvalParams) -> f64 {
    let evals: Vec<f64> = samples.iter().map(|s| white_eval(s, p)).collect();
    let (mut a, mut b) = (0.05f64, 5.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if error_of(samples, evals.iter().copied(), c) < error_of(samples, evals.iter().copied(), d)
        {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

struct Args {
    train: String,
    valid: String,
    budget: f64,
    start_step: i32,
    limit: usize,
    out: Option<String>,
}

fn parse_args() -> Args {
    let mut positional = Vec::new();
    let mut args = Args {
        train: String::new(),
        valid: String::new(),
        budget: 900.0,
        start_step: 8,
        limit: usize::MAX,
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--budget" => args.budget = value().parse().expect("seconds"),
            "--start-step" => args.start_step = value().parse().expect("step"),
            "--limit" => args.limit = value().parse().expect("count"),
            "--out" => args.out = Some(value()),
            _ => positional.push(a),
        }
    }
    let [train, valid] = <[String; 2]>::try_from(positional).unwrap_or_else(|_| {
        panic!("usage: tune TRAIN VALID [--budget S] [--start-step N] [--limit N] [--out FILE]")
    });
    args.train = train;
    args.valid = valid;
    args
}

fn main() {
    let args = parse_args();
    let wall = Instant::now();
    let train = load(&args.train, args.limit);
    let valid = load(&args.valid, args.limit);
    println!(
        "{} train, {} validation positions (quiesced) in {:.0} s CPU",
        train.len(),
        valid.len(),
        cpu_seconds()
    );

    let k = best_k(&train, &DEFAULT_PARAMS);
    let (train0, valid0) = (
        error(&train, &DEFAULT_PARAMS, k),
        error(&valid, &DEFAULT_PARAMS, k),
    );
    println!("K = {k:.4}; default weights: train E {train0:.6}, validation E {valid0:.6}");

    let names = EvalParams::names();
    let defaults = DEFAULT_PARAMS.to_vec();
    let tunable: Vec<usize> = (0..names.len())
        .filter(|&i| !FIXED.iter().any(|f| names[i].starts_with(f)))
        .collect();
    let limits: Vec<(i32, i32)> = names
        .iter()
        .zip(&defaults)
        .map(|(n, &d)| bounds(n, d))
        .collect();
    println!("{} weights, {} tuned", names.len(), tunable.len());

    let mut values = defaults.clone();
    let mut best = train0;
    let start_cpu = cpu_seconds();
    let mut step = args.start_step.max(1);
    let mut pass = 0;
    'search: loop {
        pass += 1;
        let before = best;
        let mut changed = 0;
        for &i in &tunable {
            if cpu_seconds() - start_cpu > args.budget {
                println!("CPU budget of {:.0} s spent", args.budget);
                break 'search;
            }
            let original = values[i];
            for delta in [step, -step] {
                let mut improved = false;
                // Keep going in a direction while it helps.
                loop {
                    let v = values[i] + delta;
                    if v < limits[i].0 || v > limits[i].1 {
                        break;
                    }
                    values[i] = v;
                    let e = error(&train, &EvalParams::from_vec(&values), k);
                    if e < best {
                        best = e;
                        improved = true;
                    } else {
                        values[i] -= delta;
                        break;
                    }
                }
                if improved {
                    break;
                }
            }
            if values[i] != original {
                changed += 1;
            }
        }
        let p = EvalParams::from_vec(&values);
        println!(
            "pass {pass} step {step}: {changed} weights changed, train E {best:.6}, \
             validation E {:.6}, {:.0} s CPU, {:.0} s wall",
            error(&valid, &p, k),
            cpu_seconds() - start_cpu,
            wall.elapsed().as_secs_f64()
        );
        if let Some(path) = &args.out {
            std::fs::write(path, p.to_rust()).expect("writable output");
        }
        // Halve the step once a pass gains next to nothing.
        if best >= before - 1e-6 {
            if step == 1 {
                break;
            }
            step /= 2;
        }
    }

    let tuned = EvalParams::from_vec(&values);
    let (train1, valid1) = (error(&train, &tuned, k), error(&valid, &tuned, k));
    println!(
        "K = {k:.4}; tuned weights: train E {train1:.6} (was {train0:.6}), \
         validation E {valid1:.6} (was {valid0:.6}); K refitted for the tuned weights: {:.4}",
        best_k(&train, &tuned)
    );
    println!(
        "search: {:.0} s CPU, {:.0} s wall in all",
        cpu_seconds() - start_cpu,
        wall.elapsed().as_secs_f64()
    );
    let mut changes: Vec<(i32, &str, i32, i32)> = (0..names.len())
        .filter(|&i| values[i] != defaults[i])
        .map(|i| {
            (
                values[i] - defaults[i],
                names[i].as_str(),
                defaults[i],
                values[i],
            )
        })
        .collect();
    changes.sort_by_key(|c| -c.0.abs());
    println!("{} weights changed, largest first:", changes.len());
    for (delta, name, old, new) in changes {
        println!("  {name:<32} {old:>6} -> {new:>6} ({delta:+})");
    }
    println!("{}", tuned.to_rust());
    if let Some(path) = &args.out {
        std::fs::write(path, tuned.to_rust()).expect("writable output");
    }
}
