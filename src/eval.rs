//! Static evaluation: tapered material plus piece-square tables.
//!
//! Every term has a middlegame and an endgame value; the two are blended by
//! the game phase (24 with all minor and major pieces on the board, 0 with
//! none). The tables are generated from a few rules a player would name
//! (centralise knights, advance passed-looking pawns in the endgame, keep the
//! king home in the middlegame and active in the endgame) so that each value
//! can be explained. This is the base a tuned evaluation will replace.

use shakmaty::{Bitboard, Board, Color, Position as _, Role, Square, attacks};

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

impl std::ops::Mul<i32> for Score {
    type Output = Score;
    fn mul(self, n: i32) -> Score {
        Score::new(self.mg * n, self.eg * n)
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

// ---------------------------------------------------------------------
// Terms beyond material and placement. Values follow the classical
// hand-written engines (Fruit and its descendants); each is a rule a player
// would name.

/// Mobility: per attacked square that is not ours and not covered by an
/// enemy pawn, counted from a typical number of squares (so an average
/// piece scores about zero), indexed by `Role as usize - 1`.
const MOBILITY_PER_SQUARE: [Score; 6] = [
    Score::new(0, 0),
    Score::new(4, 4), // knight
    Score::new(5, 5), // bishop
    Score::new(2, 4), // rook
    Score::new(1, 2), // queen
    Score::new(0, 0),
];
const MOBILITY_TYPICAL: [i32; 6] = [0, 4, 6, 7, 13, 0];

const BISHOP_PAIR: Score = Score::new(30, 50);
const ROOK_OPEN_FILE: Score = Score::new(20, 10);
const ROOK_SEMI_OPEN_FILE: Score = Score::new(10, 5);

/// A knight (bishop) on the enemy's side, guarded by a pawn, where no enemy
/// pawn can ever chase it away.
const KNIGHT_OUTPOST: Score = Score::new(20, 10);
const BISHOP_OUTPOST: Score = Score::new(10, 5);
/// A piece attacked by an enemy pawn: two such attacks at once (a fork)
/// usually cost a piece.
const ATTACKED_BY_PAWN: Score = Score::new(-20, -15);

/// A pawn defended by a pawn or standing beside one, by relative rank.
const CONNECTED_PAWN: [i32; 8] = [0, 0, 5, 8, 12, 20, 30, 0];
const DOUBLED_PAWN: Score = Score::new(-10, -20);
const ISOLATED_PAWN: Score = Score::new(-10, -15);
/// Passed pawns by relative rank (0 = own back rank), on top of the pawn
/// table's bonus for advancing.
const PASSED_PAWN: [Score; 8] = [
    Score::new(0, 0),
    Score::new(0, 5),
    Score::new(5, 10),
    Score::new(10, 25),
    Score::new(20, 45),
    Score::new(35, 75),
    Score::new(55, 120),
    Score::new(0, 0),
];
/// Endgame: a passed pawn is worth more with the enemy king far from its
/// path and our king near; per square of distance, times (rank - 2).
const PASSER_ENEMY_KING_DISTANCE: i32 = 5;
const PASSER_OWN_KING_DISTANCE: i32 = 2;

/// King attack: each enemy piece that attacks the squares around the king
/// adds its units; the sum, scaled by how many pieces join in, is the
/// middlegame penalty. Only with the attacker's queen on the board.
const KING_ATTACK_UNITS: [i32; 6] = [0, 1, 1, 2, 4, 0];
const KING_ATTACK_SCALE: i32 = 20;
/// Percent of the attack that counts, by the number of attackers: one
/// piece alone is no attack.
const KING_ATTACKERS_WEIGHT: [i32; 8] = [0, 0, 50, 75, 88, 94, 97, 99];
/// King shelter (middlegame): per file around the king, the own pawn's
/// distance in front of it; index 3 means no pawn in front.
const SHELTER_PENALTY: [i32; 4] = [0, 0, 12, 28];

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

const fn file_mask(file: usize) -> u64 {
    FILE_A << file
}

const fn adjacent_files_mask(file: usize) -> u64 {
    let left = if file > 0 { file_mask(file - 1) } else { 0 };
    let right = if file < 7 { file_mask(file + 1) } else { 0 };
    left | right
}

/// Squares strictly in front of `sq` on its own and the adjacent files,
/// from `color`'s side (0 = White): where enemy pawns stop a passed pawn.
const fn passed_span(color: usize, sq: usize) -> u64 {
    let file = sq % 8;
    let rank = sq / 8;
    let files = file_mask(file) | adjacent_files_mask(file);
    let ahead = if color == 0 {
        if rank == 7 {
            0
        } else {
            !0u64 << (8 * (rank + 1))
        }
    } else if rank == 0 {
        0
    } else {
        !0u64 >> (8 * (8 - rank))
    };
    files & ahead
}

const fn build_passed_spans() -> [[u64; 64]; 2] {
    let mut t = [[0; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        t[0][sq] = passed_span(0, sq);
        t[1][sq] = passed_span(1, sq);
        sq += 1;
    }
    t
}

static PASSED_SPANS: [[u64; 64]; 2] = build_passed_spans();

fn pawn_attacks_of(color: Color, pawns: u64) -> u64 {
    match color {
        Color::White => ((pawns & !FILE_A) << 7) | ((pawns & !FILE_H) << 9),
        Color::Black => ((pawns & !FILE_A) >> 9) | ((pawns & !FILE_H) >> 7),
    }
}

/// Rank counted from `color`'s own back rank (0..=7).
fn relative_rank(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq.rank() as usize,
        Color::Black => 7 - sq.rank() as usize,
    }
}

fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

/// Terms for one side, positive when good for that side.
#[derive(Clone, Copy, Default, Debug)]
struct SideTerms {
    mobility: Score,
    pieces: Score,
    pawns: Score,
    king_safety: Score,
}

fn side_terms(board: &Board, color: Color) -> SideTerms {
    let mut t = SideTerms::default();
    let us = board.by_color(color);
    let occupied = board.occupied();
    let own_pawns = board.by_piece(Role::Pawn.of(color)).0;
    let enemy_pawns = board.by_piece(Role::Pawn.of(!color)).0;
    let ci = color as usize ^ 1; // shakmaty: Black = 0, White = 1
    let own_king = board.king_of(color);
    let enemy_king = board.king_of(!color);

    // Mobility and rooks on files; pieces attacking the enemy king's zone.
    let enemy_pawn_attacks = pawn_attacks_of(!color, enemy_pawns);
    let own_pawn_attacks = pawn_attacks_of(color, own_pawns);
    let mobility_area = !us.0 & !enemy_pawn_attacks;
    let enemy_king_zone = enemy_king.map_or(0, |k| {
        (attacks::king_attacks(k).0) | Bitboard::from_square(k).0
    });
    let (mut attackers, mut attack_units) = (0usize, 0i32);
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        let r = role as usize - 1;
        for sq in board.by_piece(role.of(color)) {
            let reach = attacks::attacks(sq, role.of(color), occupied).0;
            let n = (reach & mobility_area).count_ones() as i32 - MOBILITY_TYPICAL[r];
            t.mobility += MOBILITY_PER_SQUARE[r] * n;
            if reach & enemy_king_zone != 0 {
                attackers += 1;
                attack_units += KING_ATTACK_UNITS[r];
            }
            let bit = Bitboard::from_square(sq).0;
            if bit & enemy_pawn_attacks != 0 {
                t.pieces += ATTACKED_BY_PAWN;
            }
            if matches!(role, Role::Knight | Role::Bishop)
                && (3..=5).contains(&relative_rank(color, sq))
                && bit & own_pawn_attacks != 0
                && PASSED_SPANS[ci][sq.to_usize()]
                    & adjacent_files_mask(sq.file() as usize)
                    & enemy_pawns
                    == 0
            {
                t.pieces += if role == Role::Knight {
                    KNIGHT_OUTPOST
                } else {
                    BISHOP_OUTPOST
                };
            }
            if role == Role::Rook {
                let file = file_mask(sq.file() as usize);
                if own_pawns & file == 0 {
                    t.pieces += if enemy_pawns & file == 0 {
                        ROOK_OPEN_FILE
                    } else {
                        ROOK_SEMI_OPEN_FILE
                    };
                }
            }
        }
    }
    if board.by_piece(Role::Bishop.of(color)).count() >= 2 {
        t.pieces += BISHOP_PAIR;
    }
    // Our attack on their king is their problem: counted here, subtracted
    // by the caller from their side.
    if board.by_piece(Role::Queen.of(color)).any() {
        let weight = KING_ATTACKERS_WEIGHT[attackers.min(7)];
        t.king_safety.mg += attack_units * KING_ATTACK_SCALE * weight / 100;
    }

    // Pawn structure.
    for sq in board.by_piece(Role::Pawn.of(color)) {
        let file = sq.file() as usize;
        let relative_rank = relative_rank(color, sq);
        if own_pawns & adjacent_files_mask(file) == 0 {
            t.pawns += ISOLATED_PAWN;
        }
        let bit = Bitboard::from_square(sq).0;
        let beside = own_pawns & adjacent_files_mask(file) & Bitboard::from_rank(sq.rank()).0;
        if bit & own_pawn_attacks != 0 || beside != 0 {
            let v = CONNECTED_PAWN[relative_rank];
            t.pawns += Score::new(v, v);
        }
        if PASSED_SPANS[ci][sq.to_usize()] & enemy_pawns == 0
            && PASSED_SPANS[ci][sq.to_usize()] & file_mask(file) & own_pawns == 0
        {
            t.pawns += PASSED_PAWN[relative_rank];
            if relative_rank >= 3 {
                let step: i32 = if color == Color::White { 8 } else { -8 };
                let ahead = Square::new((sq.to_usize() as i32 + step) as u32);
                let weight = relative_rank as i32 - 2;
                if let Some(k) = enemy_king {
                    t.pawns.eg += PASSER_ENEMY_KING_DISTANCE * distance(k, ahead) * weight;
                }
                if let Some(k) = own_king {
                    t.pawns.eg -= PASSER_OWN_KING_DISTANCE * distance(k, ahead) * weight;
                }
            }
        }
    }
    for file in 0..8 {
        let n = (own_pawns & file_mask(file)).count_ones() as i32;
        if n > 1 {
            t.pawns += DOUBLED_PAWN * (n - 1);
        }
    }

    // King shelter: own pawns in front of the king on its file and the
    // files beside it (middlegame only).
    if let Some(k) = own_king {
        let kf = k.file() as i32;
        let kr = k.rank() as i32;
        for f in (kf - 1).max(0)..=(kf + 1).min(7) {
            let on_file = own_pawns & file_mask(f as usize);
            let nearest = Bitboard(on_file)
                .into_iter()
                .map(|p| match color {
                    Color::White => p.rank() as i32 - kr,
                    Color::Black => kr - p.rank() as i32,
                })
                .filter(|&d| d > 0)
                .min()
                .unwrap_or(3)
                .min(3);
            t.king_safety.mg -= SHELTER_PENALTY[nearest as usize];
        }
    }
    t
}

/// The terms of the evaluation, each from White's point of view.
#[derive(Clone, Copy, Default, Debug)]
pub struct Breakdown {
    pub material: Score,
    pub placement: Score,
    pub mobility: Score,
    /// Bishop pair, rooks on open files.
    pub pieces: Score,
    pub pawns: Score,
    /// Shelter of our king minus the attack on it.
    pub king_safety: Score,
    pub phase: i32,
    /// The share of the endgame score that counts, in 64ths (less in
    /// endings the material overstates).
    pub eg_scale: i32,
}

impl Breakdown {
    fn terms(&self) -> [(&'static str, Score); 6] {
        [
            ("material", self.material),
            ("placement", self.placement),
            ("mobility", self.mobility),
            ("pieces", self.pieces),
            ("pawns", self.pawns),
            ("king", self.king_safety),
        ]
    }

    /// The blended total from White's point of view, without tempo.
    pub fn white_total(&self) -> i32 {
        let mut total = Score::default();
        for (_, s) in self.terms() {
            total += s;
        }
        total.eg = total.eg * self.eg_scale / FULL_SCALE;
        blend(total, self.phase)
    }
}

fn blend(s: Score, phase: i32) -> i32 {
    (s.mg * phase + s.eg * (MAX_PHASE - phase)) / MAX_PHASE
}

fn role_index(role: Role) -> usize {
    role as usize - 1
}

const FULL_SCALE: i32 = 64;

/// Endings where the material count overstates the stronger side's chances
/// (`eg` says who that is): without pawns, being at most a minor piece up
/// rarely wins; with only opposite-coloured bishops, a pawn or two up often
/// doesn't.
fn endgame_scale(board: &Board, eg: i32) -> i32 {
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let non_pawn = |c: Color| -> i32 {
        [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .map(|r| board.by_piece(r.of(c)).count() as i32 * MATERIAL[role_index(r)].eg)
            .sum()
    };
    // Each side's non-pawn material once: this runs at every evaluation.
    let (strong_pieces, weak_pieces) = (non_pawn(strong), non_pawn(!strong));
    let bishop = MATERIAL[role_index(Role::Bishop)].eg;
    if board.by_piece(Role::Pawn.of(strong)).is_empty() && strong_pieces - weak_pieces <= bishop {
        return FULL_SCALE / 8;
    }
    let white_bishops = board.by_piece(Role::Bishop.of(Color::White));
    let black_bishops = board.by_piece(Role::Bishop.of(Color::Black));
    let light = Bitboard::LIGHT_SQUARES;
    if strong_pieces == bishop
        && weak_pieces == bishop
        && white_bishops.intersects(light) != black_bishops.intersects(light)
    {
        return FULL_SCALE / 2;
    }
    FULL_SCALE
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
    let white = side_terms(board, Color::White);
    let black = side_terms(board, Color::Black);
    b.mobility = white.mobility;
    b.mobility -= black.mobility;
    b.pieces = white.pieces;
    b.pieces -= black.pieces;
    b.pawns = white.pawns;
    b.pawns -= black.pawns;
    // Each side's `king_safety` holds its own shelter (a penalty) plus its
    // attack on the other king (a bonus).
    b.king_safety = white.king_safety;
    b.king_safety -= black.king_safety;
    let eg: i32 = b.terms().iter().map(|(_, s)| s.eg).sum();
    b.eg_scale = endgame_scale(board, eg);
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
    let mut text = String::from("term          mg      eg\n");
    for (name, s) in b.terms() {
        text.push_str(&format!("{name:<10}{:>6}  {:>6}\n", s.mg, s.eg));
    }
    text.push_str(&format!(
        "phase {} of {}, endgame scale {}/{FULL_SCALE}\n\
         total (White's view) {} cp, tempo {}\n\
         final (side to move) {} cp",
        b.phase,
        MAX_PHASE,
        b.eg_scale,
        b.white_total(),
        TEMPO,
        evaluate(pos)
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Square};

    fn eval_fen(fen: &str) -> i32 {
        evaluate(&Position::from_fen(fen, CastlingMode::Standard).unwrap())
    }

    fn breakdown_fen(fen: &str) -> Breakdown {
        breakdown(&Position::from_fen(fen, CastlingMode::Standard).unwrap())
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

    /// The same position with colours swapped and the board mirrored.
    fn mirrored(fen: &str) -> String {
        let mut setup = fen.parse::<shakmaty::fen::Fen>().unwrap().into_setup();
        setup.mirror();
        shakmaty::fen::Fen::try_from_setup(setup)
            .unwrap()
            .to_string()
    }

    #[test]
    fn every_bench_position_scores_the_same_mirrored() {
        for fen in crate::bench::bench_fens() {
            assert_eq!(eval_fen(fen), eval_fen(&mirrored(fen)), "{fen}");
        }
    }

    #[test]
    fn pawn_structure_terms() {
        let pawns = |fen: &str| breakdown_fen(fen).pawns;
        // A passed pawn on the sixth is worth more than one on the third.
        let far = pawns("4k3/8/3P4/8/8/8/8/4K3 w - - 0 1");
        let near = pawns("4k3/8/8/8/8/3P4/8/4K3 w - - 0 1");
        assert!(far.eg > near.eg && far.mg > near.mg, "{far:?} {near:?}");
        // Doubled, isolated pawns are worse than two connected ones.
        let doubled = pawns("4k3/8/8/8/3P4/3P4/8/4K3 w - - 0 1");
        let connected = pawns("4k3/8/8/8/3P4/4P3/8/4K3 w - - 0 1");
        assert!(doubled.eg < connected.eg);
        // A pawn blocked by an enemy pawn on the next file is not passed.
        let stopped = pawns("4k3/4p3/8/8/3P4/8/8/4K3 w - - 0 1");
        let free = pawns("4k3/7p/8/8/3P4/8/8/4K3 w - - 0 1");
        assert!(free.eg > stopped.eg);
    }

    #[test]
    fn drawish_endings_are_scaled_down() {
        let scale = |fen: &str| breakdown_fen(fen).eg_scale;
        // Rook against bishop, no pawns: hard to win.
        assert_eq!(scale("4k3/8/8/3b4/8/8/8/R3K3 w - - 0 1"), FULL_SCALE / 8);
        // Rook against nothing: a win.
        assert_eq!(scale("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), FULL_SCALE);
        // Opposite-coloured bishops, a pawn up.
        assert_eq!(scale("4k3/8/8/3b4/8/8/P7/2B1K3 w - - 0 1"), FULL_SCALE / 2);
        // Same-coloured bishops: no discount.
        assert_eq!(scale("4k3/8/8/2b5/8/8/P7/2B1K3 w - - 0 1"), FULL_SCALE);
    }

    #[test]
    fn outposts_and_pawn_threats() {
        let pieces = |fen: &str| breakdown_fen(fen).pieces;
        // A knight on e5 guarded by d4, no black pawn can chase it: outpost.
        let outpost = pieces("4k3/8/8/4N3/3P4/8/8/4K3 w - - 0 1");
        let chased = pieces("4k3/5p2/8/4N3/3P4/8/8/4K3 w - - 0 1");
        assert!(outpost.mg > chased.mg);
        // A knight attacked by a pawn is worse off.
        let attacked = pieces("4k3/8/3p4/4N3/8/8/8/4K3 w - - 0 1");
        let safe = pieces("4k3/8/8/p3N3/8/8/8/4K3 w - - 0 1");
        assert!(attacked.mg < safe.mg);
    }

    #[test]
    fn king_safety_and_mobility() {
        // White's king without its pawn shield fares worse than behind it.
        let sheltered = breakdown_fen("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1")
            .king_safety
            .mg;
        let bare = breakdown_fen("6k1/5ppp/8/8/8/5PPP/8/6K1 w - - 0 1")
            .king_safety
            .mg;
        assert!(sheltered > bare);
        // A bishop on an open diagonal beats one shut in by its own pawns.
        let open = breakdown_fen("4k3/8/8/8/8/8/1B6/4K3 w - - 0 1").mobility;
        let shut = breakdown_fen("4k3/8/8/8/8/2P5/PB6/4K3 w - - 0 1").mobility;
        assert!(open.mg > shut.mg);
    }

    #[test]
    fn knights_prefer_the_centre() {
        let n = role_index(Role::Knight);
        assert!(PST[n][Square::E4.to_usize()].mg > PST[n][Square::A1.to_usize()].mg);
    }
}
