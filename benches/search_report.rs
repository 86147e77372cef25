//! Search measurements: where enhanced transposition cutoffs pay, the
//! table behind `params::etc_min_depth` and `etc_max_ply`
//! (docs/search.md). `make search-report` runs it (a tune build: the
//! limits are set as a tuner would set them).

use std::time::{Duration, Instant};

use lasker::bench::bench_fens;
use lasker::params;
use lasker::position::Position;
use lasker::search::{Control, SearchRequest, SearchSetup, SearchStats, Searcher};
use lasker::timeman::Limits;
use lasker::tt::TranspositionTable;
use shakmaty::CastlingMode;

struct Totals {
    nodes: u64,
    time: Duration,
    stats: SearchStats,
}

/// Every bench position to `depth` with ETC from `min_depth` on and at most
/// `max_ply` from the root (0: off); a fresh 16 MB table each, one thread.
fn run_bench(depth: u32, min_depth: i32, max_ply: i32) -> Totals {
    params::set("etc_min_depth", min_depth).unwrap();
    params::set("etc_max_ply", max_ply).unwrap();
    let tt = TranspositionTable::new(16).unwrap();
    let mut t = Totals {
        nodes: 0,
        time: Duration::ZERO,
        stats: SearchStats::default(),
    };
    for fen in bench_fens() {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        tt.clear();
        tt.new_search(pos.piece_count());
        let control = Control::default();
        let request = SearchRequest::new(pos, Limits::depth(depth));
        let setup = SearchSetup::quiet(&request, &control, &tt);
        let start = Instant::now();
        let r = Searcher::new(&setup, 0).iterate();
        t.time += start.elapsed();
        t.nodes += r.nodes;
        t.stats.etc_probes += r.stats.etc_probes;
        t.stats.etc_cutoffs += r.stats.etc_cutoffs;
    }
    t
}

/// Node counts are exact; the time is the median of three runs.
fn measure(depth: u32, min_depth: i32, max_ply: i32) -> Totals {
    let mut runs: Vec<Totals> = (0..3)
        .map(|_| run_bench(depth, min_depth, max_ply))
        .collect();
    assert!(
        runs.iter().all(|r| r.nodes == runs[0].nodes),
        "deterministic"
    );
    runs.sort_by_key(|r| r.time);
    runs.swap_remove(1)
}

fn main() {
    let depth = 11;
    let off = measure(depth, 1, 0);
    assert_eq!(off.stats.etc_probes, 0, "max ply 0 switches ETC off");
    println!("### Enhanced transposition cutoffs: where they pay\n");
    println!(
        "All {} bench positions to depth {depth}, one thread, fresh 16 MB table each; \
         time: median of 3. Ratios against ETC off. Reproduce: `make search-report`.\n",
        bench_fens().count()
    );
    println!(
        "| min depth | max ply | nodes | vs off | time (s) | vs off | child probes | cutoffs |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| off | off | {} | 1.000 | {:.2} | 1.000 | 0 | 0 |",
        off.nodes,
        off.time.as_secs_f64()
    );
    for (min_depth, max_ply) in [(2, 4), (3, 4), (4, 4), (6, 4), (8, 4), (3, 2), (3, 8)] {
        let t = measure(depth, min_depth, max_ply);
        println!(
            "| {min_depth} | {max_ply} | {} | {:.3} | {:.2} | {:.3} | {} | {} |",
            t.nodes,
            t.nodes as f64 / off.nodes as f64,
            t.time.as_secs_f64(),
            t.time.as_secs_f64() / off.time.as_secs_f64(),
            t.stats.etc_probes,
            t.stats.etc_cutoffs
        );
        assert!(t.stats.etc_probes > 0, "ETC on probes children");
    }
}
