//! Static evaluation: tapered material, placement, mobility, pieces, pawn
//! structure and king safety.
//!
//! Every term has a middlegame and an endgame value; the two are blended by
//! the game phase (24 with all minor and major pieces on the board, 0 with
//! none). The placement values come from a few rules a player would name
//! (centralise knights, advance passed-looking pawns in the endgame, keep the
//! king home in the middlegame and active in the endgame) so that each value
//! can be explained. Every weight lives in [`EvalParams`]; [`evaluate`] uses
//! [`DEFAULT_PARAMS`], [`evaluate_with`] any set (the tuner's).

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

impl std::ops::Add for Score {
    type Output = Score;
    fn add(self, o: Score) -> Score {
        Score::new(self.mg + o.mg, self.eg + o.eg)
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

/// Phase weight of each role (pawns and kings don't count).
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;

/// Distance of a square from the centre: 0 on d4/e4/d5/e5, 3 in the corners.
const fn centre_distance(sq: usize) -> i32 {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let df = if file < 4 { 3 - file } else { file - 4 };
    let dr = if rank < 4 { 3 - rank } else { rank - 4 };
    if df > dr { df } else { dr }
}

const fn build_centre_distances() -> [u8; 64] {
    let mut t = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        t[sq] = centre_distance(sq) as u8;
        sq += 1;
    }
    t
}

/// The ring of each square: 0 = d4/e4/d5/e5 .. 3 = the rim.
const CENTRE_DISTANCE: [u8; 64] = build_centre_distances();

/// Every weight of the evaluation, in centipawns. The engine's values are
/// [`DEFAULT_PARAMS`]; the tuner (`examples/tune.rs`) reads and writes
/// them through [`EvalParams::to_vec`] and [`EvalParams::from_vec`].
/// Arrays of six are indexed by `Role as usize - 1` (pawn .. king); arrays
/// of four by ring (`0` = the four centre squares .. `3` = the rim).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalParams {
    /// Material by role; the king's stays 0.
    pub material: [Score; 6],

    // Placement: piece-square values from a few rules a player would name.
    /// Pawns by rank (White's view, rank 1 = 0): advancing gains space
    /// (middlegame) and nears promotion (endgame).
    pub pawn_rank: [Score; 8],
    /// A d- or e-pawn on the fourth or fifth rank.
    pub pawn_centre: Score,
    /// A d- or e-pawn elsewhere.
    pub pawn_centre_file: Score,
    /// Knights are short-range: the rim costs a lot.
    pub knight_ring: [Score; 4],
    /// Bishops like long diagonals; a milder centre bonus.
    pub bishop_ring: [Score; 4],
    /// A rook on the seventh rank.
    pub rook_seventh: Score,
    /// A rook on the d- or e-file.
    pub rook_centre_file: Score,
    /// The queen should not rush out, but is strong centralised later.
    pub queen_ring: [Score; 4],
    /// King by file, by rank and by ring: sheltered on the back rank
    /// (corners) in the middlegame, centralised in the endgame.
    pub king_file: [Score; 8],
    pub king_rank: [Score; 8],
    pub king_ring: [Score; 4],

    // Terms beyond material and placement, after the classical engines
    // (Fruit and its descendants); each is a rule a player would name.
    /// Mobility: per attacked square that is not ours and not covered by an
    /// enemy pawn, counted from a typical number of squares (so an average
    /// piece scores about zero).
    pub mobility: [Score; 6],
    pub mobility_typical: [i32; 6],
    pub bishop_pair: Score,
    pub rook_open_file: Score,
    pub rook_semi_open_file: Score,
    /// A knight (bishop) on the enemy's side, guarded by a pawn, where no
    /// enemy pawn can ever chase it away.
    pub knight_outpost: Score,
    pub bishop_outpost: Score,
    /// A piece attacked by an enemy pawn: two such attacks at once (a fork)
    /// usually cost a piece.
    pub attacked_by_pawn: Score,
    /// A pawn defended by a pawn or standing beside one, by relative rank.
    pub connected_pawn: [Score; 8],
    pub doubled_pawn: Score,
    pub isolated_pawn: Score,
    /// Passed pawns by relative rank (0 = own back rank), on top of the
    /// placement bonus for advancing.
    pub passed_pawn: [Score; 8],
    /// Endgame: a passed pawn is worth more with the enemy king far from its
    /// path and our king near; per square of distance, times (rank - 2).
    pub passer_enemy_king_distance: i32,
    pub passer_own_king_distance: i32,
    /// King attack (middlegame, only with the attacker's queen on the
    /// board): each piece that attacks the squares around the enemy king
    /// adds its role's value; the sum, times the percentage for the number
    /// of attackers (one piece alone counts little), is the penalty.
    pub king_attack: [i32; 6],
    pub king_attackers_weight: [i32; 8],
    /// King shelter (middlegame): per file around the king, by the own
    /// pawn's distance in front of it; index 3 means no pawn in front.
    pub shelter_penalty: [i32; 4],
    /// The share of the endgame score that counts, in 64ths, in endings the
    /// material overstates: no pawns for the stronger side and at most a
    /// minor piece up; only opposite-coloured bishops.
    pub scale_no_pawns: i32,
    pub scale_opposite_bishops: i32,
    /// Side-to-move bonus: the side to move can usually improve its position.
    pub tempo: i32,
}

const fn s(mg: i32, eg: i32) -> Score {
    Score::new(mg, eg)
}

/// The engine's weights: Texel-tuned (`examples/tune.rs`) on 189110
/// positions of 1846 of Lasker's games, starting from hand-written values.
pub const DEFAULT_PARAMS: EvalParams = EvalParams {
    material: [
        s(66, 96),
        s(317, 347),
        s(330, 368),
        s(480, 601),
        s(1307, 914),
        s(0, 0),
    ],
    pawn_rank: [
        s(0, 0),
        s(0, 0),
        s(-2, 8),
        s(-2, 0),
        s(2, -6),
        s(30, 10),
        s(98, 120),
        s(0, 0),
    ],
    pawn_centre: s(12, -6),
    pawn_centre_file: s(14, -4),
    knight_ring: [s(12, -8), s(-4, 22), s(-14, 15), s(-20, -14)],
    bishop_ring: [s(43, -10), s(12, 22), s(7, 14), s(-6, -6)],
    rook_seventh: s(0, 22),
    rook_centre_file: s(-3, -4),
    queen_ring: [s(-18, 61), s(-12, 22), s(-5, 1), s(-3, -10)],
    king_file: [
        s(10, 0),
        s(57, -8),
        s(55, -13),
        s(-60, 22),
        s(37, 13),
        s(15, 4),
        s(55, 10),
        s(42, -12),
    ],
    king_rank: [
        s(0, 0),
        s(28, -12),
        s(0, 8),
        s(-56, 32),
        s(-43, 34),
        s(-55, 50),
        s(-66, 50),
        s(-77, -49),
    ],
    king_ring: [s(-3, -26), s(-14, 0), s(-50, 0), s(0, -18)],
    mobility: [s(0, 0), s(8, 6), s(5, 7), s(4, 4), s(3, 5), s(0, 0)],
    mobility_typical: [0, 4, 6, 7, 13, 0],
    bishop_pair: s(20, 98),
    rook_open_file: s(62, 2),
    rook_semi_open_file: s(11, 33),
    knight_outpost: s(28, 19),
    bishop_outpost: s(23, 7),
    attacked_by_pawn: s(-46, -29),
    connected_pawn: [
        s(0, 0),
        s(0, 6),
        s(7, -1),
        s(15, 2),
        s(-9, 12),
        s(16, 70),
        s(22, 32),
        s(0, 0),
    ],
    doubled_pawn: s(-36, -1),
    isolated_pawn: s(-18, -7),
    passed_pawn: [
        s(0, 0),
        s(-31, 42),
        s(-30, 30),
        s(12, 37),
        s(29, 63),
        s(62, 115),
        s(47, 127),
        s(0, 0),
    ],
    passer_enemy_king_distance: 12,
    passer_own_king_distance: 8,
    king_attack: [0, 70, 69, 84, 116, 0],
    king_attackers_weight: [0, 32, 56, 84, 100, 94, 97, 99],
    shelter_penalty: [0, -16, 8, 20],
    scale_no_pawns: 0,
    scale_opposite_bishops: 31,
    tempo: 2,
};

/// A field of [`EvalParams`]: an integer, a [`Score`] or an array of them.
trait Param {
    /// Appends each integer with its name (`name`, `name.mg`, `name[3].eg`).
    fn ints<'a>(&'a mut self, name: String, out: &mut Vec<(String, &'a mut i32)>);
    /// The value as Rust source, in the form of [`DEFAULT_PARAMS`].
    fn rust(&self) -> String;
}

impl Param for i32 {
    fn ints<'a>(&'a mut self, name: String, out: &mut Vec<(String, &'a mut i32)>) {
        out.push((name, self));
    }
    fn rust(&self) -> String {
        self.to_string()
    }
}

impl Param for Score {
    fn ints<'a>(&'a mut self, name: String, out: &mut Vec<(String, &'a mut i32)>) {
        out.push((format!("{name}.mg"), &mut self.mg));
        out.push((format!("{name}.eg"), &mut self.eg));
    }
    fn rust(&self) -> String {
        format!("s({}, {})", self.mg, self.eg)
    }
}

impl<T: Param, const N: usize> Param for [T; N] {
    fn ints<'a>(&'a mut self, name: String, out: &mut Vec<(String, &'a mut i32)>) {
        for (i, v) in self.iter_mut().enumerate() {
            v.ints(format!("{name}[{i}]"), out);
        }
    }
    fn rust(&self) -> String {
        let items: Vec<String> = self.iter().map(Param::rust).collect();
        format!("[{}]", items.join(", "))
    }
}

impl EvalParams {
    /// Every field with its name, in declaration order.
    fn fields(&mut self) -> [(&'static str, &mut dyn Param); 32] {
        [
            ("material", &mut self.material),
            ("pawn_rank", &mut self.pawn_rank),
            ("pawn_centre", &mut self.pawn_centre),
            ("pawn_centre_file", &mut self.pawn_centre_file),
            ("knight_ring", &mut self.knight_ring),
            ("bishop_ring", &mut self.bishop_ring),
            ("rook_seventh", &mut self.rook_seventh),
            ("rook_centre_file", &mut self.rook_centre_file),
            ("queen_ring", &mut self.queen_ring),
            ("king_file", &mut self.king_file),
            ("king_rank", &mut self.king_rank),
            ("king_ring", &mut self.king_ring),
            ("mobility", &mut self.mobility),
            ("mobility_typical", &mut self.mobility_typical),
            ("bishop_pair", &mut self.bishop_pair),
            ("rook_open_file", &mut self.rook_open_file),
            ("rook_semi_open_file", &mut self.rook_semi_open_file),
            ("knight_outpost", &mut self.knight_outpost),
            ("bishop_outpost", &mut self.bishop_outpost),
            ("attacked_by_pawn", &mut self.attacked_by_pawn),
            ("connected_pawn", &mut self.connected_pawn),
            ("doubled_pawn", &mut self.doubled_pawn),
            ("isolated_pawn", &mut self.isolated_pawn),
            ("passed_pawn", &mut self.passed_pawn),
            (
                "passer_enemy_king_distance",
                &mut self.passer_enemy_king_distance,
            ),
            (
                "passer_own_king_distance",
                &mut self.passer_own_king_distance,
            ),
            ("king_attack", &mut self.king_attack),
            ("king_attackers_weight", &mut self.king_attackers_weight),
            ("shelter_penalty", &mut self.shelter_penalty),
            ("scale_no_pawns", &mut self.scale_no_pawns),
            ("scale_opposite_bishops", &mut self.scale_opposite_bishops),
            ("tempo", &mut self.tempo),
        ]
    }

    /// Every integer with its name, in a fixed order.
    fn ints(&mut self) -> Vec<(String, &mut i32)> {
        let mut out = Vec::new();
        for (name, field) in self.fields() {
            field.ints(name.to_string(), &mut out);
        }
        out
    }

    /// The names of the integers of [`EvalParams::to_vec`], such as
    /// `material[1].mg` or `tempo`.
    pub fn names() -> Vec<String> {
        let mut p = DEFAULT_PARAMS;
        p.ints().into_iter().map(|(n, _)| n).collect()
    }

    /// Every weight as one flat list (the order of [`EvalParams::names`]).
    pub fn to_vec(&self) -> Vec<i32> {
        let mut p = *self;
        p.ints().into_iter().map(|(_, v)| *v).collect()
    }

    /// The inverse of [`EvalParams::to_vec`].
    pub fn from_vec(values: &[i32]) -> EvalParams {
        let mut p = DEFAULT_PARAMS;
        let mut ints = p.ints();
        assert_eq!(
            ints.len(),
            values.len(),
            "EvalParams::from_vec: wrong length"
        );
        for ((_, slot), v) in ints.iter_mut().zip(values) {
            **slot = *v;
        }
        drop(ints);
        p
    }

    /// The parameters as Rust source, to paste over [`DEFAULT_PARAMS`].
    pub fn to_rust(&self) -> String {
        let mut text = String::from("pub const DEFAULT_PARAMS: EvalParams = EvalParams {\n");
        let mut p = *self;
        for (name, field) in p.fields() {
            text.push_str(&format!("    {name}: {},\n", field.rust()));
        }
        text.push_str("};\n");
        text
    }
}

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

/// The files (bit f for file f) holding at least one of `squares`.
fn files_holding(squares: u64) -> u32 {
    let mut x = squares;
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    (x & 0xff) as u32
}

/// Every square of the files in `files` (bit f for file f).
fn squares_of_files(files: u32) -> u64 {
    u64::from(files) * FILE_A
}

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

fn side_terms(board: &Board, color: Color, p: &EvalParams) -> SideTerms {
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
            let n = (reach & mobility_area).count_ones() as i32 - p.mobility_typical[r];
            t.mobility += p.mobility[r] * n;
            if reach & enemy_king_zone != 0 {
                attackers += 1;
                attack_units += p.king_attack[r];
            }
            let bit = Bitboard::from_square(sq).0;
            if bit & enemy_pawn_attacks != 0 {
                t.pieces += p.attacked_by_pawn;
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
                    p.knight_outpost
                } else {
                    p.bishop_outpost
                };
            }
            if role == Role::Rook {
                let file = file_mask(sq.file() as usize);
                if own_pawns & file == 0 {
                    t.pieces += if enemy_pawns & file == 0 {
                        p.rook_open_file
                    } else {
                        p.rook_semi_open_file
                    };
                }
            }
        }
    }
    if board.by_piece(Role::Bishop.of(color)).count() >= 2 {
        t.pieces += p.bishop_pair;
    }
    // Our attack on their king is their problem: counted here, subtracted
    // by the caller from their side.
    if board.by_piece(Role::Queen.of(color)).any() {
        let weight = p.king_attackers_weight[attackers.min(7)];
        t.king_safety.mg += attack_units * weight / 100;
    }

    // Pawn structure. Isolated, connected and doubled pawns are found for
    // all pawns at once with bitboard shifts; passed pawns one by one.
    let pawn_files = files_holding(own_pawns);
    let isolated_files = pawn_files & !((pawn_files << 1) | (pawn_files >> 1));
    let isolated = own_pawns & squares_of_files(isolated_files);
    t.pawns += p.isolated_pawn * isolated.count_ones() as i32;
    let beside = ((own_pawns & !FILE_H) << 1) | ((own_pawns & !FILE_A) >> 1);
    for sq in Bitboard(own_pawns & (own_pawn_attacks | beside)) {
        t.pawns += p.connected_pawn[relative_rank(color, sq)];
    }
    // Each file's pawns beyond its first.
    t.pawns += p.doubled_pawn * (own_pawns.count_ones() - pawn_files.count_ones()) as i32;
    for sq in board.by_piece(Role::Pawn.of(color)) {
        let span = PASSED_SPANS[ci][sq.to_usize()];
        if span & enemy_pawns != 0 || span & file_mask(sq.file() as usize) & own_pawns != 0 {
            continue;
        }
        let relative_rank = relative_rank(color, sq);
        t.pawns += p.passed_pawn[relative_rank];
        if relative_rank >= 3 {
            let step: i32 = if color == Color::White { 8 } else { -8 };
            let ahead = Square::new((sq.to_usize() as i32 + step) as u32);
            let weight = relative_rank as i32 - 2;
            if let Some(k) = enemy_king {
                t.pawns.eg += p.passer_enemy_king_distance * distance(k, ahead) * weight;
            }
            if let Some(k) = own_king {
                t.pawns.eg -= p.passer_own_king_distance * distance(k, ahead) * weight;
            }
        }
    }

    // King shelter: the nearest own pawn in front of the king on its file
    // and the files beside it, at most 3 ranks counted (middlegame only).
    if let Some(k) = own_king {
        let kf = k.file() as usize;
        let kr = k.rank() as u32;
        let in_front = match color {
            Color::White => u64::MAX.checked_shl(8 * (kr + 1)).unwrap_or(0),
            Color::Black => (1u64 << (8 * kr)) - 1,
        };
        for f in kf.saturating_sub(1)..=(kf + 1).min(7) {
            let shield = own_pawns & file_mask(f) & in_front;
            let nearest = if shield == 0 {
                3
            } else {
                let rank = match color {
                    Color::White => shield.trailing_zeros() / 8,
                    Color::Black => (63 - shield.leading_zeros()) / 8,
                };
                rank.abs_diff(kr).min(3)
            };
            t.king_safety.mg -= p.shelter_penalty[nearest as usize];
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

/// Piece values that define "a minor piece up" and "a bishop each" for
/// [`endgame_scale`]: fixed, so that tuning the material can't change which
/// endings the rule covers.
const SCALE_PIECE_VALUES: [i32; 6] = [0, 300, 320, 530, 960, 0];

/// Endings where the material count overstates the stronger side's chances
/// (`eg` says who that is): without pawns, being at most a minor piece up
/// rarely wins; with only opposite-coloured bishops, a pawn or two up often
/// doesn't.
fn endgame_scale(board: &Board, eg: i32, p: &EvalParams) -> i32 {
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let non_pawn = |c: Color| -> i32 {
        [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .map(|r| board.by_piece(r.of(c)).count() as i32 * SCALE_PIECE_VALUES[role_index(r)])
            .sum()
    };
    // Each side's non-pawn material once: this runs at every evaluation.
    let (strong_pieces, weak_pieces) = (non_pawn(strong), non_pawn(!strong));
    let bishop = SCALE_PIECE_VALUES[role_index(Role::Bishop)];
    if board.by_piece(Role::Pawn.of(strong)).is_empty() && strong_pieces - weak_pieces <= bishop {
        return p.scale_no_pawns;
    }
    let white_bishops = board.by_piece(Role::Bishop.of(Color::White));
    let black_bishops = board.by_piece(Role::Bishop.of(Color::Black));
    let light = Bitboard::LIGHT_SQUARES;
    if strong_pieces == bishop
        && weak_pieces == bishop
        && white_bishops.intersects(light) != black_bishops.intersects(light)
    {
        return p.scale_opposite_bishops;
    }
    FULL_SCALE
}

const fn add(a: Score, b: Score) -> Score {
    Score::new(a.mg + b.mg, a.eg + b.eg)
}

/// Placement value under `p` of a White piece of role index `r` (pawn = 0)
/// on `sq` (a1 = 0).
#[inline(always)]
const fn placement(p: &EvalParams, r: usize, sq: usize) -> Score {
    let (file, rank) = (sq % 8, sq / 8);
    let ring = CENTRE_DISTANCE[sq] as usize;
    let centre_file = file == 3 || file == 4;
    let zero = Score::new(0, 0);
    match r {
        0 => {
            let centre = if !centre_file {
                zero
            } else if rank == 3 || rank == 4 {
                p.pawn_centre
            } else {
                p.pawn_centre_file
            };
            add(p.pawn_rank[rank], centre)
        }
        1 => p.knight_ring[ring],
        2 => p.bishop_ring[ring],
        3 => add(
            if rank == 6 { p.rook_seventh } else { zero },
            if centre_file {
                p.rook_centre_file
            } else {
                zero
            },
        ),
        4 => p.queen_ring[ring],
        _ => add(add(p.king_file[file], p.king_rank[rank]), p.king_ring[ring]),
    }
}

/// Material plus placement of every role on every square.
const fn build_piece_square_table(p: &EvalParams) -> [[Score; 64]; 6] {
    let mut t = [[Score::new(0, 0); 64]; 6];
    let mut r = 0;
    while r < 6 {
        let mut sq = 0;
        while sq < 64 {
            t[r][sq] = add(p.material[r], placement(p, r, sq));
            sq += 1;
        }
        r += 1;
    }
    t
}

/// Material plus placement under [`DEFAULT_PARAMS`], as a table built at
/// compile time: [`evaluate`] looks values up here rather than computing
/// them from the rules as [`evaluate_with`] does (the same total; a test
/// checks).
static DEFAULT_PIECE_SQUARE: [[Score; 64]; 6] = build_piece_square_table(&DEFAULT_PARAMS);

/// Adds placement and phase of `role` (both colours) to `b`, with `value`
/// the placement of a White piece on a square, and `material` per piece.
#[inline(always)]
fn add_pieces(
    b: &mut Breakdown,
    board: &Board,
    role: Role,
    material: Score,
    value: impl Fn(usize) -> Score,
) {
    let r = role_index(role);
    for sq in board.by_piece(role.of(Color::White)) {
        b.material += material;
        b.placement += value(sq.to_usize());
        b.phase += PHASE_WEIGHT[r];
    }
    for sq in board.by_piece(role.of(Color::Black)) {
        b.material -= material;
        b.placement -= value(sq.flip_vertical().to_usize());
        b.phase += PHASE_WEIGHT[r];
    }
}

/// Piece-square value of a White piece under `p` (for tests and tools).
pub fn piece_square(p: &EvalParams, role: Role, sq: Square) -> Score {
    placement(p, role_index(role), sq.to_usize())
}

/// All terms for the position.
pub fn breakdown(pos: &Position) -> Breakdown {
    breakdown_with(pos, &DEFAULT_PARAMS)
}

/// All terms for the position under the weights `p`.
pub fn breakdown_with(pos: &Position, p: &EvalParams) -> Breakdown {
    breakdown_board(pos.board().board(), p)
}

/// All terms for a board under the weights `p`.
pub fn breakdown_board(board: &Board, p: &EvalParams) -> Breakdown {
    breakdown_impl(board, p, |r| p.material[r], |r, sq| placement(p, r, sq))
}

/// All terms, with `material(r)` the material of a piece of role index `r`
/// and `value(r, sq)` the placement of a White one on `sq`.
#[inline(always)]
fn breakdown_impl(
    board: &Board,
    p: &EvalParams,
    material: impl Fn(usize) -> Score,
    value: impl Fn(usize, usize) -> Score,
) -> Breakdown {
    let mut b = Breakdown::default();
    add_pieces(&mut b, board, Role::Pawn, material(0), |sq| value(0, sq));
    add_pieces(&mut b, board, Role::Knight, material(1), |sq| value(1, sq));
    add_pieces(&mut b, board, Role::Bishop, material(2), |sq| value(2, sq));
    add_pieces(&mut b, board, Role::Rook, material(3), |sq| value(3, sq));
    add_pieces(&mut b, board, Role::Queen, material(4), |sq| value(4, sq));
    add_pieces(&mut b, board, Role::King, material(5), |sq| value(5, sq));
    b.phase = b.phase.min(MAX_PHASE);
    let white = side_terms(board, Color::White, p);
    let black = side_terms(board, Color::Black, p);
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
    b.eg_scale = endgame_scale(board, eg, p);
    b
}

/// The evaluation in centipawns from the side to move's point of view:
/// [`evaluate_with`] under [`DEFAULT_PARAMS`], placement from a table.
pub fn evaluate(pos: &Position) -> i32 {
    let board = pos.board().board();
    let p = &DEFAULT_PARAMS;
    // Material is in the table: only the total counts here.
    let zero = Score::default();
    let b = breakdown_impl(board, p, |_| zero, |r, sq| DEFAULT_PIECE_SQUARE[r][sq]);
    from_side_to_move(b.white_total(), pos.turn(), p)
}

/// [`evaluate`] under the weights `p`.
pub fn evaluate_with(pos: &Position, p: &EvalParams) -> i32 {
    evaluate_board(pos.board().board(), pos.turn(), p)
}

/// [`evaluate`] of a board with `turn` to move, under the weights `p`.
pub fn evaluate_board(board: &Board, turn: Color, p: &EvalParams) -> i32 {
    from_side_to_move(breakdown_board(board, p).white_total(), turn, p)
}

fn from_side_to_move(white: i32, turn: Color, p: &EvalParams) -> i32 {
    let stm = if turn == Color::White { white } else { -white };
    stm + p.tempo
}

/// Material value of a role in the middlegame (for move ordering).
pub fn piece_value(role: Role) -> i32 {
    DEFAULT_PARAMS.material[role_index(role)].mg
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
        DEFAULT_PARAMS.tempo,
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
        // A passed pawn on the sixth is worth more than one on the third
        // (own king beside it: the far one's king-distance terms don't
        // count against it).
        let far = pawns("7k/8/2KP4/8/8/8/8/8 w - - 0 1");
        let near = pawns("7k/8/8/8/8/2KP4/8/8 w - - 0 1");
        assert!(far.eg > near.eg && far.mg > near.mg, "{far:?} {near:?}");
        // Doubled, isolated pawns are worse than two connected ones.
        let doubled = pawns("4k3/8/8/8/3P4/3P4/8/4K3 w - - 0 1");
        let connected = pawns("4k3/8/8/8/3P4/4P3/8/4K3 w - - 0 1");
        assert!(doubled.eg < connected.eg);
        // A pawn blocked by an enemy pawn on the next file is not passed
        // (White's terms only: Black's h-pawn is passed too).
        let white_pawns = |fen: &str| {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            side_terms(pos.board().board(), Color::White, &DEFAULT_PARAMS).pawns
        };
        let stopped = white_pawns("4k3/4p3/8/8/3P4/8/8/4K3 w - - 0 1");
        let free = white_pawns("4k3/7p/8/8/3P4/8/8/4K3 w - - 0 1");
        assert!(free.eg > stopped.eg);
    }

    #[test]
    fn drawish_endings_are_scaled_down() {
        let scale = |fen: &str| breakdown_fen(fen).eg_scale;
        let (no_pawns, opposite_bishops) = (
            DEFAULT_PARAMS.scale_no_pawns,
            DEFAULT_PARAMS.scale_opposite_bishops,
        );
        assert!(no_pawns < FULL_SCALE / 4 && opposite_bishops < FULL_SCALE);
        // Rook against bishop, no pawns: hard to win.
        assert_eq!(scale("4k3/8/8/3b4/8/8/8/R3K3 w - - 0 1"), no_pawns);
        // Rook against nothing: a win.
        assert_eq!(scale("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), FULL_SCALE);
        // Opposite-coloured bishops, a pawn up.
        assert_eq!(
            scale("4k3/8/8/3b4/8/8/P7/2B1K3 w - - 0 1"),
            opposite_bishops
        );
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
        let knight = |sq| piece_square(&DEFAULT_PARAMS, Role::Knight, sq);
        assert!(knight(Square::E4).mg > knight(Square::A1).mg);
    }

    #[test]
    fn evaluate_matches_evaluate_with_default_params() {
        // `evaluate` reads material and placement from a compile-time table,
        // `evaluate_with` computes them from the rules.
        for (r, table) in DEFAULT_PIECE_SQUARE.iter().enumerate() {
            for (sq, &value) in table.iter().enumerate() {
                let rules = add(
                    DEFAULT_PARAMS.material[r],
                    placement(&DEFAULT_PARAMS, r, sq),
                );
                assert_eq!(value, rules, "role {r} square {sq}");
            }
        }
        for fen in crate::bench::bench_fens() {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            assert_eq!(
                evaluate(&pos),
                evaluate_with(&pos, &DEFAULT_PARAMS),
                "{fen}"
            );
        }
    }

    #[test]
    fn params_round_trip_through_the_flat_list() {
        let values = DEFAULT_PARAMS.to_vec();
        let names = EvalParams::names();
        // Every field is listed: the struct is nothing but i32s.
        assert_eq!(values.len(), std::mem::size_of::<EvalParams>() / 4);
        assert_eq!(names.len(), values.len());
        assert_eq!(names[0], "material[0].mg");
        assert_eq!(names.last().unwrap(), "tempo");
        assert_eq!(EvalParams::from_vec(&values), DEFAULT_PARAMS);
        let changed: Vec<i32> = values
            .iter()
            .enumerate()
            .map(|(i, v)| v + i as i32)
            .collect();
        assert_eq!(EvalParams::from_vec(&changed).to_vec(), changed);
        let source = DEFAULT_PARAMS.to_rust();
        assert!(source.starts_with("pub const DEFAULT_PARAMS: EvalParams = EvalParams {\n"));
        let m = DEFAULT_PARAMS.material;
        let material = format!(
            "    material: [s({}, {}), s({}, {}),",
            m[0].mg, m[0].eg, m[1].mg, m[1].eg
        );
        assert!(source.contains(&material), "{source}");
        assert!(source.ends_with(&format!("    tempo: {},\n}};\n", DEFAULT_PARAMS.tempo)));
    }

    #[test]
    fn any_params_score_mirrored_positions_the_same() {
        // Symmetry holds by construction, whatever the weights.
        let values: Vec<i32> = DEFAULT_PARAMS.to_vec();
        let p = EvalParams::from_vec(
            &values
                .iter()
                .enumerate()
                .map(|(i, v)| v + (i as i32 * 7) % 11 - 5)
                .collect::<Vec<_>>(),
        );
        for fen in crate::bench::bench_fens() {
            let a = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let b = Position::from_fen(&mirrored(fen), CastlingMode::Standard).unwrap();
            assert_eq!(evaluate_with(&a, &p), evaluate_with(&b, &p), "{fen}");
        }
    }
}
