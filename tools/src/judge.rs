//! `lasker-tools judge`: how well nets agree with an outside judge.
//!
//! A net's loss on its own lineage's held-out games rewards agreeing with
//! its parents. The judge set is quiet positions from games Lasker did not
//! play (the gauntlet's engines among themselves), each scored by
//! Stockfish 15.1 at 100,000 nodes and turned into its expected score
//! (`tools/judge/make_set.py` makes it; it is never trained on). For each
//! net this prints
//! - its **loss**: the mean squared difference between the net's static
//!   evaluation read as an expected score, `sigmoid(eval / scale)`, and the
//!   judge's, at the `scale` that fits the net best (printed beside it), so
//!   that a net is not blamed for the unit of its centipawns;
//! - its **rank correlation** (Spearman's) with Stockfish's centipawns:
//!   whether it orders positions as the judge does, whatever the scale
//!   (the centipawns rather than the expected scores, which Stockfish's
//!   model saturates at 0 and 1 beyond a few hundred centipawns);
//! - from the second net on, its loss minus the first net's, paired
//!   position by position, with a 95% interval.
//!
//! A line of the set is `FEN;CP;W;D;L` (Stockfish's score and its win, draw
//! and loss chances per mille, for the side to move); the file is gzip'd
//! text.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use flate2::read::GzDecoder;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position as _};

use lasker::nnue::{self, Network};

/// The committed judge set, read from the tools' source tree.
pub const DEFAULT_SET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/judge/judge-set.txt.gz");

pub const USAGE: &str = "usage: lasker-tools judge [--set FILE.txt.gz] NET|embedded ...
  Each net's loss and rank correlation against the judge set (quiet positions from other
  engines' games scored by Stockfish 15.1; tools/judge/make_set.py, docs/evaluation.md).
  --set: the set to judge on (default: tools/judge/judge-set.txt.gz of this checkout).
  From the second net on, the last column is its loss minus the first net's, position by
  position, with its 95% interval: a difference the interval spans is noise.";

/// One judged position.
#[derive(Clone, Debug)]
pub struct Judged {
    pub pos: Chess,
    /// Stockfish's score in centipawns for the side to move.
    pub cp: i32,
    /// The judge's expected score for the side to move, 0..1.
    pub target: f64,
}

/// A net's figures on a set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub loss: f64,
    /// The centipawns per unit of the sigmoid's input that fit best.
    pub scale: f64,
    pub spearman: f64,
}

/// Reads a judge set: gzip'd lines `FEN;CP;W;D;L`.
pub fn load_set(path: &Path) -> Result<Vec<Judged>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_set(GzDecoder::new(file)).map_err(|e| format!("{}: {e}", path.display()))
}

/// The positions of a set's text.
pub fn parse_set(reader: impl Read) -> Result<Vec<Judged>, String> {
    let mut set = Vec::new();
    for (number, line) in BufReader::new(reader).lines().enumerate() {
        let line = line.map_err(|e| format!("line {}: {e}", number + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| format!("line {}: {why}: '{line}'", number + 1);
        let fields: Vec<&str> = line.split(';').collect();
        let [fen, cp, w, d, l] = fields[..] else {
            return Err(bad("want FEN;CP;W;D;L"));
        };
        let pos = fen
            .parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok())
            .ok_or_else(|| bad("not a legal FEN"))?;
        let cp = cp
            .trim()
            .parse::<i32>()
            .map_err(|_| bad("CP is centipawns"))?;
        let per_mille = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| bad("W, D and L are per mille"))
        };
        let (w, d, l) = (per_mille(w)?, per_mille(d)?, per_mille(l)?);
        if w + d + l != 1000 {
            return Err(bad("W + D + L must be 1000"));
        }
        let target = (f64::from(w) + f64::from(d) / 2.0) / 1000.0;
        set.push(Judged { pos, cp, target });
    }
    Ok(set)
}

/// The net's static evaluation of each position of `set`.
fn evaluations(net: &Network, set: &[Judged]) -> Vec<f64> {
    set.iter()
        .map(|j| f64::from(net.evaluate_board(j.pos.board(), j.pos.turn())))
        .collect()
}

/// The figures of a net whose evaluations of `set` are `evals`.
fn judge_evaluations(evals: &[f64], set: &[Judged]) -> Verdict {
    let loss_at =
        |scale: f64| squared_errors(evals, set, scale).sum::<f64>() / set.len().max(1) as f64;
    let scale = minimise(loss_at, 50.0, 2_000.0);
    let judge_cp: Vec<f64> = set.iter().map(|j| f64::from(j.cp)).collect();
    Verdict {
        loss: loss_at(scale),
        scale,
        spearman: spearman(evals, &judge_cp),
    }
}

/// Each position's squared error for evaluations read at `scale`: the
/// terms whose mean is the loss.
fn squared_errors<'a>(
    evals: &'a [f64],
    set: &'a [Judged],
    scale: f64,
) -> impl Iterator<Item = f64> + 'a {
    evals
        .iter()
        .zip(set)
        .map(move |(e, j)| (sigmoid(e / scale) - j.target).powi(2))
}

/// The mean of `a - b` position by position, and its 95% half-width: two
/// nets judged on the same positions differ by far less noise than
/// their losses' own spread (the hard positions are hard for both).
pub fn paired_difference(a: &[f64], b: &[f64]) -> (f64, f64) {
    let n = a.len().min(b.len());
    if n < 2 {
        return (0.0, f64::INFINITY);
    }
    let diffs: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let mean = diffs.iter().sum::<f64>() / n as f64;
    let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (mean, 1.96 * (var / n as f64).sqrt())
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The minimum of `f` on [low, high] by golden-section search (the loss
/// against the scale has one minimum there: a net's evaluations either
/// over- or under-state the judge's confidence).
fn minimise(f: impl Fn(f64) -> f64, mut low: f64, mut high: f64) -> f64 {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut a = high - ratio * (high - low);
    let mut b = low + ratio * (high - low);
    let (mut fa, mut fb) = (f(a), f(b));
    while high - low > 0.5 {
        if fa < fb {
            high = b;
            (b, fb) = (a, fa);
            a = high - ratio * (high - low);
            fa = f(a);
        } else {
            low = a;
            (a, fa) = (b, fb);
            b = low + ratio * (high - low);
            fb = f(b);
        }
    }
    (low + high) / 2.0
}

/// Spearman's rank correlation: Pearson's on the ranks, ties sharing
/// their mean rank.
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    pearson(&ranks(x), &ranks(y))
}

fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let mean = (start + end - 1) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = mean;
        }
        start = end;
    }
    ranks
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx).powi(2);
        syy += (b - my).powi(2);
    }
    sxy / (sxx * syy).sqrt()
}

/// `lasker-tools judge`: loads the set, then judges each net given.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut set_path = PathBuf::from(DEFAULT_SET);
    let mut nets = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--set" => {
                set_path = PathBuf::from(
                    it.next()
                        .ok_or_else(|| format!("--set needs a file\n{USAGE}"))?,
                )
            }
            flag if flag.starts_with("--") => {
                return Err(format!("unknown flag '{flag}'\n{USAGE}"));
            }
            net => nets.push(net.to_string()),
        }
    }
    if nets.is_empty() {
        return Err(format!("no net to judge\n{USAGE}"));
    }
    // Every net loads before any is judged: a bad path fails at once.
    let loaded: Vec<(String, Arc<Network>)> = nets
        .iter()
        .map(|name| {
            let net = match name.as_str() {
                "embedded" => nnue::embedded(),
                path => Arc::new(
                    Network::load(Path::new(path))
                        .map_err(|e| format!("{path}: not a net Lasker can load: {}", e.0))?,
                ),
            };
            Ok((name.clone(), net))
        })
        .collect::<Result<_, String>>()?;
    let set = load_set(&set_path)?;
    if set.is_empty() {
        return Err(format!("{}: no positions", set_path.display()));
    }
    lasker::channel::send(&format!("{} positions ({})", set.len(), set_path.display()));
    lasker::channel::send(&format!(
        "{:<40} {:>9} {:>7} {:>9}  loss - first net's (95%)",
        "net", "loss", "scale", "spearman"
    ));
    let mut first: Option<Vec<f64>> = None;
    for (name, net) in &loaded {
        let evals = evaluations(net, &set);
        let v = judge_evaluations(&evals, &set);
        let losses: Vec<f64> = squared_errors(&evals, &set, v.scale).collect();
        let against_first = match &first {
            None => String::new(),
            Some(base) => {
                let (mean, half) = paired_difference(&losses, base);
                format!("  {mean:+.6} ± {half:.6}")
            }
        };
        lasker::channel::send(&format!(
            "{name:<40} {:>9.6} {:>7.0} {:>9.4}{against_first}",
            v.loss, v.scale, v.spearman
        ));
        first.get_or_insert(losses);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set whose targets are exactly `net`'s evaluations read at `scale`.
    fn set_from(net: &Network, fens: &[&str], scale: f64) -> Vec<Judged> {
        fens.iter()
            .map(|fen| {
                let pos: Chess = fen
                    .parse::<Fen>()
                    .unwrap()
                    .into_position(CastlingMode::Standard)
                    .unwrap();
                let eval = net.evaluate_board(pos.board(), pos.turn());
                Judged {
                    cp: eval,
                    target: sigmoid(f64::from(eval) / scale),
                    pos,
                }
            })
            .collect()
    }

    const FENS: [&str; 8] = [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
        "3qk3/8/8/8/8/8/8/4K3 w - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    ];

    /// The net's figures on `set`.
    fn judge(net: &Network, set: &[Judged]) -> Verdict {
        judge_evaluations(&evaluations(net, set), set)
    }

    /// A set made from the net's own evaluations: no loss at the scale it
    /// was made with, found by the fit, and ranks in full agreement; another
    /// net disagrees.
    #[test]
    fn a_net_agrees_with_its_own_evaluations() {
        let net = nnue::embedded();
        let set = set_from(&net, &FENS, 340.0);
        let v = judge(&net, &set);
        assert!(v.loss < 1e-6, "{v:?}");
        assert!((v.scale - 340.0).abs() < 5.0, "{v:?}");
        assert!((v.spearman - 1.0).abs() < 1e-9, "{v:?}");
        let mut other = (*net).clone();
        other
            .output_weights
            .iter_mut()
            .step_by(3)
            .for_each(|w| *w = -*w);
        let worse = judge(&other, &set);
        assert!(
            worse.loss > v.loss + 1e-4 && worse.spearman < 0.99,
            "{worse:?}"
        );
    }

    /// The paired difference: its mean, and a half-width that shrinks with
    /// the differences' spread, not with the losses' own.
    #[test]
    fn paired_difference_reads_the_differences() {
        let base = [0.5, 0.1, 0.9, 0.3];
        let shifted = base.map(|x| x + 0.01);
        let (mean, half) = paired_difference(&shifted, &base);
        assert!((mean - 0.01).abs() < 1e-12 && half < 1e-12, "{mean} {half}");
        let (mean, half) = paired_difference(&[1.0, 3.0], &[0.0, 0.0]);
        // differences 1 and 3: mean 2, sd sqrt(2), half-width 1.96 * 1.
        assert!((mean - 2.0).abs() < 1e-12 && (half - 1.96).abs() < 1e-12);
        assert_eq!(paired_difference(&[1.0], &[0.0]).1, f64::INFINITY);
        let net = nnue::embedded();
        let set = set_from(&net, &FENS, 340.0);
        let evals = evaluations(&net, &set);
        let v = judge_evaluations(&evals, &set);
        let losses: Vec<f64> = squared_errors(&evals, &set, v.scale).collect();
        let mean = losses.iter().sum::<f64>() / losses.len() as f64;
        assert!((mean - v.loss).abs() < 1e-12);
    }

    #[test]
    fn spearman_uses_ranks_and_shares_ties() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert!((spearman(&x, &[10.0, 20.0, 30.0, 1000.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&x, &[4.0, 3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        assert_eq!(ranks(&[5.0, 1.0, 5.0, 0.0]), vec![2.5, 1.0, 2.5, 0.0]);
    }

    #[test]
    fn set_lines_are_checked() {
        let good = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1;150;400;550;50\n\n";
        let set = parse_set(good.as_bytes()).unwrap();
        assert_eq!(set.len(), 1);
        assert!((set[0].target - 0.675).abs() < 1e-12);
        assert_eq!(set[0].cp, 150);
        for bad in [
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1;150;400;550",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1;150;400;550;60",
            "not a fen;0;0;1000;0",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1;150;x;550;50",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1;many;400;550;50",
        ] {
            assert!(parse_set(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    /// A file that is not a net is an error naming it, before the set is
    /// read.
    #[test]
    fn a_file_that_is_not_a_net_is_a_clear_error() {
        let path = std::env::temp_dir().join(format!("lasker-judge-{}.nnue", std::process::id()));
        std::fs::write(&path, b"not a net").unwrap();
        let args = ["--set", "/no/such/set.txt.gz", path.to_str().unwrap()].map(String::from);
        let error = run(&args).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(error.contains("not a net"), "{error}");
        assert!(run(&[]).unwrap_err().contains("no net"));
        let missing = ["--set", "/no/such/set.txt.gz", "embedded"].map(String::from);
        assert!(run(&missing).unwrap_err().contains("/no/such/set.txt.gz"));
    }

    /// The committed set: at least 20,000 positions, every line good, and
    /// the embedded net agrees with it as a trained net does (the embedded
    /// nets of this shape score 0.0248 to 0.0282 and 0.942 to 0.947 there;
    /// net 1, from the first 0.64 M positions, 0.0442 / 0.898; a broken set
    /// or judge would be near 0.25 / 0).
    #[test]
    fn the_committed_set_loads_and_judges_the_embedded_net() {
        let set = load_set(Path::new(DEFAULT_SET)).unwrap();
        assert!(set.len() >= 20_000, "{} positions", set.len());
        let verdict = judge(&nnue::embedded(), &set);
        assert!(verdict.loss < 0.03 && verdict.spearman > 0.9, "{verdict:?}");
    }
}
