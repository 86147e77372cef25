//! The search stack: what a search thread keeps for each ply of the path it
//! walks from the root, one entry a ply (`stack[ply]`). An entry belongs to
//! the node at its ply while that node is searched; its children read it
//! through `moved_back`/`static_eval_back` and write only their own.
//!
//! The best line found from each ply is kept beside the entries (`pv`,
//! `update_pv`): a line is a ply's worth of moves, and the small entries
//! that every node reads stay close together without it.

use std::ops::{Index, IndexMut};

use arrayvec::ArrayVec;
use shakmaty::Move;

use super::NO_EVAL;
use crate::history::PieceTo;
use crate::score::MAX_PLY;

/// One ply of the current path.
#[derive(Clone)]
pub(super) struct StackEntry {
    /// The move played from this ply's position, as the continuation
    /// history knows it (`None` for a null move, or none played yet).
    pub moved: Option<PieceTo>,
    /// The static evaluation here (`NO_EVAL` in check), to tell whether
    /// the side to move is improving.
    pub static_eval: i32,
    /// The move a singular-extension search at this ply leaves out.
    pub excluded: Option<Move>,
    /// Quiet moves that caused a cutoff at this ply in sibling nodes.
    pub killers: [Option<Move>; 2],
    /// Double extensions on the path to this ply.
    pub double_extensions: u8,
}

impl Default for StackEntry {
    fn default() -> Self {
        StackEntry {
            moved: None,
            static_eval: NO_EVAL,
            excluded: None,
            killers: [None; 2],
            double_extensions: 0,
        }
    }
}

/// The entries of plies 0 to `MAX_PLY` from the search root (a child of the
/// deepest node still has one), and the best line from each. Ply `p` is
/// the position at height `root + p` (docs/code-map.md, "The three
/// stacks").
pub(super) struct SearchStack {
    entries: Vec<StackEntry>,
    /// The best line found from each ply, its first move played there.
    pvs: Vec<ArrayVec<Move, MAX_PLY>>,
}

impl Default for SearchStack {
    fn default() -> Self {
        SearchStack {
            entries: vec![StackEntry::default(); MAX_PLY + 1],
            pvs: vec![ArrayVec::new(); MAX_PLY + 1],
        }
    }
}

impl SearchStack {
    /// The move played `back` plies before `ply` (1: the move that led
    /// here), if the path is that long and it was no null move.
    pub fn moved_back(&self, ply: usize, back: usize) -> Option<PieceTo> {
        self.entries[ply.checked_sub(back)?].moved
    }

    /// The static evaluation `back` plies before `ply`, if the path is that
    /// long (`NO_EVAL` where that node was in check).
    pub fn static_eval_back(&self, ply: usize, back: usize) -> Option<i32> {
        Some(self.entries[ply.checked_sub(back)?].static_eval)
    }

    /// The best line found from `ply`.
    pub fn pv(&self, ply: usize) -> &[Move] {
        &self.pvs[ply]
    }

    /// A node at `ply` starts: no line from it yet.
    pub fn clear_pv(&mut self, ply: usize) {
        self.pvs[ply].clear();
    }

    /// The line from `ply`: `m`, then the line its child found.
    pub fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pvs.split_at_mut(ply + 1);
        let pv = &mut head[ply];
        pv.clear();
        pv.push(m);
        let child = &tail[0];
        let fits = child.len().min(pv.remaining_capacity());
        pv.try_extend_from_slice(&child[..fits])
            .expect("within the capacity");
    }
}

impl Index<usize> for SearchStack {
    type Output = StackEntry;
    fn index(&self, ply: usize) -> &StackEntry {
        &self.entries[ply]
    }
}

impl IndexMut<usize> for SearchStack {
    fn index_mut(&mut self, ply: usize) -> &mut StackEntry {
        &mut self.entries[ply]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position as _};

    #[test]
    fn the_pv_is_the_move_then_the_childs_line() {
        let pos = Chess::default();
        let moves = pos.legal_moves();
        let mut stack = SearchStack::default();
        stack.update_pv(5, moves[0]);
        stack.update_pv(4, moves[1]);
        assert_eq!(stack.pv(4), &[moves[1], moves[0]]);
        stack.clear_pv(5);
        stack.update_pv(4, moves[2]);
        assert_eq!(stack.pv(4), &[moves[2]]);
    }

    #[test]
    fn looking_back_stops_at_the_root() {
        let mut stack = SearchStack::default();
        stack[0].static_eval = 17;
        assert_eq!(stack.static_eval_back(2, 2), Some(17));
        assert_eq!(stack.static_eval_back(1, 2), None);
        assert_eq!(stack.moved_back(0, 1), None);
    }
}
