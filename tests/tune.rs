//! The tune build (`--features tune`) over the UCI pipe of the real binary:
//! every search parameter is a spin option with its default and range,
//! setting one changes the search (another node count for the same
//! fixed-depth search), a value out of range is an `info string` error that
//! keeps the old value, and `lasker spsa` prints OpenBench's SPSA input,
//! which parses back to the table.
//!
//! Compiled only with the feature: `cargo test --features tune --test
//! tune` (`.ci/run` runs it).
#![cfg(feature = "tune")]

mod common;

use std::process::Command;
use std::time::Duration;

use lasker::params::{PARAMS, Param};

use common::{Engine, KIWIPETE, exe};

/// A hang guard, not a speed limit.
const TIMEOUT: Duration = Duration::from_secs(120);
/// Kiwipete at depth 12, as the ablation tests search it: every technique
/// takes part.
const DEPTH: u32 = 12;

impl Engine {
    /// Sets a parameter; returns the lines it printed before `readyok`.
    fn set(&mut self, name: &str, value: i32) -> Vec<String> {
        self.send(&format!("setoption name {name} value {value}"));
        self.isready()
    }

    /// The nodes of a fixed-depth search of Kiwipete from a fresh state.
    fn nodes(&mut self) -> u64 {
        self.nodes_to_depth(KIWIPETE, DEPTH, TIMEOUT)
    }
}

/// The parameters one fixed-depth search on one thread from a fresh table
/// can't show: the time manager's (they change how long a clocked search
/// runs), Lazy SMP's vote (one thread has nobody to outvote) and the
/// table's aging (nothing in it is older than this search).
fn needs_more_than_one_search(p: &Param) -> bool {
    p.name.starts_with("time_") || p.name.starts_with("smp_") || p.name == "tt_age_plies"
}

#[test]
fn uci_lists_every_parameter_as_a_spin_option() {
    let mut e = Engine::new();
    e.send("uci");
    let lines = e.lines_until(|l| l == "uciok", TIMEOUT);
    for p in PARAMS {
        let expected = format!(
            "option name {} type spin default {} min {} max {}",
            p.name, p.default, p.min, p.max
        );
        assert!(lines.contains(&expected), "{expected} not in {lines:?}");
    }
}

#[test]
fn spsa_prints_openbench_input_that_parses_back_to_the_table() {
    let out = Command::new(exe())
        .arg("spsa")
        .output()
        .expect("lasker spsa");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), PARAMS.len(), "{text}");
    for (line, p) in lines.iter().zip(PARAMS) {
        // name, int, value, min, max, c_end, r_end
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        assert_eq!(fields.len(), 7, "{line}");
        assert_eq!((fields[0], fields[1]), (p.name, "int"), "{line}");
        let numbers: Vec<i32> = fields[2..6].iter().map(|f| f.parse().unwrap()).collect();
        assert_eq!(numbers, [p.default, p.min, p.max, p.step], "{line}");
        let r_end: f64 = fields[6].parse().unwrap();
        assert!(r_end > 0.0 && r_end < 0.1, "{line}");
    }
}

#[test]
fn each_search_parameter_changes_the_search() {
    let mut e = Engine::new();
    let defaults = e.nodes();
    assert_eq!(e.nodes(), defaults, "the same search twice");
    let mut unchanged = Vec::new();
    for p in PARAMS.iter().filter(|p| !needs_more_than_one_search(p)) {
        // The far end of the range from the default, then the other end.
        let (far, near) = if p.max - p.default >= p.default - p.min {
            (p.max, p.min)
        } else {
            (p.min, p.max)
        };
        let changed = [far, near]
            .into_iter()
            .filter(|&v| v != p.default)
            .any(|v| {
                assert!(e.set(p.name, v).is_empty(), "{} = {v} is accepted", p.name);
                e.nodes() != defaults
            });
        assert!(e.set(p.name, p.default).is_empty());
        if !changed {
            unchanged.push(p.name);
        }
    }
    assert_eq!(e.nodes(), defaults, "the defaults again: the first search");
    assert!(
        unchanged.is_empty(),
        "these left a depth-{DEPTH} search of Kiwipete unchanged at either end of their range: {unchanged:?}"
    );
}

#[test]
fn a_value_out_of_range_is_an_error_and_keeps_the_old_one() {
    let mut e = Engine::new();
    let defaults = e.nodes();
    let p = PARAMS.iter().find(|p| p.name == "rfp_margin").unwrap();
    assert!(e.set(p.name, p.max).is_empty());
    let changed = e.nodes();
    assert_ne!(changed, defaults);
    for bad in [p.max + 1, p.min - 1] {
        let lines = e.set(p.name, bad);
        assert!(
            lines.len() == 1 && lines[0].starts_with("info string error: "),
            "{bad} should give one error line, got {lines:?}"
        );
        assert_eq!(
            e.nodes(),
            changed,
            "after {bad} the value is still {}",
            p.max
        );
    }
}
