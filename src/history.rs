//! Move histories: what the search learned about moves from its cutoffs,
//! for move ordering (`movepick`), reductions and pruning (`search`).
//!
//! * Butterfly history: quiet moves by side, from and to.
//! * Capture history: captures by moving piece, target and captured piece,
//!   which orders captures of the same victim by experience.
//! * Continuation history: quiet moves by their piece and target *given*
//!   the piece and target of the move one (or two) plies before: "after
//!   ...Nf6, h3 works" is far more specific than "h3 works".
//!
//! Every table learns the same way: a cutoff gives its move a bonus that
//! grows with the depth of the search (`stat_bonus`), and the moves tried
//! before it a malus that grows alike (`stat_malus`); gravity (`apply_bonus`) keeps each
//! entry within ±`HISTORY_MAX` and lets old lessons fade.

use shakmaty::{Color, Move, Piece};

use crate::params;

/// History scores stay within ±HISTORY_MAX (gravity keeps them there).
pub const HISTORY_MAX: i32 = 16_384;

/// What a cutoff at `depth` teaches its move: about linear in the depth,
/// so that the many shallow cutoffs teach something, up to a cap so that one
/// deep cutoff doesn't wipe out what many others taught.
pub fn stat_bonus(depth: i32) -> i32 {
    (params::history_bonus_scale() * depth - params::history_bonus_offset())
        .clamp(0, params::history_bonus_max())
}

/// What the same cutoff teaches, as a malus, the moves tried before it.
pub fn stat_malus(depth: i32) -> i32 {
    (params::history_malus_scale() * depth - params::history_malus_offset())
        .clamp(0, params::history_malus_max())
}

/// Gravity: the entry moves toward ±HISTORY_MAX by `bonus`, more slowly the
/// closer it already is, so it never leaves the range and old lessons fade.
pub fn apply_bonus(entry: &mut i32, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
}

/// The 12 pieces as a table index: white pawn .. white king, black pawn ..
/// black king.
pub fn piece_index(piece: Piece) -> usize {
    piece.role as usize - 1 + 6 * piece.color as usize
}

/// A move as its piece and target square: the key of the continuation
/// history. Castling counts as the king moving onto its rook's square
/// (shakmaty's `Move::to`), which tells the two sides apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceTo {
    piece: u8,
    to: u8,
}

impl PieceTo {
    pub fn of(side: Color, m: Move) -> PieceTo {
        PieceTo {
            piece: piece_index(m.role().of(side)) as u8,
            to: m.to().to_usize() as u8,
        }
    }
}

fn squares(m: Move) -> (usize, usize) {
    match m {
        Move::Castle { king, rook } => (king.to_usize(), rook.to_usize()),
        _ => (m.from().map_or(0, |s| s.to_usize()), m.to().to_usize()),
    }
}

fn capture_slot(side: Color, m: Move) -> (usize, usize, usize) {
    let piece = side as usize * 6 + (m.role() as usize - 1);
    let victim = m.capture().map_or(0, |r| r as usize - 1);
    (piece, m.to().to_usize(), victim)
}

/// Butterfly and capture histories.
pub struct History {
    quiets: Box<[[[i32; 64]; 64]; 2]>,
    captures: Box<[[[i32; 6]; 64]; 12]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            quiets: Box::new([[[0; 64]; 64]; 2]),
            captures: Box::new([[[0; 6]; 64]; 12]),
        }
    }
}

impl History {
    /// The butterfly history of the quiet move `m` by `side`.
    pub fn get(&self, side: Color, m: Move) -> i32 {
        let (from, to) = squares(m);
        self.quiets[side as usize][from][to]
    }

    pub fn update(&mut self, side: Color, m: Move, bonus: i32) {
        let (from, to) = squares(m);
        apply_bonus(&mut self.quiets[side as usize][from][to], bonus);
    }

    /// The capture history of `m`, a capture by `side`.
    pub fn capture(&self, side: Color, m: Move) -> i32 {
        let (piece, to, victim) = capture_slot(side, m);
        self.captures[piece][to][victim]
    }

    pub fn update_capture(&mut self, side: Color, m: Move, bonus: i32) {
        let (piece, to, victim) = capture_slot(side, m);
        apply_bonus(&mut self.captures[piece][to][victim], bonus);
    }
}

/// One row of the continuation history: the scores of every (piece, target)
/// after one given earlier move. Entries are `i16` (±HISTORY_MAX fits):
/// the tables are 1.2 MB a thread instead of 2.4, and the search's
/// scattered reads of them miss the cache half as often.
pub type ContinuationRow = [[i16; 64]; 12];

/// [`apply_bonus`] on an `i16` entry.
fn apply_bonus_i16(entry: &mut i16, bonus: i32) {
    let mut wide = i32::from(*entry);
    apply_bonus(&mut wide, bonus);
    *entry = wide as i16;
}

/// `N` copies of `row` in one array on the heap. The tables are too big for
/// `Box::new([row; N])`, whose array is first built on the stack and would
/// overflow a search thread's stack; a `Vec` is filled on the heap directly.
fn boxed_rows<T: Clone, const N: usize>(row: T) -> Box<[T; N]> {
    let rows: Box<[T]> = vec![row; N].into_boxed_slice();
    match rows.try_into() {
        Ok(array) => array,
        Err(_) => unreachable!("vec![row; N] holds N rows"),
    }
}

/// Continuation history: a `ContinuationRow` for each (piece, target) of an
/// earlier move. The search looks rows up by the moves 1 and 2 plies back.
pub struct ContinuationHistory {
    rows: Box<[[ContinuationRow; 64]; 12]>,
}

impl Default for ContinuationHistory {
    fn default() -> Self {
        // 12 × 64 rows of 12 × 64 entries (1.2 MB), built on the heap.
        ContinuationHistory {
            rows: boxed_rows([[[0; 64]; 12]; 64]),
        }
    }
}

impl ContinuationHistory {
    /// The row of scores after the earlier move `earlier`.
    pub fn row(&self, earlier: PieceTo) -> &ContinuationRow {
        &self.rows[earlier.piece as usize][earlier.to as usize]
    }

    /// Teach `bonus` to the move `m` played after `earlier`.
    pub fn update(&mut self, earlier: PieceTo, m: PieceTo, bonus: i32) {
        let row = &mut self.rows[earlier.piece as usize][earlier.to as usize];
        apply_bonus_i16(&mut row[m.piece as usize][m.to as usize], bonus);
    }
}

/// The continuation rows of a node (after the moves 1 and 2 plies back;
/// `None` where there is no such move: the root, a null move) and how the
/// quiet moves there score with them.
#[derive(Clone, Copy, Default)]
pub struct QuietContext<'a> {
    pub rows: [Option<&'a ContinuationRow>; 2],
}

impl QuietContext<'_> {
    /// The continuation part of a quiet move's score: what the rows say.
    pub fn continuation(&self, side: Color, m: Move) -> i32 {
        let key = PieceTo::of(side, m);
        let (piece, to) = (key.piece as usize, key.to as usize);
        let [one, two] = self.rows;
        one.map_or(0, |row| i32::from(row[piece][to]))
            + two.map_or(0, |row| i32::from(row[piece][to]))
    }
}

/// Correction history: how far the static evaluation was from what the
/// search found, in positions that share a pawn structure, a side's pieces,
/// the minor pieces and kings, or the last two moves. The search adds what
/// these tables say to the static evaluation its pruning uses: a net that
/// misjudges a structure misjudges it in every position that has it.
///
/// Each table holds, per side to move and key slot, a moving average of
/// `search score − static evaluation` in 1/`CORRECTION_GRAIN` centipawns,
/// weighted by the depth of the search that found it.
pub struct CorrectionHistory {
    pawns: Box<[[i16; CORRECTION_SLOTS]; 2]>,
    non_pawns: Box<[[[i16; CORRECTION_SLOTS]; 2]; 2]>,
    minors: Box<[[i16; CORRECTION_SLOTS]; 2]>,
    continuation: Box<[[ContinuationRow; 64]; 12]>,
}

/// Slots of each keyed table (a power of two).
const CORRECTION_SLOTS: usize = 16_384;
/// Corrections are kept in 1/256 centipawns, so that shallow searches'
/// small weights still move them (in an i16: ±64 cp is ±16384).
const CORRECTION_GRAIN: i32 = 256;
/// No table corrects by more than this many centipawns.
const CORRECTION_MAX_CP: i32 = 64;
/// The weight of one search's lesson, out of 256: grows with its depth.
fn correction_weight(depth: i32) -> i32 {
    (depth * depth + 2 * depth + 1).min(params::correction_update_max())
}

/// The keys a node's correction is looked up by: the structure keys of its
/// position and the last two moves.
#[derive(Clone, Copy, Debug)]
pub struct CorrectionKeys {
    pub side: Color,
    pub pawns: u64,
    pub non_pawns: [u64; 2],
    pub minors: u64,
    pub moves: Option<(PieceTo, PieceTo)>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        // A keyed table has a row for each side to move.
        CorrectionHistory {
            pawns: boxed_rows([0; CORRECTION_SLOTS]),
            non_pawns: boxed_rows([[0; CORRECTION_SLOTS]; 2]),
            minors: boxed_rows([0; CORRECTION_SLOTS]),
            continuation: boxed_rows([[[0; 64]; 12]; 64]),
        }
    }
}

fn slot(key: u64) -> usize {
    key as usize & (CORRECTION_SLOTS - 1)
}

impl CorrectionHistory {
    fn entries(&mut self, keys: &CorrectionKeys) -> impl Iterator<Item = &mut i16> {
        let side = keys.side as usize;
        let [white, black] = &mut *self.non_pawns;
        let continuation = keys
            .moves
            .map(|(two_back, one_back)| {
                let row = &mut self.continuation[two_back.piece as usize][two_back.to as usize];
                &mut row[one_back.piece as usize][one_back.to as usize]
            })
            .into_iter();
        [
            &mut self.pawns[side][slot(keys.pawns)],
            &mut white[side][slot(keys.non_pawns[0])],
            &mut black[side][slot(keys.non_pawns[1])],
            &mut self.minors[side][slot(keys.minors)],
        ]
        .into_iter()
        .chain(continuation)
    }

    /// The correction for a node, in centipawns: each table's value by its
    /// weight (`params`, in 1/1024ths). By default the pawn table weighs
    /// twice each other's, as it is the best informed, and where all five
    /// agree the correction is about 3/2 of their error: each table alone
    /// sees only part of it.
    pub fn correction(&self, keys: &CorrectionKeys) -> i32 {
        let side = keys.side as usize;
        let pawns = i32::from(self.pawns[side][slot(keys.pawns)]);
        let white = i32::from(self.non_pawns[0][side][slot(keys.non_pawns[0])]);
        let black = i32::from(self.non_pawns[1][side][slot(keys.non_pawns[1])]);
        let minors = i32::from(self.minors[side][slot(keys.minors)]);
        let continuation = keys.moves.map_or(0, |(two_back, one_back)| {
            i32::from(
                self.continuation[two_back.piece as usize][two_back.to as usize]
                    [one_back.piece as usize][one_back.to as usize],
            )
        });
        let weighted = params::correction_pawn_weight() * pawns
            + params::correction_non_pawn_weight() * (white + black)
            + params::correction_minor_weight() * minors
            + params::correction_continuation_weight() * continuation;
        weighted / (1024 * CORRECTION_GRAIN)
    }

    /// A search of `depth` found `error` = its score − the static
    /// evaluation: every table moves its average toward it.
    pub fn update(&mut self, keys: &CorrectionKeys, depth: i32, error: i32) {
        let limit = CORRECTION_MAX_CP * CORRECTION_GRAIN;
        let target = (error * CORRECTION_GRAIN).clamp(-limit, limit);
        let weight = correction_weight(depth);
        for entry in self.entries(keys) {
            // A weighted mean of two values within ±limit stays within it,
            // and limit (64 × 256) fits an i16.
            *entry = ((i32::from(*entry) * (256 - weight) + target * weight) / 256) as i16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    fn probe_move(uci: &str) -> Move {
        Position::default().make_uci(uci).unwrap()
    }

    /// Random bonuses and maluses of every size never push an entry out of
    /// ±HISTORY_MAX, and a run of bonuses brings it near the top.
    #[test]
    fn gravity_keeps_every_table_bounded() {
        let mut h = History::default();
        let mut cont = ContinuationHistory::default();
        let m = probe_move("e2e4");
        let earlier = PieceTo::of(Color::Black, probe_move("g1f3"));
        let key = PieceTo::of(Color::White, m);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let bonus = (seed % 80_001) as i32 - 40_000;
            h.update(Color::White, m, bonus);
            cont.update(earlier, key, bonus);
            let e = h.get(Color::White, m);
            let c = i32::from(cont.row(earlier)[key.piece as usize][key.to as usize]);
            assert!((-HISTORY_MAX..=HISTORY_MAX).contains(&e), "{e}");
            assert!((-HISTORY_MAX..=HISTORY_MAX).contains(&c), "{c}");
        }
        for _ in 0..100 {
            h.update(Color::White, m, stat_bonus(10));
        }
        assert!(h.get(Color::White, m) > HISTORY_MAX * 9 / 10);
        for _ in 0..100 {
            h.update(Color::White, m, -stat_bonus(10));
        }
        assert!(h.get(Color::White, m) < -HISTORY_MAX * 9 / 10);
    }

    /// Corrections follow the errors they are taught, never beyond
    /// `CORRECTION_MAX_CP` per table, and stay with their side and keys.
    #[test]
    fn corrections_learn_and_stay_bounded() {
        let mut corrections = CorrectionHistory::default();
        let e4 = PieceTo::of(Color::White, probe_move("e2e4"));
        let keys = CorrectionKeys {
            side: Color::White,
            pawns: 1,
            non_pawns: [2, 3],
            minors: 4,
            moves: Some((e4, e4)),
        };
        // Each table learns the error; the correction is their weighted sum.
        let weights = params::correction_pawn_weight()
            + 2 * params::correction_non_pawn_weight()
            + params::correction_minor_weight()
            + params::correction_continuation_weight();
        let full = 40 * weights / 1024;
        for _ in 0..50 {
            corrections.update(&keys, 10, 40);
        }
        let learned = corrections.correction(&keys);
        assert!(
            (full * 9 / 10..=full).contains(&learned),
            "{learned} of {full}"
        );
        // The structure tables are per side to move; the moves' table needs
        // none (the moves' pieces tell whose turn it is).
        let black = CorrectionKeys {
            side: Color::Black,
            moves: None,
            ..keys
        };
        assert_eq!(corrections.correction(&black), 0, "the other side's tables");
        let mut seed = 88_172_645_463_325_252u64;
        for _ in 0..10_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let error = (seed % 100_001) as i32 - 50_000;
            corrections.update(&keys, (seed >> 40) as i32 % 30, error);
            let c = corrections.correction(&keys);
            assert!(c.abs() <= CORRECTION_MAX_CP * weights / 1024, "{c}");
        }
    }

    #[test]
    fn bonus_grows_with_depth_to_a_cap() {
        let bonuses: Vec<i32> = (1..=20).map(stat_bonus).collect();
        assert!(bonuses[0] > 0);
        assert!(bonuses.windows(2).all(|w| w[0] <= w[1]));
        assert!(bonuses[4] >= 5 * bonuses[0], "about linear, not flat");
        assert_eq!(bonuses[19], bonuses[15], "capped");
    }

    /// The continuation score is the sum of the rows the node has, and a
    /// row learned after one earlier move says nothing after another.
    #[test]
    fn continuation_rows_are_specific_to_the_earlier_move() {
        let mut cont = ContinuationHistory::default();
        let m = probe_move("h2h3");
        let after_nf6 = PieceTo::of(Color::Black, probe_move("g1f3"));
        let after_e5 = PieceTo::of(Color::Black, probe_move("e2e4"));
        cont.update(after_nf6, PieceTo::of(Color::White, m), 1000);
        let one = QuietContext {
            rows: [Some(cont.row(after_nf6)), None],
        };
        let both = QuietContext {
            rows: [Some(cont.row(after_nf6)), Some(cont.row(after_nf6))],
        };
        let other = QuietContext {
            rows: [Some(cont.row(after_e5)), None],
        };
        assert_eq!(one.continuation(Color::White, m), 1000);
        assert_eq!(both.continuation(Color::White, m), 2000);
        assert_eq!(other.continuation(Color::White, m), 0);
        assert_eq!(QuietContext::default().continuation(Color::White, m), 0);
    }
}
