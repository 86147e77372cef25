//! Self-play searches: one move's search to a node budget, as data
//! generation plays its games (`lasker-tools datagen`) and as `genfens`
//! scores its openings, so that both judge a position alike.

use std::sync::Arc;

use shakmaty::{Move, Position as _};

use crate::nnue::Network;
use crate::position::Position;
use crate::rng::Rng;
use crate::search::{Control, SearchMemory, SearchRequest, SearchSetup, Searcher};
use crate::timeman::Limits;
use crate::tt::TranspositionTable;

/// The soft node budget of `genfens`' searches: no iteration starts after
/// it, and the one running ends once its best move has an exact score.
pub const DEFAULT_NODES: u64 = 2_000;

/// The hard node limit, as a multiple of the soft one: an iteration that
/// explodes is cut off.
pub const HARD_NODES_FACTOR: u64 = 2;

/// How many nodes one move's search may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeBudget {
    /// No iteration starts after this many nodes.
    pub soft: u64,
    /// The search ends here whatever it is doing.
    pub hard: u64,
    /// Past `soft`, the running iteration searches every root move (up to
    /// `hard`) instead of ending at the first exactly scored best move:
    /// a label from a whole iteration, as data generation wants.
    pub finish_iteration: bool,
}

impl NodeBudget {
    /// `genfens`' budget: quick, ending on the first scored best move.
    pub const QUICK: NodeBudget = NodeBudget {
        soft: DEFAULT_NODES,
        hard: DEFAULT_NODES * HARD_NODES_FACTOR,
        finish_iteration: false,
    };
}

/// An opening the first search scores beyond this is decided: data
/// generation drops it, and so does `genfens`.
pub const MAX_OPENING_SCORE: i32 = 1_000;

/// Plays `plies` random legal moves, an opening's random start as data
/// generation and `genfens` make it; false if the game ends on the way or
/// at the end.
pub fn play_random_plies(pos: &mut Position, plies: usize, rng: &mut Rng) -> bool {
    for _ in 0..plies {
        let moves = pos.board().legal_moves();
        if moves.is_empty() {
            return false;
        }
        pos.make(moves[rng.below(moves.len())]);
    }
    !pos.board().legal_moves().is_empty()
}

/// What one move's search found, with the position and memory handed back.
pub struct MoveSearch {
    pub pos: Position,
    pub best: Option<Move>,
    /// For the side to move.
    pub score: i32,
    pub nodes: u64,
    pub memory: SearchMemory,
}

/// One move's search of `pos` on a fresh `Control`, within `budget`,
/// sharing the thread's table and memory with the game's earlier moves.
pub fn search(
    pos: Position,
    tt: &TranspositionTable,
    net: &Arc<Network>,
    budget: NodeBudget,
    memory: SearchMemory,
) -> MoveSearch {
    tt.new_search(pos.piece_count());
    let control = Control::default();
    let limits = Limits {
        nodes: Some(budget.hard),
        soft_nodes: Some(budget.soft),
        finish_iteration: budget.finish_iteration,
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
