//! `lasker-tools fit-wdl`: fits the win/draw/loss model of `UCI_ShowWDL`
//! (`lasker::wdl`) to Lasker's own self-play games.
//!
//! The fit reads `datagen` records (each a position, its search score and
//! the game's result, all for the side to move) and finds the cubics under
//! which the games' results are most likely. It also fits `a` and `b` for
//! each material count alone, to show how well the cubics follow them.

use std::path::PathBuf;

use crate::data;
use crate::trainingdata::{self, ChessBoard};
use lasker::wdl::{MATERIAL_NORM, MAX_MATERIAL, MIN_MATERIAL, WdlModel, material, sigmoid};

/// Scores beyond this are left out of the fit: the games were adjudicated
/// at ±2,000, and a few huge scores would only pull at the tails.
const MAX_FIT_SCORE: i32 = 2_000;
/// Material counts with fewer positions get no `a`, `b` of their own.
const MIN_BUCKET_POSITIONS: u64 = 1_000;

/// The records the fit and its calibration read: `(score, material,
/// result)` for the side to move (result 0 loss, 1 draw, 2 win), scores
/// within `MAX_FIT_SCORE` only.
fn scored_positions(records: &[ChessBoard]) -> impl Iterator<Item = (i32, u32, usize)> + '_ {
    records
        .iter()
        .filter(|record| i32::from(record.score).abs() <= MAX_FIT_SCORE)
        .map(|record| {
            let material = material(&trainingdata::decode_board(record));
            (
                i32::from(record.score),
                material,
                usize::from(record.result),
            )
        })
}

/// Game results counted by score, for one material count.
struct Bucket {
    /// `[loss, draw, win]` counts for each score in
    /// `-MAX_FIT_SCORE..=MAX_FIT_SCORE`.
    counts: Vec<[u64; 3]>,
    positions: u64,
}

impl Bucket {
    fn new() -> Bucket {
        Bucket {
            counts: vec![[0; 3]; (2 * MAX_FIT_SCORE + 1) as usize],
            positions: 0,
        }
    }

    /// Log-likelihood of the results under `a`, `b`.
    fn log_likelihood(&self, a: f64, b: f64) -> f64 {
        let mut sum = 0.0;
        for (i, [loss, draw, win]) in self.counts.iter().enumerate() {
            if loss + draw + win == 0 {
                continue;
            }
            let v = i as f64 - f64::from(MAX_FIT_SCORE);
            let p_win = sigmoid((v - a) / b);
            let p_loss = sigmoid((-v - a) / b);
            let p_draw = (1.0 - p_win - p_loss).max(1e-12);
            sum += *win as f64 * p_win.max(1e-12).ln()
                + *loss as f64 * p_loss.max(1e-12).ln()
                + *draw as f64 * p_draw.ln();
        }
        sum
    }

    /// The most likely `a`, `b`.
    fn fit(&self) -> (f64, f64) {
        let [a, b] = maximise(
            |&[a, b]| {
                if b < 1.0 {
                    f64::NEG_INFINITY
                } else {
                    self.log_likelihood(a, b)
                }
            },
            [200.0, 200.0],
        );
        (a, b)
    }
}

/// The point where `f` is greatest, from `start`: a coordinate search that
/// tries a step up and down each parameter in turn, keeps what improves,
/// and halves the step when nothing does. Enough for the smooth
/// likelihoods here, which have one peak; parameters are centipawns, so
/// the steps run from 64 down to a quarter.
fn maximise<const N: usize>(f: impl Fn(&[f64; N]) -> f64, start: [f64; N]) -> [f64; N] {
    let mut p = start;
    let mut best = f(&p);
    let mut step = 64.0;
    while step >= 0.25 {
        let mut moved = false;
        for i in 0..N {
            for delta in [step, -step] {
                let mut trial = p;
                trial[i] += delta;
                let value = f(&trial);
                if value > best {
                    (p, best, moved) = (trial, value, true);
                    break;
                }
            }
        }
        if !moved {
            step /= 2.0;
        }
    }
    p
}

/// What a fit found: the model, and each material count's own `a`, `b`
/// with its number of positions (for the report).
pub struct Fit {
    pub model: WdlModel,
    pub buckets: Vec<(u32, u64, f64, f64)>,
    pub positions: u64,
}

/// Fits the model to records (scores and results for the side to move).
pub fn fit(records: &[ChessBoard]) -> Result<Fit, String> {
    let mut buckets: Vec<Bucket> = (MIN_MATERIAL..=MAX_MATERIAL)
        .map(|_| Bucket::new())
        .collect();
    let mut positions = 0;
    for (score, material, result) in scored_positions(records) {
        let material = material.clamp(MIN_MATERIAL, MAX_MATERIAL);
        let bucket = &mut buckets[(material - MIN_MATERIAL) as usize];
        bucket.counts[(score + MAX_FIT_SCORE) as usize][result] += 1;
        bucket.positions += 1;
        positions += 1;
    }
    let fitted: Vec<(u32, u64, f64, f64)> = buckets
        .iter()
        .zip(MIN_MATERIAL..)
        .filter(|(bucket, _)| bucket.positions >= MIN_BUCKET_POSITIONS)
        .map(|(bucket, material)| {
            let (a, b) = bucket.fit();
            (material, bucket.positions, a, b)
        })
        .collect();
    if fitted.len() < NODES.len() {
        return Err(format!(
            "only {} material counts have {MIN_BUCKET_POSITIONS} positions or more; \
             a cubic needs {} (more data, please)",
            fitted.len(),
            NODES.len()
        ));
    }
    let model = most_likely_model(&buckets);
    Ok(Fit {
        model,
        buckets: fitted,
        positions,
    })
}

/// The material counts at which the fit places the cubics' values: values
/// in centipawns at four points are a well-conditioned way to say a cubic
/// (its coefficients are large and cancel).
const NODES: [u32; 4] = [10, 33, 56, 78];

/// The cubic (highest power first) through `values` at `NODES`: the
/// Vandermonde system, solved by Gauss-Jordan elimination with partial
/// pivoting.
fn cubic_through(values: [f64; 4]) -> [f64; 4] {
    // Row i: x_i^3, x_i^2, x_i, 1 | value_i.
    let mut m: [[f64; 5]; 4] = std::array::from_fn(|i| {
        let x = f64::from(NODES[i]) / MATERIAL_NORM;
        [x * x * x, x * x, x, 1.0, values[i]]
    });
    for col in 0..4 {
        let pivot = (col..4)
            .max_by(|&r, &s| m[r][col].abs().total_cmp(&m[s][col].abs()))
            .expect("rows remain");
        m.swap(col, pivot);
        let pivot_row = m[col];
        for (row, values) in m.iter_mut().enumerate() {
            if row != col {
                let factor = values[col] / pivot_row[col];
                for (v, p) in values.iter_mut().zip(pivot_row).skip(col) {
                    *v -= factor * p;
                }
            }
        }
    }
    std::array::from_fn(|i| m[i][4] / m[i][i])
}

/// The model of greatest likelihood over all positions together (each
/// material count weighs as many positions as it has), found by its
/// cubics' values at `NODES`.
fn most_likely_model(buckets: &[Bucket]) -> WdlModel {
    let model_of = |p: &[f64; 8]| WdlModel {
        a: cubic_through([p[0], p[1], p[2], p[3]]),
        b: cubic_through([p[4], p[5], p[6], p[7]]),
    };
    let log_likelihood = |p: &[f64; 8]| -> f64 {
        let model = model_of(p);
        buckets
            .iter()
            .zip(MIN_MATERIAL..)
            .filter(|(bucket, _)| bucket.positions > 0)
            .map(|(bucket, material)| {
                let (a, b) = model.parameters(material);
                bucket.log_likelihood(a, b)
            })
            .sum()
    };
    let start = [200.0, 200.0, 200.0, 200.0, 100.0, 100.0, 100.0, 100.0];
    model_of(&maximise(log_likelihood, start))
}

/// How well a model's chances match the games, for each outcome (win,
/// draw, loss for the side to move, in `per_mille`'s order): the positions
/// grouped by the predicted chance in tenths, each group's count, mean
/// predicted chance and share of games that ended so.
pub fn calibration(model: &WdlModel, records: &[ChessBoard]) -> [[(u64, f64, f64); 10]; 3] {
    let mut groups = [[(0u64, 0.0, 0.0); 10]; 3];
    for (score, material, result) in scored_positions(records) {
        let chances = model.per_mille(score, material);
        for (outcome, groups) in groups.iter_mut().enumerate() {
            let chance = f64::from(chances[outcome]) / 1000.0;
            // Results count up from a loss, outcomes down from a win.
            let happened = result == 2 - outcome;
            let group = &mut groups[((chance * 10.0) as usize).min(9)];
            group.0 += 1;
            group.1 += chance;
            group.2 += f64::from(u8::from(happened));
        }
    }
    groups.map(|groups| {
        groups.map(|(n, predicted, happened)| {
            let n_f = (n as f64).max(1.0);
            (n, predicted / n_f, happened / n_f)
        })
    })
}

pub const USAGE: &str = "usage: lasker-tools fit-wdl --data FILE [--data FILE ...]
  Fits the win/draw/loss model of UCI_ShowWDL to self-play data (.vf games, .bin records or
  .pgn, filtered as training loads them): prints each material count's fit and the model's
  constants.";

/// `lasker-tools fit-wdl`: reads the files, fits, prints the report on stdout.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--data" => files.push(PathBuf::from(
                it.next().ok_or(format!("--data needs a value\n{USAGE}"))?,
            )),
            _ => return Err(format!("unknown flag '{flag}'\n{USAGE}")),
        }
    }
    if files.is_empty() {
        return Err(format!("--data is required\n{USAGE}"));
    }
    let mut records = Vec::new();
    for file in &files {
        let loaded = data::load(file)?;
        if let Some(warning) = &loaded.warning {
            eprintln!("warning: {warning}");
        }
        records.extend(loaded.records);
    }
    let fit = fit(&records)?;
    println!("material positions a b (fitted) a b (model)");
    for &(material, positions, a, b) in &fit.buckets {
        let (ma, mb) = fit.model.parameters(material);
        println!("{material:>8} {positions:>9} {a:>7.1} {b:>6.1} {ma:>7.1} {mb:>6.1}");
    }
    println!("positions used: {}", fit.positions);
    let show = |c: &[f64; 4]| {
        c.iter()
            .map(|v| format!("{v:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("a: [{}],", show(&fit.model.a));
    println!("b: [{}],", show(&fit.model.b));
    let calibration = calibration(&fit.model, &records);
    for (name, groups) in ["win", "draw", "loss"].iter().zip(&calibration) {
        println!("{name}: predicted chance -> positions, mean predicted, share of games");
        for (tenth, (n, predicted, happened)) in groups.iter().enumerate() {
            if *n > 0 {
                println!(
                    "  {:.1}-{:.1} {n:>9} {predicted:.3} {happened:.3}",
                    tenth as f64 / 10.0,
                    (tenth + 1) as f64 / 10.0
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lasker::rng::Rng;
    use shakmaty::{Chess, Position as _, fen::Fen};

    /// Records whose results are drawn from a known model, at scores spread
    /// over ±600, on boards of a few material counts: the fit must find the
    /// model's `a` and `b` again.
    #[test]
    fn a_fit_recovers_the_model_that_made_the_results() {
        let truth = WdlModel {
            a: [0.0, 0.0, -150.0, 350.0], // falls with material
            b: [0.0, 0.0, 40.0, 60.0],
        };
        // Boards of 5 material counts, from 13 to 78.
        let fens = [
            "4k3/pppp4/8/8/8/8/PPPP4/R2QK3 w - - 0 1", // 4 + 4 + 5 + 9 = 22
            "r3k3/pppppppp/8/8/8/8/PPPPPPPP/R3K3 w - - 0 1", // 16 + 10 = 26
            "r2qk3/pppppppp/8/8/8/8/PPPPPPPP/R2QK3 w - - 0 1", // 16 + 28 = 44
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", // 78
            "4k3/pppp4/8/8/8/8/PPPP4/R3K3 w - - 0 1",  // 13
        ];
        let mut rng = Rng::new(5);
        let mut records = Vec::new();
        for fen in fens {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(shakmaty::CastlingMode::Standard)
                .unwrap();
            let m = material(pos.board());
            for _ in 0..40_000 {
                let score = rng.below(1201) as i32 - 600;
                let [w, d, _] = truth.per_mille(score, m);
                let roll = rng.below(1000) as u32;
                let result = if roll < w {
                    trainingdata::GameResult::WhiteWins
                } else if roll < w + d {
                    trainingdata::GameResult::Draw
                } else {
                    trainingdata::GameResult::BlackWins
                };
                // White to move: White's result is the side to move's.
                records.push(trainingdata::encode(&pos, score as i16, result));
            }
        }
        let fit = fit(&records).expect("enough data");
        assert_eq!(fit.positions, 200_000);
        // Found `a`, `b` within `tolerance` of the truth's at `material`.
        let assert_near = |(a, b): (f64, f64), material, tolerance: (f64, f64), what: &str| {
            let (ta, tb) = truth.parameters(material);
            assert!(
                (a - ta).abs() < tolerance.0 && (b - tb).abs() < tolerance.1,
                "{what} at material {material}: a {a}, b {b}; truth a {ta}, b {tb}"
            );
        };
        for &(material, _, a, b) in &fit.buckets {
            assert_near((a, b), material, (12.0, 8.0), "one material count's fit");
        }
        // The fitted model's chances come true as often as it says.
        for (outcome, groups) in calibration(&fit.model, &records).iter().enumerate() {
            for &(n, predicted, happened) in groups {
                if n > 2_000 {
                    assert!(
                        (predicted - happened).abs() < 0.03,
                        "outcome {outcome}: {predicted} predicted, {happened} happened"
                    );
                }
            }
        }
        // The model, fitted to all positions at once, finds the (linear)
        // truth between the material counts of the data too.
        for material in [17, 30, 44, 60, 78] {
            let found = fit.model.parameters(material);
            assert_near(found, material, (15.0, 10.0), "the model");
        }
    }

    #[test]
    fn the_cubic_goes_through_its_nodes() {
        let values = [400.0, 150.0, 90.0, 60.0];
        let model = WdlModel {
            a: cubic_through(values),
            b: cubic_through([1.0, 2.0, 3.0, 4.0]),
        };
        for (&m, v) in NODES.iter().zip(values) {
            assert!((model.parameters(m).0 - v).abs() < 1e-6);
        }
    }

    #[test]
    fn too_little_data_is_an_error() {
        assert!(fit(&[]).is_err());
        assert!(run(&[]).is_err());
        assert!(run(&["--data".into(), "/nonexistent/file.bin".into()]).is_err());
        assert!(run(&["--bogus".into()]).is_err());
    }
}
