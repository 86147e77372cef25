//! The net's inputs, defined once for the engine's accumulators and the
//! trainer alike: which input a piece on a square is, seen from one side
//! (a "perspective"), and when a perspective's inputs all change at once.
//!
//! An input is (piece colour relative to the perspective, piece type,
//! square seen from the perspective): 768 of them, the board flipped
//! vertically for Black so that both sides see themselves moving up.
//!
//! **Input (king) buckets.** A net may have several copies of the 768,
//! one per *input bucket*: the perspective's own king square picks the
//! copy, through a map of the 32 squares of one half of the board. The
//! board is then mirrored left to right where the king stands on files e
//! to h, so that the king is always on files a to d and a knight on f3
//! beside a king on g1 is the same input as one on c3 beside a king on
//! b1. A net with one input bucket is the old shape, without mirroring:
//! nets 3 to 10 read exactly as before.
//!
//! When a perspective's king moves into another bucket or across the
//! middle of the board, its `KingView` differs and every one of its inputs
//! changes: that perspective is rebuilt (the accumulators keep a cache of
//! rebuilds by bucket, `accumulator::FinnyTable`). The other perspective,
//! and every other move, update incrementally.

use std::fmt;

use shakmaty::{Color, Piece, Square};

/// Inputs per input bucket: 2 colours x 6 piece types x 64 squares.
pub const PIECE_SQUARES: usize = 768;

/// The input-bucket maps this build knows, by their number of buckets:
/// each gives the bucket of every square of files a to d (the king's
/// square after mirroring), rank 1 first, a to d within a rank. More
/// buckets near home, where the king stands in most positions and where
/// its shelter matters; one bucket for the far ranks.
const MAPS: [(usize, [u8; 32]); 4] = [
    (1, [0; 32]),
    (
        4,
        [
            0, 0, 1, 1, //
            2, 2, 2, 2, //
            3, 3, 3, 3, //
            3, 3, 3, 3, //
            3, 3, 3, 3, //
            3, 3, 3, 3, //
            3, 3, 3, 3, //
            3, 3, 3, 3, //
        ],
    ),
    (
        8,
        [
            0, 1, 2, 3, //
            4, 4, 5, 5, //
            6, 6, 6, 6, //
            7, 7, 7, 7, //
            7, 7, 7, 7, //
            7, 7, 7, 7, //
            7, 7, 7, 7, //
            7, 7, 7, 7, //
        ],
    ),
    (
        16,
        [
            0, 1, 2, 3, //
            4, 5, 6, 7, //
            8, 8, 9, 9, //
            10, 10, 11, 11, //
            12, 12, 13, 13, //
            12, 12, 13, 13, //
            14, 14, 15, 15, //
            14, 14, 15, 15, //
        ],
    ),
];

/// The numbers of input buckets a net may have.
pub const INPUT_BUCKET_CHOICES: [usize; 4] = [MAPS[0].0, MAPS[1].0, MAPS[2].0, MAPS[3].0];

/// A net's input layout: how many input buckets it has (one of
/// `INPUT_BUCKET_CHOICES`), and so its map and whether it mirrors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InputBuckets {
    count: usize,
    map: &'static [u8; 32],
}

impl InputBuckets {
    /// One bucket, no mirroring: nets 3 to 10.
    pub const NONE: InputBuckets = InputBuckets {
        count: 1,
        map: &MAPS[0].1,
    };

    /// The layout of `count` buckets, if this build has one.
    pub fn new(count: usize) -> Option<InputBuckets> {
        MAPS.iter()
            .find(|(n, _)| *n == count)
            .map(|(count, map)| InputBuckets { count: *count, map })
    }

    pub fn count(self) -> usize {
        self.count
    }

    /// Whether the board is mirrored by the king's file (every layout
    /// with more than one bucket).
    pub fn mirrors(self) -> bool {
        self.count > 1
    }

    /// The number of inputs per perspective.
    pub fn inputs(self) -> usize {
        self.count * PIECE_SQUARES
    }

    /// The view of a perspective whose king stands on `king`, a square
    /// seen from that perspective (0 = its a1 .. 63 = its h8).
    #[inline]
    pub fn view_relative(self, king: usize) -> KingView {
        if !self.mirrors() {
            return KingView::PLAIN;
        }
        let mirror = king & 7 >= 4;
        let king = if mirror { king ^ 7 } else { king };
        let bucket = usize::from(self.map[(king >> 3) * 4 + (king & 7)]);
        KingView {
            offset: bucket * PIECE_SQUARES,
            flip: if mirror { 7 } else { 0 },
        }
    }

    /// The view of `perspective`, whose king stands on `king`.
    #[inline]
    pub fn view(self, perspective: Color, king: Square) -> KingView {
        self.view_relative(relative(perspective, king))
    }
}

impl fmt::Display for InputBuckets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.count == 1 { "" } else { "s" };
        write!(f, "{} input bucket{s}", self.count)
    }
}

/// What a perspective's king square decides about its inputs: the input
/// bucket (as the offset of its first input) and the mirroring (7 to flip
/// files, else 0). Two positions whose views differ share no input: a
/// perspective whose view changes is rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KingView {
    pub offset: usize,
    pub flip: usize,
}

impl KingView {
    /// The view of a net without input buckets.
    pub const PLAIN: KingView = KingView { offset: 0, flip: 0 };

    /// The input of a piece seen from a perspective: `theirs` (0 its own, 1
    /// the other side's), `role` (0 pawn .. 5 king) and its square from
    /// that perspective (0 = a1 .. 63 = h8 after the vertical flip).
    #[inline]
    pub fn index_relative(self, theirs: usize, role: usize, square: usize) -> usize {
        self.offset + theirs * 384 + role * 64 + (square ^ self.flip)
    }

    /// The input of `piece` on `square` for `perspective`.
    #[inline]
    pub fn index(self, perspective: Color, piece: Piece, square: Square) -> usize {
        self.index_relative(
            usize::from(piece.color != perspective),
            piece.role as usize - 1,
            relative(perspective, square),
        )
    }
}

/// A square seen from `perspective`: flipped vertically for Black.
#[inline]
pub fn relative(perspective: Color, square: Square) -> usize {
    match perspective {
        Color::White => square as usize,
        Color::Black => square as usize ^ 56,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{File, Rank, Role};

    /// Whether `perspective` is rebuilt when its king goes from `from` to
    /// `to`: the rule the accumulators apply, views compared.
    fn needs_rebuild(buckets: InputBuckets, perspective: Color, from: Square, to: Square) -> bool {
        buckets.view(perspective, from) != buckets.view(perspective, to)
    }

    /// Every layout's map, written out as the squares of each bucket and
    /// checked against the table; the buckets used are exactly 0..count.
    #[test]
    fn every_map_uses_each_bucket_and_only_those() {
        for count in INPUT_BUCKET_CHOICES {
            let buckets = InputBuckets::new(count).unwrap();
            let mut seen = vec![false; count];
            for king in 0..64 {
                let view = buckets.view_relative(king);
                assert_eq!(view.offset % PIECE_SQUARES, 0);
                seen[view.offset / PIECE_SQUARES] = true;
            }
            assert!(seen.iter().all(|&s| s), "{count}: {seen:?}");
        }
        assert_eq!(InputBuckets::new(3), None);
        assert_eq!(InputBuckets::new(1), Some(InputBuckets::NONE));
    }

    /// The index of every (perspective, king square, piece, square)
    /// against a direct computation from the definition: the king's file
    /// decides the mirror, the map at the mirrored king square the bucket;
    /// the square is flipped for Black, mirrored, and placed after the
    /// bucket, colour and piece type.
    #[test]
    fn every_index_equals_a_direct_computation() {
        // The 16-bucket map in words: ranks 1 and 2 a bucket per file;
        // ranks 3, 4 two each (files a-b, c-d); ranks 5-6 and 7-8 two each.
        let sixteen = |file: u32, rank: u32| -> usize {
            let half = (file / 2) as usize;
            match rank {
                0 => file as usize,
                1 => 4 + file as usize,
                2 => 8 + half,
                3 => 10 + half,
                4 | 5 => 12 + half,
                _ => 14 + half,
            }
        };
        let four = |file: u32, rank: u32| -> usize {
            match rank {
                0 => (file / 2) as usize,
                1 => 2,
                _ => 3,
            }
        };
        let eight = |file: u32, rank: u32| -> usize {
            match rank {
                0 => file as usize,
                1 => 4 + (file / 2) as usize,
                2 => 6,
                _ => 7,
            }
        };
        type Map<'a> = &'a dyn Fn(u32, u32) -> usize;
        let maps: [(usize, Map); 4] = [(1, &|_, _| 0), (4, &four), (8, &eight), (16, &sixteen)];
        let mut distinct = std::collections::HashSet::new();
        for (count, map) in maps {
            let buckets = InputBuckets::new(count).unwrap();
            assert_eq!(buckets.inputs(), count * 768);
            for perspective in Color::ALL {
                for king in Square::ALL {
                    // The king as its side sees it.
                    let (kf, kr) = match perspective {
                        Color::White => (u32::from(king.file()), u32::from(king.rank())),
                        Color::Black => (u32::from(king.file()), 7 - u32::from(king.rank())),
                    };
                    let mirror = count > 1 && kf >= 4;
                    let bucket = map(if mirror { 7 - kf } else { kf }, kr);
                    let view = buckets.view(perspective, king);
                    for color in Color::ALL {
                        for role in Role::ALL {
                            for square in Square::ALL {
                                let (f, r) = (u32::from(square.file()), u32::from(square.rank()));
                                let r = if perspective == Color::Black {
                                    7 - r
                                } else {
                                    r
                                };
                                let f = if mirror { 7 - f } else { f };
                                let expected = bucket * 768
                                    + usize::from(color != perspective) * 384
                                    + (role as usize - 1) * 64
                                    + (r * 8 + f) as usize;
                                let piece = Piece { color, role };
                                assert_eq!(view.index(perspective, piece, square), expected);
                                assert!(expected < buckets.inputs());
                                if count == 16 {
                                    distinct.insert(expected);
                                }
                            }
                        }
                    }
                }
            }
        }
        // Every input of the widest layout is reachable.
        assert_eq!(distinct.len(), 16 * 768);
    }

    /// One bucket is the old layout: no mirror, whatever the king's file.
    #[test]
    fn one_bucket_is_the_plain_layout() {
        for king in Square::ALL {
            assert_eq!(InputBuckets::NONE.view(Color::White, king), KingView::PLAIN);
            assert_eq!(InputBuckets::NONE.view(Color::Black, king), KingView::PLAIN);
            for perspective in Color::ALL {
                for to in Square::ALL {
                    assert!(!needs_rebuild(InputBuckets::NONE, perspective, king, to));
                }
            }
        }
    }

    /// A rebuild follows a change of bucket or of half, and nothing else.
    #[test]
    fn rebuilds_follow_bucket_and_half_changes() {
        let b16 = InputBuckets::new(16).unwrap();
        let sq = |f: File, r: Rank| Square::from_coords(f, r);
        // White king e1 -> f1 (same half, files e-h: e1 mirrors to d1, f1
        // to c1: buckets 3 and 2).
        assert!(needs_rebuild(
            b16,
            Color::White,
            sq(File::E, Rank::First),
            sq(File::F, Rank::First)
        ));
        // d1 -> e1: across the middle, d1 and e1 are both bucket 3 but
        // the mirror differs.
        assert!(needs_rebuild(
            b16,
            Color::White,
            sq(File::D, Rank::First),
            sq(File::E, Rank::First)
        ));
        // e5 -> e6: both bucket 13 (ranks 5-6, files c-d after mirror).
        assert!(!needs_rebuild(
            b16,
            Color::White,
            sq(File::E, Rank::Fifth),
            sq(File::E, Rank::Sixth)
        ));
        // For Black, its rank 1 is the eighth: e8 -> f8 rebuilds, e4 -> e3
        // (its ranks 5 and 6) doesn't.
        assert!(needs_rebuild(
            b16,
            Color::Black,
            sq(File::E, Rank::Eighth),
            sq(File::F, Rank::Eighth)
        ));
        assert!(!needs_rebuild(
            b16,
            Color::Black,
            sq(File::E, Rank::Fourth),
            sq(File::E, Rank::Third)
        ));
        let b4 = InputBuckets::new(4).unwrap();
        // Four buckets: g1 -> h1 (mirrored b1 -> a1: both bucket 0) doesn't.
        assert!(!needs_rebuild(
            b4,
            Color::White,
            sq(File::G, Rank::First),
            sq(File::H, Rank::First)
        ));
        assert!(needs_rebuild(
            b4,
            Color::White,
            sq(File::G, Rank::First),
            sq(File::G, Rank::Second)
        ));
    }
}
