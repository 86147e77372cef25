//! Static evaluation: tapered material plus piece-square tables.
//!
//! Every term has a middlegame and an endgame value; the two are blended by
//! the game phase (24 with all minor and major pieces on the board, 0 with
//! none). The tables are generated from a few rules a player would name
//! (centralise knights, advance passed-looking pawns in the endgame, keep the
//! king home in the middlegame and active in the endgame) so that each value
//! can be explained. This is the base a tuned evaluation will replace.

use shakmaty::{Bitboard, Color, Position as _, Role};

use crate::position::Position;

/// A middlegame/endgame pair of centipawn values.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Score {
    pub mg: i32,
    pub eg: i32,
}

impl Score {
    pub const fn new(mg: i32, eg: i32) -> Score {
        Score { mg, eg }
    }
}

impl std::ops::AddAssign for Score {
    fn add_assign(&mut self, o: Score) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl std::ops::SubAssign for Score {
    fn sub_assign(&mut self, o: Score) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

/// Material values, indexed by `Role as usize - 1`.
pub const MATERIAL: [Score; 6] = [
    Score::new(82, 100),  // pawn
    Score::new(325, 300), // knight
    Score::new(340, 320), // bishop
    Score::new(460, 530), // rook
    Score::new(990, 960), // queen
    Score::new(0, 0),     // king
];

/// Phase weight of each role (pawns and kings don't count).
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;

/// Side-to-move bonus: the side to move can usually improve its position.
const TEMPO: i32 = 10;

/// Distance of a square from the centre: 0 on d4/e4/d5/e5, 3 in the corners.
const fn centre_distance(sq: usize) -> i32 {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let df = if file < 4 { 3 - file } else { file - 4 };
    let dr = if rank < 4 { 3 - rank } else { rank - 4 };
    if df > dr { df } else { dr }
}

/// Piece-square bonus for a white piece of `role` (1..=6) on `sq`.
const fn pst_value(role: usize, sq: usize) -> Score {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let centre = 3 - centre_distance(sq); // 3 in the centre .. 0 in the corner ring
    match role {
        1 => {
            // Pawns: advancing gains space (middlegame) and nears promotion
            // (endgame); central pawns matter more early on.
            const MG_RANK: [i32; 8] = [0, 0, 2, 6, 14, 28, 50, 0];
            const EG_RANK: [i32; 8] = [0, 0, 4, 12, 26, 48, 80, 0];
            let central = if (file == 3 || file == 4) && (rank == 3 || rank == 4) {
                12
            } else if file == 3 || file == 4 {
                4
            } else {
                0
            };
            Score::new(MG_RANK[rank as usize] + central, EG_RANK[rank as usize])
        }
        // Knights are short-range: the rim costs a lot.
        2 => Score::new(12 * centre - 20, 8 * centre - 14),
        // Bishops like long diagonals; a milder centre bonus.
        3 => Score::new(5 * centre - 6, 4 * centre - 6),
        4 => {
            // Rooks: the seventh rank and central files.
            let seventh = if rank == 6 { 16 } else { 0 };
            let central = if file == 3 || file == 4 { 5 } else { 0 };
            Score::new(seventh + central, if rank == 6 { 10 } else { 0 })
        }
        // The queen should not rush out, but is strong centralised later.
        5 => Score::new(2 * centre - 3, 7 * centre - 10),
        _ => {
            // King: sheltered on the back rank (corners) in the middlegame,
            // centralised in the endgame.
            const MG_FILE: [i32; 8] = [10, 20, 5, -10, -10, 5, 25, 10];
            Score::new(MG_FILE[file as usize] - 22 * rank, 12 * centre - 18)
        }
    }
}

const fn build_pst() -> [[Score; 64]; 6] {
    let mut t = [[Score::new(0, 0); 64]; 6];
    let mut role = 1;
    while role <= 6 {
        let mut sq = 0;
        while sq < 64 {
            t[role - 1][sq] = pst_value(role, sq);
            sq += 1;
        }
        role += 1;
    }
    t
}

/// Piece-square tables from White's point of view (a1 = 0).
pub static PST: [[Score; 64]; 6] = build_pst();

/// The terms of the evaluation, each from White's point of view.
#[derive(Clone, Copy, Default, Debug)]
pub struct Breakdown {
    pub material: Score,
    pub placement: Score,
    pub phase: i32,
}

impl Breakdown {
    /// The blended total from White's point of view, without tempo.
    pub fn white_total(&self) -> i32 {
        let total = Score::new(
            self.material.mg + self.placement.mg,
            self.material.eg + self.placement.eg,
        );
        blend(total, self.phase)
    }
}

fn blend(s: Score, phase: i32) -> i32 {
    (s.mg * phase + s.eg * (MAX_PHASE - phase)) / MAX_PHASE
}

fn role_index(role: Role) -> usize {
    role as usize - 1
}

/// All terms for the position.
pub fn breakdown(pos: &Position) -> Breakdown {
    let board = pos.board().board();
    let mut b = Breakdown::default();
    for role in Role::ALL {
        let r = role_index(role);
        for color in Color::ALL {
            let pieces: Bitboard = board.by_piece(role.of(color));
            for sq in pieces {
                let (idx, sign) = match color {
                    Color::White => (sq.to_usize(), 1),
                    Color::Black => (sq.flip_vertical().to_usize(), -1),
                };
                let mut m = MATERIAL[r];
                let mut p = PST[r][idx];
                if sign < 0 {
                    m = Score::new(-m.mg, -m.eg);
                    p = Score::new(-p.mg, -p.eg);
                }
                b.material += m;
                b.placement += p;
                b.phase += PHASE_WEIGHT[r];
            }
        }
    }
    b.phase = b.phase.min(MAX_PHASE);
    b
}

/// The evaluation in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let white = breakdown(pos).white_total();
    let stm = if pos.turn() == Color::White {
        white
    } else {
        -white
    };
    stm + TEMPO
}

/// Material value of a role in the middlegame (for move ordering).
pub fn piece_value(role: Role) -> i32 {
    MATERIAL[role_index(role)].mg
}

/// Text for the `eval` command.
pub fn describe(pos: &Position) -> String {
    let b = breakdown(pos);
    let total = evaluate(pos);
    let white = b.white_total();
    format!(
        "term        mg      eg\n\
         material {:>6}  {:>6}\n\
         placement{:>6}  {:>6}\n\
         phase {} of {}\n\
         total (White's view) {} cp, tempo {}\n\
         final (side to move) {} cp",
        b.material.mg,
        b.material.eg,
        b.placement.mg,
        b.placement.eg,
        b.phase,
        MAX_PHASE,
        white,
        TEMPO,
        total
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Square};

    fn eval_fen(fen: &str) -> i32 {
        evaluate(&Position::from_fen(fen, CastlingMode::Standard).unwrap())
    }

    #[test]
    fn start_position_is_balanced() {
        let b = breakdown(&Position::default());
        assert_eq!(b.white_total(), 0);
        assert_eq!(b.phase, MAX_PHASE);
    }

    #[test]
    fn evaluation_is_colour_symmetric() {
        // A position and its colour-flipped mirror score the same for the
        // side to move.
        let a = eval_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
        let b = eval_fen("rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4");
        assert_eq!(a, b);
    }

    #[test]
    fn extra_material_counts() {
        // White is a queen up.
        assert!(eval_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") > 800);
        assert!(eval_fen("4k3/8/8/8/8/8/8/3QK3 b - - 0 1") < -800);
    }

    #[test]
    fn knights_prefer_the_centre() {
        let n = role_index(Role::Knight);
        assert!(PST[n][Square::E4.to_usize()].mg > PST[n][Square::A1.to_usize()].mg);
    }
}
