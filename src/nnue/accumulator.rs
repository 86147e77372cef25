//! The accumulators of the positions on the search path, one entry per
//! position of the `Position` stack, each for both perspectives.
//!
//! An entry is brought up to date lazily, when its position is evaluated:
//! from the nearest ancestor whose entry is current, by the pieces each
//! move on the way took off and put on, read off the move (two to four:
//! captures, promotions, castling, en passant and Chess960 castling alike;
//! a null move none). An entry is current when it holds the
//! key of the position at its height. Where no ancestor is current within a
//! few plies (a new root, a long jump) a refresh from the board is cheaper.
//!
//! In a net with input (king) buckets, a king move into another bucket or
//! across the middle of the board changes every input of its side's
//! perspective (`features`): that perspective is rebuilt, the other one
//! updated as usual. Rebuilds, and refreshes, go through a `FinnyTable`:
//! for each perspective and king view, the last accumulator made in it
//! and the board it was made from, brought to the new board by the pieces
//! that differ (a few, where a full refresh adds up to 32 rows).

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Board, CastlingSide, Color, Move, Piece, Position as _, Role, Square};

use super::{KingView, Network, by_width, simd};
use crate::position::Position;

/// Past this many plies of updates a refresh (through the Finny table) is
/// cheaper.
const MAX_UPDATE_PLIES: usize = 8;

/// One entry per `Position` state, indexed as the position's stack is (by
/// game height; docs/code-map.md, "The three stacks"), flat: entry `i`
/// holds the key of its position (if any) and
/// `2 * width` accumulator values from `i * 2 * width` on, White's
/// perspective then Black's, `width` being the hidden width of the net they
/// were computed with. The methods run generic over the width
/// (`by_width!`), so that the common widths' loops have fixed lengths.
#[derive(Clone, Default)]
pub struct AccumulatorStack {
    width: usize,
    keys: Vec<Option<u64>>,
    values: Vec<i16>,
    finny: FinnyTable,
}

impl AccumulatorStack {
    /// Forget every entry (the net changed).
    pub fn clear(&mut self) {
        self.keys.clear();
        self.values.clear();
        self.finny.clear();
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
        net.output_lanes::<W>(us, them, net.output_bucket(pieces))
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
                let board = pos.board_at(top).board();
                let acc = &mut self.values[top * 2 * w..(top + 1) * 2 * w];
                let (white, black) = acc.split_at_mut(w);
                self.finny.rebuild::<W>(net, board, Color::White, white);
                self.finny.rebuild::<W>(net, board, Color::Black, black);
                self.keys[top] = Some(pos.key_at(top));
                return;
            }
            base -= 1;
        }
        for i in base + 1..=top {
            let (done, rest) = self.values.split_at_mut(i * 2 * w);
            let (parent, child) = (&done[(i - 1) * 2 * w..], &mut rest[..2 * w]);
            let (before, after) = (pos.board_at(i - 1).board(), pos.board_at(i).board());
            let changes = Changes::of_move(pos.board_at(i - 1).turn(), pos.move_at(i));
            debug_assert!(changes.same_as(&Changes::between(before, after)));
            let (parent_white, parent_black) = parent[..2 * w].split_at(w);
            let (white, black) = child.split_at_mut(w);
            for (perspective, acc, parent) in [
                (Color::White, white, parent_white),
                (Color::Black, black, parent_black),
            ] {
                let view = net.king_view(after, perspective);
                if view == net.king_view(before, perspective) {
                    changes.apply::<W>(net, view, perspective, parent, acc);
                } else {
                    self.finny.rebuild::<W>(net, after, perspective, acc);
                }
            }
            self.keys[i] = Some(pos.key_at(i));
        }
    }
}

/// The pieces taken off and put on between two boards: two to four
/// squares for a move (captures, promotions, castling, en passant and
/// Chess960 castling alike), none for a null move, up to 32 between any
/// two boards.
struct Changes {
    removed: ArrayVec<(Piece, Square), 32>,
    added: ArrayVec<(Piece, Square), 32>,
}

impl Changes {
    /// The changes `m`, played by `us`, makes: read off the move, which
    /// names every square it touches (`None`, a null move, touches none).
    /// The same pieces as `between` the boards, found without comparing
    /// all twelve piece sets. A Chess960 castling whose king or rook
    /// stays put takes that piece off and puts it back on its square: the
    /// sums are the same.
    fn of_move(us: Color, m: Option<Move>) -> Changes {
        let (mut removed, mut added) = (ArrayVec::new(), ArrayVec::new());
        match m {
            None => {}
            Some(Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            }) => {
                removed.push((role.of(us), from));
                added.push((promotion.unwrap_or(role).of(us), to));
                if let Some(victim) = capture {
                    removed.push((victim.of(!us), to));
                }
            }
            Some(Move::EnPassant { from, to }) => {
                removed.push((Role::Pawn.of(us), from));
                added.push((Role::Pawn.of(us), to));
                removed.push((
                    Role::Pawn.of(!us),
                    Square::from_coords(to.file(), from.rank()),
                ));
            }
            Some(Move::Castle { king, rook }) => {
                let side = CastlingSide::from_king_side(king < rook);
                removed.push((Role::King.of(us), king));
                added.push((Role::King.of(us), side.king_to(us)));
                removed.push((Role::Rook.of(us), rook));
                added.push((Role::Rook.of(us), side.rook_to(us)));
            }
            Some(Move::Put { .. }) => unreachable!("no drops in standard chess"),
        }
        Changes { removed, added }
    }

    /// Do both take off and put on the same pieces, once each piece and
    /// square is netted out (for the debug check of `of_move`)?
    fn same_as(&self, other: &Changes) -> bool {
        let net = |c: &Changes| {
            let mut count = std::collections::BTreeMap::new();
            for &(piece, square) in &c.removed {
                *count
                    .entry((piece.color as u8, piece.role as u8, square))
                    .or_insert(0) -= 1;
            }
            for &(piece, square) in &c.added {
                *count
                    .entry((piece.color as u8, piece.role as u8, square))
                    .or_insert(0) += 1;
            }
            count.retain(|_, n: &mut i32| *n != 0);
            count
        };
        net(self) == net(other)
    }

    /// The pieces that differ between two boards, compared piece set by
    /// piece set: what `of_move` must give (debug builds check it).
    fn between(before: &Board, after: &Board) -> Changes {
        let (mut removed, mut added) = (ArrayVec::new(), ArrayVec::new());
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                let (old, new) = (before.by_piece(piece), after.by_piece(piece));
                removed.extend((old & !new).into_iter().map(|square| (piece, square)));
                added.extend((new & !old).into_iter().map(|square| (piece, square)));
            }
        }
        Changes { removed, added }
    }

    /// Sets `acc` to `parent` (one perspective's accumulator, in `view`)
    /// with the changes applied. The first piece taken off and the first
    /// put on go with the copy, in one pass that reads `parent` and writes
    /// `acc` once (all of an ordinary move); the rest (a capture's victim,
    /// castling's rook) are applied in place. The i16 sums wrap, so the
    /// order of the rows changes nothing.
    fn apply<const W: usize>(
        &self,
        net: &Network,
        view: KingView,
        perspective: Color,
        parent: &[i16],
        acc: &mut [i16],
    ) {
        let row = |&(piece, square): &(Piece, Square)| {
            net.row_lanes::<W>(view.index(perspective, piece, square))
        };
        let fused = usize::from(!self.removed.is_empty() && !self.added.is_empty());
        if fused == 1 {
            simd::copy_add_sub(acc, parent, row(&self.added[0]), row(&self.removed[0]));
        } else {
            acc.copy_from_slice(parent);
        }
        for r in &self.removed[fused..] {
            simd::sub_row(acc, row(r));
        }
        for a in &self.added[fused..] {
            simd::add_row(acc, row(a));
        }
    }
}

/// The accumulator cache of rebuilds ("Finny table", after the engine
/// that introduced it): for each perspective and king view (input bucket
/// and mirror), the accumulator last made in that view and the board it
/// was made from. A rebuild starts from it and applies only the pieces
/// that differ; an entry never made starts as an empty board (the feature
/// biases alone). For a net without input buckets there is one view per
/// perspective: a refresh then costs the pieces that moved since the last
/// one rather than every piece.
#[derive(Clone, Default)]
pub struct FinnyTable {
    width: usize,
    /// Per entry, the pieces of the board its accumulator holds, by colour
    /// and role (`None`: never made).
    boards: Vec<Option<[Bitboard; 12]>>,
    /// Per entry, `width` values.
    values: Vec<i16>,
}

impl FinnyTable {
    pub fn clear(&mut self) {
        self.boards.clear();
        self.values.clear();
        self.width = 0;
    }

    /// The entry of `perspective` in `view` of a net with `buckets` input
    /// buckets: perspective, then bucket, then mirror.
    fn entry(net: &Network, perspective: Color, view: KingView) -> usize {
        let bucket = view.offset / super::features::PIECE_SQUARES;
        let mirror = usize::from(view.flip != 0);
        ((perspective as usize) * net.input_buckets().count() + bucket) * 2 + mirror
    }

    /// Sets `acc` to `perspective`'s accumulator of `board`, from the
    /// entry of its king view, and keeps the result there.
    pub fn rebuild<const W: usize>(
        &mut self,
        net: &Network,
        board: &Board,
        perspective: Color,
        acc: &mut [i16],
    ) {
        let w = net.lanes::<W>();
        let entries = 2 * net.input_buckets().count() * 2;
        if self.width != w || self.boards.len() != entries {
            self.clear();
            self.width = w;
            self.boards.resize(entries, None);
            self.values.resize(entries * w, 0);
        }
        let view = net.king_view(board, perspective);
        let e = Self::entry(net, perspective, view);
        let cached = &mut self.values[e * w..(e + 1) * w];
        let old = self.boards[e].unwrap_or_else(|| {
            cached.copy_from_slice(&net.feature_bias[..w]);
            [Bitboard::EMPTY; 12]
        });
        let mut new = [Bitboard::EMPTY; 12];
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                let i = color as usize * 6 + role as usize - 1;
                new[i] = board.by_piece(piece);
                for square in old[i] & !new[i] {
                    simd::sub_row(
                        cached,
                        net.row_lanes::<W>(view.index(perspective, piece, square)),
                    );
                }
                for square in new[i] & !old[i] {
                    simd::add_row(
                        cached,
                        net.row_lanes::<W>(view.index(perspective, piece, square)),
                    );
                }
            }
        }
        self.boards[e] = Some(new);
        acc[..w].copy_from_slice(cached);
    }
}
