//! `bench`: a fixed set of positions searched to a fixed depth on one thread
//! from a fresh state. The node count is a fingerprint of the search: any
//! change to search or evaluation that changes behaviour changes it, so it is
//! quoted in every such commit.

use std::sync::Arc;
use std::time::{Duration, Instant};

use shakmaty::CastlingMode;

use crate::nnue::Network;
use crate::position::Position;
use crate::search::{Control, SearchRequest, SearchSetup, Searcher, Techniques};
use crate::timeman::Limits;
use crate::tt::TranspositionTable;

/// Hash size of the bench: the default `Hash`, cleared for each position.
pub const BENCH_HASH_MB: usize = 16;

pub const DEFAULT_BENCH_DEPTH: u32 = 10;

/// `lasker bench`'s node count, written in this one place: a test holds
/// the search to it, so a change of behaviour is never silent. A commit
/// that changes it on purpose changes this number and quotes it in its
/// message (`bench: N`), as OpenBench engines do with `Bench:`.
pub const EXPECTED_NODES: u64 = 1_230_380;

/// The bench positions, built into the binary so `lasker bench` works from
/// any directory.
pub const BENCH_POSITIONS: &str = include_str!("../positions/bench.epd");

pub fn bench_fens() -> impl Iterator<Item = &'static str> {
    BENCH_POSITIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

pub struct BenchResult {
    pub nodes: u64,
    /// Time spent searching, which `nps` divides by.
    pub elapsed: Duration,
    /// Time spent clearing the table and making each search's fresh
    /// memory (histories, evaluation cache): the same for every position,
    /// whatever the search does there, so counting it would make a search
    /// that needs fewer nodes look slower per node.
    pub setup: Duration,
    /// Repetition checks, and how many the counter table decided alone.
    pub repetition_checks: u64,
    pub repetition_early_exits: u64,
}

impl BenchResult {
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// Searches every bench position to `depth`; each search starts fresh.
/// `techniques` is all of them except in an ablation build's experiments;
/// `net` is the evaluation network.
pub fn run(depth: u32, techniques: Techniques, net: &Arc<Network>) -> BenchResult {
    let tt = TranspositionTable::new(BENCH_HASH_MB).expect("bench hash table");
    let (mut elapsed, mut setup_time) = (Duration::ZERO, Duration::ZERO);
    let mut nodes = 0;
    let (mut repetition_checks, mut repetition_early_exits) = (0, 0);
    for fen in bench_fens() {
        let pos = Position::from_fen(fen, CastlingMode::Standard).expect("bench FENs are valid");
        let start = Instant::now();
        tt.clear();
        tt.new_search(pos.piece_count());
        let control = Control::default();
        let request = SearchRequest {
            techniques,
            net: Arc::clone(net),
            ..SearchRequest::new(pos, Limits::depth(depth))
        };
        let setup = SearchSetup::quiet(&request, &control, &tt);
        let mut searcher = Searcher::new(&setup, 0);
        let searching = Instant::now();
        setup_time += searching - start;
        let result = searcher.iterate();
        elapsed += searching.elapsed();
        nodes += searcher.nodes;
        repetition_checks += result.stats.repetitions.checks;
        repetition_early_exits += result.stats.repetitions.early_exits;
    }
    BenchResult {
        nodes,
        elapsed,
        setup: setup_time,
        repetition_checks,
        repetition_early_exits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_are_valid_and_varied() {
        let fens: Vec<_> = bench_fens().collect();
        assert!(fens.len() >= 40, "about 40 positions");
        for fen in &fens {
            Position::from_fen(fen, CastlingMode::Standard).unwrap();
        }
    }

    /// The search, node for node: a change here is a change of behaviour.
    #[test]
    fn bench_gives_the_node_count_written_down() {
        let net = crate::nnue::embedded();
        let nodes = run(DEFAULT_BENCH_DEPTH, Techniques::ALL, &net).nodes;
        assert_eq!(
            nodes, EXPECTED_NODES,
            "bench changed: if on purpose, write {nodes} in EXPECTED_NODES and quote it"
        );
    }

    #[test]
    fn bench_is_deterministic() {
        let net = crate::nnue::embedded();
        assert_eq!(
            run(3, Techniques::ALL, &net).nodes,
            run(3, Techniques::ALL, &net).nodes
        );
    }
}
