//! Self-play searches: one move's search to a node budget, as data
//! generation plays its games (`lasker-tools datagen`) and as `genfens`
//! scores its openings, so that both judge a position alike.

use std::sync::Arc;

use shakmaty::Move;

use crate::nnue::Network;
use crate::position::Position;
use crate::search::{Control, SearchMemory, SearchRequest, SearchSetup, Searcher};
use crate::timeman::Limits;
use crate::tt::TranspositionTable;

/// The soft node budget of a data generation search: no iteration starts
/// after it, and the one running ends once its best move has an exact
/// score. 2,000 made 3.3 times the positions a second of 5,000, and the
/// net trained on them won its match (net 8, docs/evaluation.md).
pub const DEFAULT_NODES: u64 = 2_000;

/// The hard node limit, as a multiple of the soft one: an iteration that
/// explodes is cut off.
pub const HARD_NODES_FACTOR: u64 = 2;

/// An opening the first search scores beyond this is decided: data
/// generation drops it, and so does `genfens`.
pub const MAX_OPENING_SCORE: i32 = 1_000;

/// What one move's search found, with the position and memory handed back.
pub struct MoveSearch {
    pub pos: Position,
    pub best: Option<Move>,
    /// For the side to move.
    pub score: i32,
    pub nodes: u64,
    pub memory: SearchMemory,
}

/// One move's search of `pos` on a fresh `Control`, within `soft_nodes`
/// (and `hard_nodes` outright), sharing the thread's table and memory with
/// the game's earlier moves.
pub fn search(
    pos: Position,
    tt: &TranspositionTable,
    net: &Arc<Network>,
    soft_nodes: u64,
    hard_nodes: u64,
    memory: SearchMemory,
) -> MoveSearch {
    tt.new_search(pos.piece_count());
    let control = Control::default();
    let limits = Limits {
        nodes: Some(hard_nodes),
        soft_nodes: Some(soft_nodes),
        ..Limits::default()
    };
    let request = SearchRequest {
        net: Arc::clone(net),
        ..SearchRequest::new(pos, limits)
    };
    let setup = SearchSetup::quiet(&request, &control, tt);
    let mut searcher = Searcher::with_memory(&setup, 0, memory);
    let result = searcher.iterate();
    let pos = std::mem::take(&mut searcher.pos);
    MoveSearch {
        pos,
        best: result.best,
        score: result.score,
        nodes: result.nodes,
        memory: searcher.into_memory(),
    }
}
