//! The accumulators of the positions on the search path, one entry per
//! position of the `Position` stack, each for both perspectives.
//!
//! An entry is brought up to date lazily, when its position is evaluated:
//! from the nearest ancestor whose entry is current, by the pieces that
//! differ between each board and its parent (a move changes two to four
//! squares: captures, promotions, castling, en passant and Chess960
//! castling alike; a null move none). An entry is current when it holds the
//! key of the position at its height. Where no ancestor is current within a
//! few plies (a new root, a long jump) a refresh from the board is cheaper.

use shakmaty::{Bitboard, Board, Color, Piece, Position as _, Role};

use super::{HIDDEN, Network, feature, simd};
use crate::position::Position;

/// Past this many plies of updates a refresh (32 rows at most) is cheaper.
const MAX_UPDATE_PLIES: usize = 8;

#[derive(Clone)]
struct Entry {
    /// The key of the position this entry holds, if any.
    key: Option<u64>,
    /// By `Color as usize`.
    acc: [[i16; HIDDEN]; 2],
}

#[derive(Clone, Default)]
pub struct AccumulatorStack {
    entries: Vec<Entry>,
}

impl AccumulatorStack {
    /// Forget every entry (the net changed).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The net's evaluation of the top position, for the side to move.
    pub fn evaluate(&mut self, net: &Network, pos: &Position) -> i32 {
        let top = pos.height() - 1;
        self.bring_up_to_date(net, pos, top);
        let acc = &self.entries[top].acc;
        debug_assert!(*acc == net.refresh(pos.board().board()), "{}", pos.fen());
        let us = pos.turn();
        net.output(&acc[us as usize], &acc[!us as usize])
    }

    /// Both accumulators of the top position (tests).
    pub fn current(&mut self, net: &Network, pos: &Position) -> [[i16; HIDDEN]; 2] {
        let top = pos.height() - 1;
        self.bring_up_to_date(net, pos, top);
        self.entries[top].acc
    }

    fn bring_up_to_date(&mut self, net: &Network, pos: &Position, top: usize) {
        if self.entries.len() <= top {
            self.entries.resize(
                top + 1,
                Entry {
                    key: None,
                    acc: [[0; HIDDEN]; 2],
                },
            );
        }
        let is_current = |e: &Entry, i: usize| e.key == Some(pos.key_at(i));
        let mut base = top;
        while !is_current(&self.entries[base], base) {
            if base == 0 || top - base >= MAX_UPDATE_PLIES {
                let entry = &mut self.entries[top];
                entry.acc = net.refresh(pos.board_at(top).board());
                entry.key = Some(pos.key_at(top));
                return;
            }
            base -= 1;
        }
        for i in base + 1..=top {
            let (done, rest) = self.entries.split_at_mut(i);
            let (parent, child) = (&done[i - 1], &mut rest[0]);
            child.acc = parent.acc;
            apply_difference(
                net,
                pos.board_at(i - 1).board(),
                pos.board_at(i).board(),
                &mut child.acc,
            );
            child.key = Some(pos.key_at(i));
        }
    }
}

/// Moves `acc` from `before` to `after` by the squares whose piece changed.
fn apply_difference(net: &Network, before: &Board, after: &Board, acc: &mut [[i16; HIDDEN]; 2]) {
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece { color, role };
            let (old, new) = (before.by_piece(piece), after.by_piece(piece));
            update(net, acc, piece, old & !new, simd::sub_row);
            update(net, acc, piece, new & !old, simd::add_row);
        }
    }
}

fn update(
    net: &Network,
    acc: &mut [[i16; HIDDEN]; 2],
    piece: Piece,
    squares: Bitboard,
    op: fn(&mut [i16; HIDDEN], &[i16]),
) {
    for square in squares {
        for perspective in Color::ALL {
            op(
                &mut acc[perspective as usize],
                net.row(feature(perspective, piece, square)),
            );
        }
    }
}
