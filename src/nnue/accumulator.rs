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

use arrayvec::ArrayVec;
use shakmaty::{Board, Color, Piece, Position as _, Role, Square};

use super::{Network, by_width, feature, simd};
use crate::position::Position;

/// Past this many plies of updates a refresh (32 rows at most) is cheaper.
const MAX_UPDATE_PLIES: usize = 8;

/// The entries, flat: entry `i` holds the key of its position (if any) and
/// `2 * width` accumulator values from `i * 2 * width` on, White's
/// perspective then Black's, `width` being the hidden width of the net they
/// were computed with. The methods run generic over the width
/// (`by_width!`), so that the common widths' loops have fixed lengths.
#[derive(Clone, Default)]
pub struct AccumulatorStack {
    width: usize,
    keys: Vec<Option<u64>>,
    values: Vec<i16>,
}

impl AccumulatorStack {
    /// Forget every entry (the net changed).
    pub fn clear(&mut self) {
        self.keys.clear();
        self.values.clear();
    }

    /// The net's evaluation of the top position, for the side to move.
    pub fn evaluate(&mut self, net: &Network, pos: &Position) -> i32 {
        by_width!(net.hidden(), |W| self.evaluate_lanes::<W>(net, pos))
    }

    fn evaluate_lanes<const W: usize>(&mut self, net: &Network, pos: &Position) -> i32 {
        let top = pos.height() - 1;
        self.bring_up_to_date::<W>(net, pos, top);
        let w = net.lanes::<W>();
        let acc = &self.values[top * 2 * w..(top + 1) * 2 * w];
        debug_assert!(acc == net.refresh(pos.board().board()), "{}", pos.fen());
        let (white, black) = acc.split_at(w);
        let (us, them) = match pos.turn() {
            Color::White => (white, black),
            Color::Black => (black, white),
        };
        let pieces = pos.board().board().occupied().count() as u32;
        net.output_lanes::<W>(us, them, net.bucket(pieces))
    }

    /// Both accumulators of the top position, White's then Black's (tests).
    pub fn current(&mut self, net: &Network, pos: &Position) -> Vec<i16> {
        let top = pos.height() - 1;
        by_width!(net.hidden(), |W| self.bring_up_to_date::<W>(net, pos, top));
        let w = self.width;
        self.values[top * 2 * w..(top + 1) * 2 * w].to_vec()
    }

    fn bring_up_to_date<const W: usize>(&mut self, net: &Network, pos: &Position, top: usize) {
        let w = net.lanes::<W>();
        if self.width != w {
            // Another net's width: nothing held is of use.
            self.clear();
            self.width = w;
        }
        if self.keys.len() <= top {
            self.keys.resize(top + 1, None);
            self.values.resize((top + 1) * 2 * w, 0);
        }
        let is_current = |key: Option<u64>, i: usize| key == Some(pos.key_at(i));
        let mut base = top;
        while !is_current(self.keys[base], base) {
            if base == 0 || top - base >= MAX_UPDATE_PLIES {
                let acc = &mut self.values[top * 2 * w..(top + 1) * 2 * w];
                net.refresh_lanes::<W>(pos.board_at(top).board(), acc);
                self.keys[top] = Some(pos.key_at(top));
                return;
            }
            base -= 1;
        }
        for i in base + 1..=top {
            let (done, rest) = self.values.split_at_mut(i * 2 * w);
            let (parent, child) = (&done[(i - 1) * 2 * w..], &mut rest[..2 * w]);
            apply_difference::<W>(
                net,
                pos.board_at(i - 1).board(),
                pos.board_at(i).board(),
                parent,
                child,
            );
            self.keys[i] = Some(pos.key_at(i));
        }
    }
}

/// Sets `child` to `parent` (White's accumulator, then Black's) moved from
/// `before` to `after` by the squares whose piece changed. The first piece
/// taken off and the first put on go with the copy, in one pass that reads
/// `parent` and writes `child` once (all of an ordinary move); the rest (a
/// capture's victim, castling's rook) are applied in place. The i16 sums
/// wrap, so the order of the rows changes nothing.
fn apply_difference<const W: usize>(
    net: &Network,
    before: &Board,
    after: &Board,
    parent: &[i16],
    child: &mut [i16],
) {
    let w = net.lanes::<W>();
    let (mut removed, mut added) = (ArrayVec::<_, 32>::new(), ArrayVec::<_, 32>::new());
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece { color, role };
            let (old, new) = (before.by_piece(piece), after.by_piece(piece));
            removed.extend((old & !new).into_iter().map(|square| (piece, square)));
            added.extend((new & !old).into_iter().map(|square| (piece, square)));
        }
    }
    let fused = usize::from(!removed.is_empty() && !added.is_empty());
    let (parent, child) = (&parent[..2 * w], &mut child[..2 * w]);
    let (white, black) = child.split_at_mut(w);
    let (parent_white, parent_black) = parent.split_at(w);
    for (perspective, acc, parent) in [
        (Color::White, white, parent_white),
        (Color::Black, black, parent_black),
    ] {
        let row = |&(piece, square): &(Piece, Square)| {
            net.row_lanes::<W>(feature(perspective, piece, square))
        };
        if fused == 1 {
            simd::copy_add_sub(acc, parent, row(&added[0]), row(&removed[0]));
        } else {
            acc.copy_from_slice(parent);
        }
        for r in &removed[fused..] {
            simd::sub_row(acc, row(r));
        }
        for a in &added[fused..] {
            simd::add_row(acc, row(a));
        }
    }
}
