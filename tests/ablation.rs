//! The ablation build's `Disable` option (`--features ablation`), over the
//! UCI pipe of the real binary: each technique's name switches that
//! technique off (the search changes: another node count for the same
//! fixed-depth search), and a bad value is an `info string` error that
//! keeps the techniques as they were.
//!
//! Compiled only with the feature: `cargo test --features ablation --test
//! ablation` (`.ci/run` runs it).
#![cfg(feature = "ablation")]

mod common;

use std::time::Duration;

use lasker::search::Techniques;

use common::{Engine, KIWIPETE};

/// A hang guard, not a speed limit.
const TIMEOUT: Duration = Duration::from_secs(120);
/// Kiwipete at depth 12: every technique takes part in the search (history
/// pruning needs histories bad enough to prune by, which a search of depth
/// 9 from a new game has not learned yet; singular extensions need depth 9).
const DEPTH: u32 = 12;

/// What these tests add to the shared harness (`common`).
impl Engine {
    /// Sets `Disable` and returns the lines it printed before `readyok`.
    fn disable(&mut self, value: &str) -> Vec<String> {
        self.send(&format!("setoption name Disable value {value}"));
        self.send("isready");
        let mut lines = self.lines_until(|l| l == "readyok", TIMEOUT);
        lines.pop();
        lines
    }

    /// The nodes of a fixed-depth search of Kiwipete from a fresh state.
    fn nodes(&mut self) -> u64 {
        self.nodes_to_depth(KIWIPETE, DEPTH, TIMEOUT)
    }
}

#[test]
fn uci_lists_the_disable_option() {
    let mut e = Engine::new();
    e.send("uci");
    let lines = e.lines_until(|l| l == "uciok", TIMEOUT);
    assert!(
        lines
            .iter()
            .any(|l| l == "option name Disable type string default <empty>"),
        "{lines:?}"
    );
}

#[test]
fn each_disable_value_changes_the_search() {
    let mut e = Engine::new();
    let all = e.nodes();
    // The comparison means something only if a search repeats exactly.
    assert_eq!(e.nodes(), all, "the same search twice");
    let mut counts = Vec::new();
    for name in Techniques::names() {
        assert!(e.disable(name).is_empty(), "Disable {name} is accepted");
        let without = e.nodes();
        assert_ne!(without, all, "Disable {name} left the search unchanged");
        counts.push((name, without));
    }
    // Back to every technique.
    assert!(e.disable("<empty>").is_empty());
    assert_eq!(e.nodes(), all, "Disable <empty> restores the full search");
    eprintln!("all techniques: {all} nodes; without each: {counts:?}");
}

#[test]
fn a_bad_disable_value_is_an_error_and_keeps_the_old_one() {
    let mut e = Engine::new();
    let all = e.nodes();
    assert!(e.disable("nullmove").is_empty());
    let without_null_move = e.nodes();
    assert_ne!(without_null_move, all);
    for bad in ["nullmove,bogus", "no-such-technique", "lmr;rfp"] {
        let lines = e.disable(bad);
        assert!(
            lines.len() == 1 && lines[0].starts_with("info string error: "),
            "'{bad}' should give one error line, got {lines:?}"
        );
        assert_eq!(
            e.nodes(),
            without_null_move,
            "after '{bad}' the search is still the one without null moves"
        );
    }
}
