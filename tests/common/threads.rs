//! Searches on several threads sharing one table, the way the engine runs
//! them, for the table's tests (`tests/tt.rs`) and measurements
//! (`benches/tt_report.rs`), which include this file by its path.
#![allow(dead_code)]

use std::thread;
use std::time::{Duration, Instant};

use lasker::engine::SEARCH_STACK_BYTES;
use lasker::position::Position;
use lasker::search::{Control, SearchRequest, SearchSetup, SearchStats, Searcher};
use lasker::timeman::Limits;
use lasker::tt::TranspositionTable;
use shakmaty::CastlingMode;

/// What one search gave.
#[derive(Clone, Debug)]
pub struct Run {
    pub best: Option<String>,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    pub stats: SearchStats,
}

impl Run {
    pub fn best(&self) -> &str {
        self.best.as_deref().unwrap_or("none")
    }
}

pub fn position(fen: &str) -> Position {
    Position::from_fen(fen, CastlingMode::Standard).unwrap_or_else(|e| panic!("{fen}: {e:?}"))
}

pub fn table(megabytes: usize) -> TranspositionTable {
    TranspositionTable::new(megabytes).expect("hash table")
}

/// Searches `pos` within `limits` with `threads` threads sharing `tt`, the
/// way the engine does (`new_search`, then Lazy SMP helpers beside thread 0,
/// each on a thread with the engine's stack size). Returns thread 0's result
/// and the helpers' node counts.
pub fn search_threads(
    tt: &TranspositionTable,
    pos: &Position,
    limits: Limits,
    threads: usize,
) -> (Run, Vec<u64>) {
    tt.new_search(pos.piece_count());
    let control = Control::default();
    let request = SearchRequest::new(pos.clone(), limits);
    let setup = SearchSetup::quiet(&request, &control, tt);
    let start = Instant::now();
    let (result, helper_nodes) = thread::scope(|scope| {
        let spawn = |id: usize| {
            let setup = &setup;
            thread::Builder::new()
                .name(format!("search-{id}"))
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(scope, move || {
                    let result = Searcher::new(setup, id).iterate();
                    if id == 0 {
                        setup.control.lifecycle.limit_reached();
                    }
                    result
                })
                .expect("spawning a search thread")
        };
        let helpers: Vec<_> = (1..threads.max(1)).map(spawn).collect();
        let main = spawn(0).join().expect("search thread 0");
        let helper_nodes = helpers
            .into_iter()
            .map(|h| h.join().expect("helper thread").nodes)
            .collect::<Vec<_>>();
        (main, helper_nodes)
    });
    let run = Run {
        best: result.best.map(|m| pos.uci(m)),
        score: result.score,
        depth: result.depth,
        nodes: result.nodes,
        time: start.elapsed(),
        stats: result.stats,
    };
    (run, helper_nodes)
}
