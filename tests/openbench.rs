//! OpenBench's data generation with the real binary: `genfens` as
//! OpenBench runs it. (The PGNs of its games, converted to training data,
//! are the tools' test: `tools/tests/convert.rs`.)

mod common;

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

use shakmaty::{Color, Position};

use common::{chess, exe, fen_of};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lasker-ob-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `lasker ARGS...` to its end; returns stdout's lines.
fn run(args: &[&str]) -> Vec<String> {
    let out = Command::new(exe())
        .args(args)
        .output()
        .expect("running lasker");
    assert!(out.status.success(), "lasker {args:?}: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// The FENs of `lasker "genfens ..." "quit"`, as OpenBench runs it; every
/// line of its output must be one.
fn genfens(request: &str) -> Vec<String> {
    run(&[&format!("genfens {request}"), "quit"])
        .into_iter()
        .map(|line| match line.strip_prefix("info string genfens ") {
            Some(fen) => fen.to_string(),
            None => panic!("genfens {request}: unexpected line '{line}'"),
        })
        .collect()
}

#[test]
fn genfens_prints_n_legal_openings_the_same_for_a_seed() {
    let fens = genfens("12 seed 2086340112 book None");
    assert_eq!(fens.len(), 12);
    for fen in &fens {
        let pos = chess(fen);
        assert!(!pos.legal_moves().is_empty(), "{fen}");
        // 8 random plies from the start position.
        assert_eq!(
            (pos.turn(), pos.fullmoves().get()),
            (Color::White, 5),
            "{fen}"
        );
    }
    assert_eq!(fens.iter().collect::<HashSet<_>>().len(), 12);
    assert_eq!(genfens("12 seed 2086340112 book None"), fens);
    let other = genfens("12 seed 2086340113 book None");
    assert_eq!(other.len(), 12);
    assert!(other.iter().all(|f| !fens.contains(f)), "{other:?}");
}

#[test]
fn genfens_starts_from_the_books_positions() {
    let dir = scratch("book");
    let book = dir.join("book.epd");
    let lines = [
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - hmvc 2; fmvn 20;",
        "rnbqkb1r/pppp1ppp/5n2/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - hmvc 2; fmvn 20;",
    ];
    fs::write(&book, lines.join("\n")).unwrap();
    let fens = genfens(&format!("6 seed 5 book {}", book.display()));
    assert_eq!(fens.len(), 6);
    // Two random plies from one of the book's positions.
    let two_plies_on: HashSet<String> = lines
        .iter()
        .flat_map(|line| {
            let start = chess(&line.replace(" hmvc 2; fmvn 20;", " 2 20"));
            start.legal_moves().into_iter().flat_map(move |a| {
                let after = start.clone().play(a).unwrap();
                after
                    .legal_moves()
                    .into_iter()
                    .map(move |b| fen_of(&after.clone().play(b).unwrap()))
            })
        })
        .collect();
    for fen in &fens {
        assert!(
            two_plies_on.contains(fen),
            "{fen} is not two plies from the book"
        );
    }
    assert_eq!(fens, genfens(&format!("6 seed 5 book {}", book.display())));

    // A book that can't be read: an error line, no openings.
    let missing = dir.join("missing.epd");
    let out = run(&[
        &format!("genfens 3 seed 1 book {}", missing.display()),
        "quit",
    ]);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].starts_with("info string error:"), "{out:?}");
    fs::remove_dir_all(&dir).unwrap();
}
