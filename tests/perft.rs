//! Perft against the suites in `positions/`: every count up to a depth that
//! fits the CI budget here, every count of every line in `perft_full`
//! (`make perft-full`, ignored by default: the Chess960 file's sixth ply
//! alone is 5e11 nodes).

use std::sync::atomic::{AtomicUsize, Ordering};

use lasker::perft::{parse_perft_line, perft};
use lasker::position::Position;
use shakmaty::CastlingMode;

/// Checks every `(depth, nodes)` of `file` with `depth <= max_depth` using
/// two threads; returns the number of counts checked, which must be all the
/// file has up to that depth.
fn check_file(file: &str, mode: CastlingMode, max_depth: u32) -> usize {
    let text = std::fs::read_to_string(format!("{}/positions/{file}", env!("CARGO_MANIFEST_DIR")))
        .expect("perft file");
    let lines: Vec<(String, Vec<(u32, u64)>)> = text.lines().filter_map(parse_perft_line).collect();
    assert!(!lines.is_empty(), "{file} has positions");
    let next = AtomicUsize::new(0);
    let checked = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((fen, counts)) = lines.get(i) else {
                        break;
                    };
                    let mut pos = Position::from_fen(fen, mode)
                        .unwrap_or_else(|e| panic!("{file}:{}: {e}", i + 1));
                    for &(depth, nodes) in counts.iter().filter(|(d, _)| *d <= max_depth) {
                        assert_eq!(
                            perft(&mut pos, depth),
                            nodes,
                            "{file}:{} {fen} D{depth}",
                            i + 1
                        );
                        checked.fetch_add(1, Ordering::Relaxed);
                    }
                    // Every make was matched by an unmake.
                    assert_eq!(pos.height(), 1);
                }
            });
        }
    });
    let listed = lines
        .iter()
        .map(|(_, c)| c.iter().filter(|(d, _)| *d <= max_depth).count())
        .sum::<usize>();
    assert_eq!(
        checked.into_inner(),
        listed,
        "{file}: every count up to D{max_depth}"
    );
    listed
}

#[test]
fn perft_standard_to_depth_5() {
    // 128 positions; the D6 counts are in perft_full.
    assert!(check_file("perft_standard.epd", CastlingMode::Standard, 5) >= 128 * 4);
}

#[test]
fn perft_cpw_all_depths() {
    assert_eq!(check_file("perft_cpw.epd", CastlingMode::Standard, 6), 39);
}

#[test]
fn perft_chess960_to_depth_4() {
    assert_eq!(
        check_file("perft_chess960.epd", CastlingMode::Chess960, 4),
        960 * 4
    );
}

/// Every count in every file. Set PERFT_MAX_DEPTH to stop earlier.
#[test]
#[ignore]
fn perft_full() {
    let max: u32 = std::env::var("PERFT_MAX_DEPTH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    for (file, mode) in [
        ("perft_standard.epd", CastlingMode::Standard),
        ("perft_cpw.epd", CastlingMode::Standard),
        ("perft_chess960.epd", CastlingMode::Chess960),
    ] {
        let start = std::time::Instant::now();
        let n = check_file(file, mode, max);
        println!(
            "{file}: {n} counts exact to depth {max} in {:.1?}",
            start.elapsed()
        );
    }
}
