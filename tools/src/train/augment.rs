//! Data augmentation: a position mirrored left to right.

use arrayvec::ArrayVec;

use crate::trainingdata::ChessBoard;

/// The record of the same position mirrored left to right (a-file to
/// h-file).
pub fn mirrored(record: &ChessBoard) -> ChessBoard {
    let mut pieces: ArrayVec<(u8, u8), 32> =
        (*record).into_iter().map(|(p, sq)| (p, sq ^ 7)).collect();
    pieces.sort_unstable_by_key(|&(_, sq)| sq);
    let mut out = ChessBoard {
        occ: 0,
        pcs: [0; 16],
        ksq: record.ksq ^ 7,
        opp_ksq: record.opp_ksq ^ 7,
        ..*record
    };
    for (i, (piece, square)) in pieces.into_iter().enumerate() {
        out.occ |= 1 << square;
        out.pcs[i / 2] |= piece << (4 * (i & 1));
    }
    out
}
