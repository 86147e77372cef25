//! The transposition table as the search threads use it: the checks that
//! run with every `cargo test`. Its measurements (docs/transposition-table.md)
//! are `make tt-report` (`benches/tt_report.rs`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use lasker::rng::Rng;
use lasker::search::format_score;
use lasker::timeman::Limits;
use lasker::tt::Bound;
use shakmaty::Position as _;

/// Lasker–Reichhelm 1901 (Fine, Basic Chess Endings #70; positions/kb1.epd):
/// only 1.Kb1 wins.
const KB1_FEN: &str = "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1";
const KB1_MOVE: &str = "a1b1";

#[path = "common/threads.rs"]
mod threads;
use threads::{position, search_threads, table};

/// Regression: with the table the engine finds 1.Kb1 in Lasker–Reichhelm
/// and sees that it wins (`make tt-report` has it depth by depth, with and
/// without a table).
#[test]
fn kb1_found_with_table() {
    let tt = table(16);
    let run = search_threads(&tt, &position(KB1_FEN), Limits::depth(28), 1).0;
    assert_eq!(run.best(), KB1_MOVE, "{run:?}");
    assert!(
        run.score > 100,
        "Kb1 wins a pawn: {}",
        format_score(run.score)
    );
}

/// What a stress-test thread stores for `key`: every field is a function of
/// the key, so any entry a probe returns can be checked against its key.
fn stress_entry(key: u64) -> (u16, i32, i32, Bound, u32) {
    let mv = (key as u16 & 0x7fff) | 1;
    let score = i32::from((key >> 16) as i16 % 30_000);
    let depth = ((key >> 40) & 63) as i32 + 1;
    let bound = match (key >> 46) % 3 {
        0 => Bound::Upper,
        1 => Bound::Lower,
        _ => Bound::Exact,
    };
    // Up to 34 pieces against a root of 32: some entries are unreachable,
    // so that replacement rule runs too.
    let pieces = ((key >> 56) % 33) as u32 + 2;
    (mv, score, depth, bound, pieces)
}

/// Threads store and probe the same small table at once, the way Lazy SMP
/// threads do. A probe may miss, but whatever it returns must be exactly
/// what some thread stored under that key: a torn entry (words from two
/// writes) must never be returned.
#[test]
fn concurrent_store_and_probe_never_return_a_foreign_entry() {
    const THREADS: u64 = 4;
    const PHASE: Duration = Duration::from_millis(400);
    let tt = table(1);
    tt.new_search(32);
    let generation = tt.generation();
    // Wide: 2^18 random keys over 2^16 entries (evictions everywhere).
    // Narrow: 64 keys sharing their top 14 bits two ways, i.e. two buckets
    // of a 1 MB table: eight slots that all threads overwrite at once.
    let mut rng = Rng::new(0x5eed);
    let wide: Vec<u64> = (0..1 << 18).map(|_| rng.next_u64()).collect();
    let narrow: Vec<u64> = (0..64)
        .map(|i| ((i & 1) << 50) | (rng.next_u64() & ((1 << 50) - 1)))
        .collect();
    for (name, keys) in [("wide", &wide), ("narrow", &narrow)] {
        let hits = AtomicU64::new(0);
        let stores = AtomicU64::new(0);
        let bad: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let start = Instant::now();
        thread::scope(|scope| {
            for t in 0..THREADS {
                let (tt, keys, hits, stores, bad) = (&tt, keys, &hits, &stores, &bad);
                scope.spawn(move || {
                    let mut rng = Rng::new(t.wrapping_mul(0x1234_5678_9abc_def1) ^ 77);
                    let (mut my_hits, mut my_stores) = (0, 0);
                    while start.elapsed() < PHASE {
                        for _ in 0..1024 {
                            let r = rng.next_u64();
                            let key = keys[(r >> 32) as usize % keys.len()];
                            let (mv, score, depth, bound, pieces) = stress_entry(key);
                            if r & 1 == 0 {
                                tt.store(key, mv, score, depth, bound, pieces);
                                my_stores += 1;
                            } else if let Some(e) = tt.probe(key) {
                                my_hits += 1;
                                let got = (e.mv, e.score, e.depth, e.bound, u32::from(e.pieces));
                                if got != (mv, score, depth, bound, pieces)
                                    || e.generation != generation
                                {
                                    bad.lock().unwrap().push(format!("key {key:#x}: got {e:?}"));
                                }
                            }
                        }
                    }
                    hits.fetch_add(my_hits, Ordering::Relaxed);
                    stores.fetch_add(my_stores, Ordering::Relaxed);
                });
            }
        });
        let bad = bad.into_inner().unwrap();
        assert!(
            bad.is_empty(),
            "{name}: {} inconsistent probes, first: {}",
            bad.len(),
            bad[0]
        );
        let hits = hits.into_inner();
        assert!(
            hits > 1000,
            "{name}: the probes must find entries ({hits} hits)"
        );
        assert!(stores.into_inner() > 1000, "{name}: stores ran");
    }
}

/// Two search threads share one table (thread 0 plus a Lazy SMP helper):
/// the answer is a legal move with a sane score. Depth 5 keeps it fast with
/// a plain alpha-beta search too.
#[test]
fn two_threads_share_the_table() {
    // Bench position 11, a quiet middlegame.
    let fen = "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1";
    let pos = position(fen);
    let tt = table(16);
    let (run, helpers) = search_threads(&tt, &pos, Limits::depth(5), 2);
    let best = run.best.as_deref().expect("a move");
    assert!(
        pos.board()
            .legal_moves()
            .iter()
            .any(|m| pos.uci(*m) == best),
        "{best} is legal in {fen}"
    );
    assert!(run.score.abs() <= 1000, "{}", format_score(run.score));
    assert_eq!(run.depth, 5);
    assert!(
        run.nodes > 0 && helpers.iter().all(|&n| n > 0),
        "{helpers:?}"
    );
    assert!(run.stats.tt_hits > 0);
}
