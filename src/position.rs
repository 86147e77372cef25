//! The board the search works on: shakmaty's `Chess` plus what a search needs
//! beside it.
//!
//! * Copy-make: `make` pushes a copy of the position with the move played and
//!   `unmake` pops it, so the game history and the search path are one stack.
//! * The 64-bit Zobrist key (shakmaty's Polyglot-compatible `Zobrist64`, en
//!   passant counted only when a legal en-passant capture exists) is updated
//!   incrementally on every move from the public key tables; tests check it
//!   against the from-scratch key.
//! * More keys kept the same way, for the correction histories of the
//!   search: the pawn key (the pawns alone), each side's non-pawn key (its
//!   pieces and king) and the minor-piece key (both sides' knights, bishops
//!   and kings); tests check them against a full computation.
//! * The repetition counter table: one small counter per low bits of the key,
//!   incremented when a position is pushed and decremented when it is popped.
//!   A counter of 1 proves the current position occurs nowhere else on the
//!   stack, so the history is scanned only when it is 2 or more.

use shakmaty::attacks;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, File, Move, Piece,
    Position as _, PositionError, Role, Square,
};

use crate::channel::excerpt;

/// Counters in the repetition table. 4096 one-byte counters fit in L1.
pub const REPETITION_TABLE_SIZE: usize = 4096;

fn piece_key(square: Square, piece: Piece) -> u64 {
    Zobrist64::zobrist_for_piece(square, piece).0
}

/// The piece keys a normal move (`us` moving `role` from `from` to `to`)
/// toggles: the piece leaves, it (or its promotion) arrives, and the
/// captured piece goes.
fn normal_move_piece_keys(
    us: Color,
    role: Role,
    from: Square,
    capture: Option<Role>,
    to: Square,
    promotion: Option<Role>,
) -> u64 {
    let mut keys = piece_key(from, role.of(us)) ^ piece_key(to, promotion.unwrap_or(role).of(us));
    if let Some(captured) = capture {
        keys ^= piece_key(to, captured.of(!us));
    }
    keys
}

fn side_key() -> u64 {
    Zobrist64::zobrist_for_white_turn().0
}

fn castling_key(pos: &Chess) -> u64 {
    let castles = pos.castles();
    let mut key = 0;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if castles.has(color, side) {
                key ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
    }
    key
}

/// The en-passant file that enters the key: only when a legal capture exists,
/// so that positions which differ only by a useless ep square are the same.
fn ep_file(pos: &Chess) -> Option<File> {
    pos.maybe_ep_square()?;
    pos.legal_ep_square().map(|sq| sq.file())
}

fn ep_key(file: Option<File>) -> u64 {
    file.map_or(0, |f| Zobrist64::zobrist_for_en_passant_file(f).0)
}

/// The key of `pos` computed from scratch (used at set-up and in tests).
pub fn full_key(pos: &Chess) -> u64 {
    let z: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
    z.0
}

/// The pawn key, each side's non-pawn key and the minor-piece key of
/// `pos`, computed from scratch: the Zobrist keys of the pawns, of each
/// side's other pieces and king, and of both sides' knights, bishops and
/// kings.
pub fn full_structure_keys(pos: &Chess) -> StructureKeys {
    let board = pos.board();
    let mut keys = StructureKeys::default();
    for (square, piece) in board.clone() {
        keys.toggle(square, piece);
    }
    keys
}

/// The keys of the pawn structure, of each side's pieces and of the minor
/// pieces with the kings: positions that share one tend to share the
/// evaluation's errors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StructureKeys {
    pub pawns: u64,
    pub non_pawns: [u64; 2],
    pub minors: u64,
}

impl StructureKeys {
    /// A piece arrives on or leaves `square`.
    fn toggle(&mut self, square: Square, piece: Piece) {
        let key = piece_key(square, piece);
        if piece.role == Role::Pawn {
            self.pawns ^= key;
        } else {
            self.non_pawns[piece.color as usize] ^= key;
        }
        if matches!(piece.role, Role::Knight | Role::Bishop | Role::King) {
            self.minors ^= key;
        }
    }

    /// The keys after `m`, played by `us`.
    fn after(mut self, us: Color, m: Move) -> StructureKeys {
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                self.toggle(from, role.of(us));
                self.toggle(to, promotion.unwrap_or(role).of(us));
                if let Some(captured) = capture {
                    self.toggle(to, captured.of(!us));
                }
            }
            Move::EnPassant { from, to } => {
                self.toggle(from, Role::Pawn.of(us));
                self.toggle(to, Role::Pawn.of(us));
                self.toggle(
                    Square::from_coords(to.file(), from.rank()),
                    Role::Pawn.of(!us),
                );
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(king < rook);
                self.toggle(king, Role::King.of(us));
                self.toggle(rook, Role::Rook.of(us));
                self.toggle(side.king_to(us), Role::King.of(us));
                self.toggle(side.rook_to(us), Role::Rook.of(us));
            }
            Move::Put { .. } => unreachable!("no drops in standard chess"),
        }
        self
    }
}

/// The squares from which each of our pieces would check their king, and
/// our pieces whose moving off a line would uncover a check: with them,
/// whether an ordinary move gives check is two lookups, where
/// [`Position::gives_check`] works the lines out for each move. For a
/// position's many quiet moves at once (the move picker's `skip_quiets`).
#[derive(Clone, Copy, Debug)]
pub struct CheckSquares {
    /// By role (pawn .. king): the squares a piece of ours of that role
    /// attacks their king from, the board's other pieces standing as they
    /// are. (A slider's own square never blocks its line to the king: were
    /// it on that line, their king would be in check on our move.)
    by_role: [Bitboard; 6],
    /// Our pieces that alone stand between one of our sliders and their
    /// king.
    discoverers: Bitboard,
    /// Their king.
    king: Square,
}

impl CheckSquares {
    /// Does `m`, a legal move of `pos` (the position these were made for),
    /// give check? Promotions, castling and en passant, which change the
    /// lines in other ways, ask `pos`.
    pub fn gives_check(&self, pos: &Position, m: Move) -> bool {
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion: None,
                ..
            } => {
                self.by_role[role as usize - 1].contains(to)
                    || (self.discoverers.contains(from) && !attacks::aligned(from, to, self.king))
            }
            _ => pos.gives_check(m),
        }
    }
}

/// One position on the stack.
#[derive(Clone)]
struct State {
    board: Chess,
    key: u64,
    structure: StructureKeys,
    ep_file: Option<File>,
    /// Plies since the last move that makes earlier positions unreachable
    /// (capture, pawn move, castling-right change) or a null move.
    reversible_plies: u32,
    /// The move that led here (`None` at the base and after a null move).
    last_move: Option<Move>,
    /// Is the side to move in check? Asked several times a node, so found
    /// once, when the position is pushed.
    in_check: bool,
}

/// Counters indexed by the low bits of the key. See the module comment.
#[derive(Clone)]
pub struct RepetitionTable {
    counts: Box<[u8; REPETITION_TABLE_SIZE]>,
}

impl RepetitionTable {
    fn new() -> Self {
        RepetitionTable {
            counts: Box::new([0; REPETITION_TABLE_SIZE]),
        }
    }

    fn index(key: u64) -> usize {
        key as usize & (REPETITION_TABLE_SIZE - 1)
    }

    fn add(&mut self, key: u64) {
        let c = &mut self.counts[Self::index(key)];
        // 255 positions sharing 12 key bits take a long game history (a GUI
        // may send a move list of any length). A counter that reaches 255
        // sticks there: it no longer counts, and only disables its slot's
        // early exit, which stays sound (the counter is never below the
        // number of positions it stands for).
        *c = c.saturating_add(1);
    }

    fn remove(&mut self, key: u64) {
        let c = &mut self.counts[Self::index(key)];
        debug_assert!(*c > 0, "repetition counter underflow");
        // A stuck counter stays stuck: decrementing it would drift below
        // the positions it stands for (each increment at 255 was lost), and
        // a counter of 1 or 0 for a repeated position hides the repetition.
        if *c != u8::MAX {
            *c -= 1;
        }
    }

    fn get(&self, key: u64) -> u8 {
        self.counts[Self::index(key)]
    }

    /// The counts as a plain slice (for invariant checks in tests).
    pub fn counts(&self) -> &[u8] {
        &self.counts[..]
    }
}

/// What a repetition check found, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepetitionCheck {
    /// The counters proved the position new: no scan of the history.
    New,
    /// The history was scanned: a repetition that draws, or none.
    Scanned { draw: bool },
}

impl RepetitionCheck {
    pub fn is_draw(self) -> bool {
        self == RepetitionCheck::Scanned { draw: true }
    }
}

/// How often a search's repetition checks were decided by the counters
/// alone.
#[derive(Clone, Copy, Default, Debug)]
pub struct RepetitionStats {
    pub checks: u64,
    pub early_exits: u64,
}

impl RepetitionStats {
    pub fn count(&mut self, check: RepetitionCheck) {
        self.checks += 1;
        self.early_exits += u64::from(check == RepetitionCheck::New);
    }
}

/// Why a FEN or a move list was refused.
#[derive(Debug)]
pub enum SetupError {
    Fen(String),
    Move(String),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::Fen(s) | SetupError::Move(s) => f.write_str(s),
        }
    }
}

/// A game's positions as a stack of states, from the one the GUI set up
/// (height 0) to the current one (`height() - 1`): the search makes and
/// unmakes its moves on top (docs/code-map.md, "The three stacks").
#[derive(Clone)]
pub struct Position {
    stack: Vec<State>,
    repetitions: RepetitionTable,
    castling_mode: CastlingMode,
}

impl Default for Position {
    fn default() -> Self {
        Position::from_chess(Chess::default(), CastlingMode::Standard)
    }
}

impl Position {
    pub fn from_chess(board: Chess, castling_mode: CastlingMode) -> Self {
        let key = full_key(&board);
        let ep_file = ep_file(&board);
        let mut repetitions = RepetitionTable::new();
        repetitions.add(key);
        Position {
            stack: vec![State {
                structure: full_structure_keys(&board),
                reversible_plies: board.halfmoves(),
                in_check: board.is_check(),
                board,
                key,
                ep_file,
                last_move: None,
            }],
            repetitions,
            castling_mode,
        }
    }

    /// Parses a FEN (Shredder/X-FEN castling accepted in Chess960 mode).
    pub fn from_fen(fen: &str, castling_mode: CastlingMode) -> Result<Self, SetupError> {
        let parsed: Fen = fen
            .trim()
            .parse()
            .map_err(|e| SetupError::Fen(format!("invalid FEN '{}': {e}", fen.trim())))?;
        // A check that no legal last move could have given (two bishops on
        // one diagonal, say) is still a well-defined position to move in;
        // perft suites contain it. Everything else illegal is refused.
        let board: Chess = parsed
            .into_position(castling_mode)
            .or_else(PositionError::ignore_impossible_check)
            .map_err(|e| SetupError::Fen(format!("impossible position '{}': {e}", fen.trim())))?;
        Ok(Position::from_chess(board, castling_mode))
    }

    /// Parses a move in UCI notation and plays it, or says why it can't.
    pub fn make_uci(&mut self, text: &str) -> Result<Move, SetupError> {
        let uci: UciMove = text
            .parse()
            .map_err(|_| SetupError::Move(format!("malformed move '{}'", excerpt(text))))?;
        let m = uci
            .to_move(self.board())
            .map_err(|_| SetupError::Move(format!("illegal move '{text}' in {}", self.fen())))?;
        self.make(m);
        Ok(m)
    }

    fn top(&self) -> &State {
        self.stack.last().expect("position stack is never empty")
    }

    pub fn board(&self) -> &Chess {
        &self.top().board
    }

    pub fn key(&self) -> u64 {
        self.top().key
    }

    /// The pawn, non-pawn and minor-piece keys (see `StructureKeys`).
    pub fn structure_keys(&self) -> StructureKeys {
        self.top().structure
    }

    pub fn turn(&self) -> Color {
        self.board().turn()
    }

    pub fn castling_mode(&self) -> CastlingMode {
        self.castling_mode
    }

    pub fn in_check(&self) -> bool {
        debug_assert_eq!(self.top().in_check, self.board().is_check());
        self.top().in_check
    }

    pub fn halfmoves(&self) -> u32 {
        self.board().halfmoves()
    }

    pub fn last_move(&self) -> Option<Move> {
        self.top().last_move
    }

    /// The board at `index` of the stack (0: the base position).
    pub fn board_at(&self, index: usize) -> &Chess {
        &self.stack[index].board
    }

    /// The key at `index` of the stack.
    pub fn key_at(&self, index: usize) -> u64 {
        self.stack[index].key
    }

    /// The move that led to the position at `index` of the stack (`None`
    /// at the base and after a null move).
    pub fn move_at(&self, index: usize) -> Option<Move> {
        self.stack[index].last_move
    }

    /// Number of positions on the stack (game history plus search path).
    pub fn height(&self) -> usize {
        self.stack.len()
    }

    pub fn fen(&self) -> String {
        Fen::from_position(self.board(), EnPassantMode::Legal).to_string()
    }

    pub fn piece_count(&self) -> u32 {
        self.board().board().occupied().count() as u32
    }

    /// Does the side to move have a piece other than pawns and king?
    /// (Null-move pruning is unsafe without one: zugzwang.)
    pub fn has_non_pawn_material(&self, color: Color) -> bool {
        let b = self.board().board();
        let ours = b.by_color(color);
        (ours & !(b.pawns() | b.kings())).any()
    }

    /// Does `m` give check? Direct and discovered checks are read off the
    /// bitboards; only castling and en passant play the move on a copy.
    pub fn gives_check(&self, m: Move) -> bool {
        let pos = self.board();
        let Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } = m
        else {
            let mut copy = pos.clone();
            copy.play_unchecked(m);
            return copy.is_check();
        };
        let board = pos.board();
        let us = pos.turn();
        let Some(king) = board.king_of(!us) else {
            return false;
        };
        let occupied = (board.occupied() ^ Bitboard::from(from)) | Bitboard::from(to);
        let piece = promotion.unwrap_or(role).of(us);
        if attacks::attacks(to, piece, occupied).contains(king) {
            return true;
        }
        // A slider of ours that `from` was shielding.
        let ours = board.by_color(us) ^ Bitboard::from(from);
        let straight = attacks::rook_attacks(king, occupied) & board.rooks_and_queens() & ours;
        let diagonal = attacks::bishop_attacks(king, occupied) & board.bishops_and_queens() & ours;
        (straight | diagonal).any()
    }

    /// What deciding whether many moves of this position give check
    /// needs, worked out once ([`CheckSquares`]).
    pub fn check_squares(&self) -> CheckSquares {
        let pos = self.board();
        let board = pos.board();
        let us = pos.turn();
        // A position without their king is no game; no move checks it.
        let Some(king) = board.king_of(!us) else {
            return CheckSquares {
                by_role: [Bitboard::EMPTY; 6],
                discoverers: Bitboard::EMPTY,
                king: Square::A1,
            };
        };
        let occupied = board.occupied();
        let ours = board.by_color(us);
        let bishop = attacks::bishop_attacks(king, occupied);
        let rook = attacks::rook_attacks(king, occupied);
        let discoverers = crate::movegen::sole_blockers(board, king, ours) & ours;
        CheckSquares {
            by_role: [
                attacks::pawn_attacks(!us, king),
                attacks::knight_attacks(king),
                bishop,
                rook,
                bishop | rook,
                Bitboard::EMPTY,
            ],
            discoverers,
            king,
        }
    }

    /// The key after `m` without playing it (for ETC). Most moves change
    /// neither castling rights nor the en-passant square: their key comes
    /// from the piece keys alone; the rest play the move on a copy.
    pub fn key_after(&self, m: Move) -> u64 {
        self.quick_key_after(m).unwrap_or_else(|| {
            let mut child = self.board().clone();
            child.play_unchecked(m);
            self.child_key(m, &child)
        })
    }

    /// The key after `m` if it comes from the piece keys alone (neither
    /// castling rights nor the en-passant square change), else `None`.
    fn quick_key_after(&self, m: Move) -> Option<u64> {
        let parent = self.top();
        let board = &parent.board;
        let us = board.turn();
        let Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } = m
        else {
            return None;
        };
        let rights = board.castles().castling_rights();
        let double_push = role == Role::Pawn && from.abs_diff(to) == 16;
        let touches_rights = rights.contains(from)
            || rights.contains(to)
            || (role == Role::King && board.castles().has_color(us));
        if double_push || touches_rights {
            return None;
        }
        let pieces = normal_move_piece_keys(us, role, from, capture, to, promotion);
        Some(parent.key ^ side_key() ^ ep_key(parent.ep_file) ^ pieces)
    }

    fn child_key(&self, m: Move, child: &Chess) -> u64 {
        let parent = self.top();
        let us = parent.board.turn();
        let mut key = parent.key ^ side_key();
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => key ^= normal_move_piece_keys(us, role, from, capture, to, promotion),
            Move::EnPassant { from, to } => {
                let victim = Square::from_coords(to.file(), from.rank());
                key ^= piece_key(from, Role::Pawn.of(us));
                key ^= piece_key(to, Role::Pawn.of(us));
                key ^= piece_key(victim, Role::Pawn.of(!us));
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(king < rook);
                key ^= piece_key(king, Role::King.of(us));
                key ^= piece_key(rook, Role::Rook.of(us));
                key ^= piece_key(side.king_to(us), Role::King.of(us));
                key ^= piece_key(side.rook_to(us), Role::Rook.of(us));
            }
            Move::Put { .. } => unreachable!("no drops in standard chess"),
        }
        if parent.board.castles().castling_rights() != child.castles().castling_rights() {
            key ^= castling_key(&parent.board) ^ castling_key(child);
        }
        key ^= ep_key(parent.ep_file) ^ ep_key(ep_file(child));
        key
    }

    /// Plays a legal move.
    pub fn make(&mut self, m: Move) {
        self.make_announcing(m, |_| {});
    }

    /// [`Position::make`], handing the new key to `announce` as early as it
    /// is known: for most moves before the board is copied and the move
    /// played, so the search can start loading the key's table bucket
    /// while that work runs.
    pub fn make_announcing(&mut self, m: Move, mut announce: impl FnMut(u64)) {
        let quick_key = self.quick_key_after(m);
        if let Some(key) = quick_key {
            announce(key);
        }
        let mut board = self.board().clone();
        board.play_unchecked(m);
        let key = match quick_key {
            Some(key) => key,
            None => {
                let key = self.child_key(m, &board);
                announce(key);
                key
            }
        };
        debug_assert_eq!(key, self.child_key(m, &board));
        let parent = self.top();
        let irreversible = m.is_zeroing()
            || parent.board.castles().castling_rights() != board.castles().castling_rights();
        let reversible_plies = if irreversible {
            0
        } else {
            parent.reversible_plies + 1
        };
        let ep_file = ep_file(&board);
        let structure = parent.structure.after(parent.board.turn(), m);
        debug_assert_eq!(structure, full_structure_keys(&board));
        self.repetitions.add(key);
        self.stack.push(State {
            structure,
            in_check: board.is_check(),
            board,
            key,
            ep_file,
            reversible_plies,
            last_move: Some(m),
        });
    }

    /// Passes the turn (null move). The side to move must not be in check.
    /// A null move cuts the repetition chain: no position before it can recur
    /// after it in a real game, so the history scan stops there.
    pub fn make_null(&mut self) {
        let parent = self.top();
        debug_assert!(!parent.board.is_check());
        let board = parent
            .board
            .clone()
            .swap_turn()
            .expect("passing is legal when not in check");
        let key = parent.key ^ side_key() ^ ep_key(parent.ep_file);
        let structure = parent.structure;
        self.repetitions.add(key);
        self.stack.push(State {
            structure,
            // We weren't in check, so neither is the other side now (it
            // would have been our move with their king in check).
            in_check: false,
            board,
            key,
            ep_file: None,
            reversible_plies: 0,
            last_move: None,
        });
    }

    /// Takes back the last `make` or `make_null`. There must be one: an
    /// unmake past the base position is a bug in the caller, and stops it
    /// here rather than leaving the counters and the stack apart.
    pub fn unmake(&mut self) {
        assert!(self.stack.len() > 1, "unmake past the base position");
        let state = self.stack.pop().expect("checked above");
        self.repetitions.remove(state.key);
    }

    /// Is the current position a draw by repetition for the search?
    ///
    /// `plies_from_root` is the distance to the search root: a position that
    /// recurs inside the search tree is a draw at once (the side that could
    /// avoid it would), while one that only recurs before the root needs to
    /// have occurred twice already (three-fold).
    pub fn is_repetition(&self, plies_from_root: usize) -> bool {
        self.check_repetition(plies_from_root).is_draw()
    }

    /// `is_repetition`, saying whether the counters alone decided it.
    pub fn check_repetition(&self, plies_from_root: usize) -> RepetitionCheck {
        let state = self.top();
        let key = state.key;
        let reach = state.reversible_plies as usize;
        if self.repetitions.get(key) <= 1 {
            // No other position on the stack shares even the low key bits.
            return RepetitionCheck::New;
        }
        let top = self.stack.len() - 1;
        let mut earlier = 0;
        let mut distance = 4;
        while distance <= reach && distance <= top {
            if self.stack[top - distance].key == key {
                if distance <= plies_from_root {
                    return RepetitionCheck::Scanned { draw: true };
                }
                earlier += 1;
                if earlier >= 2 {
                    return RepetitionCheck::Scanned { draw: true };
                }
            }
            distance += 2;
        }
        RepetitionCheck::Scanned { draw: false }
    }

    /// Fifty-move rule: 100 plies without capture or pawn move, unless the
    /// last of them delivered mate (the caller checks for mate first).
    pub fn is_fifty_move_draw(&self) -> bool {
        self.halfmoves() >= 100
    }

    /// Neither side can ever mate (K v K, K+minor v K, bishops of one colour).
    pub fn is_insufficient_material(&self) -> bool {
        self.board().is_insufficient_material()
    }

    pub fn repetition_table(&self) -> &RepetitionTable {
        &self.repetitions
    }

    /// Do the counters equal what the positions on the stack give? A
    /// counter stuck at its maximum (see `RepetitionTable::add`) counts
    /// no longer, and agrees with any number.
    pub fn repetition_counts_consistent(&self) -> bool {
        let expected = self.expected_repetition_counts();
        self.repetitions
            .counts()
            .iter()
            .zip(&expected)
            .all(|(&count, &expected)| count == expected || count == u8::MAX)
    }

    /// Rebuilds the counters from the stack alone (what they must equal).
    pub fn expected_repetition_counts(&self) -> Vec<u8> {
        let mut t = RepetitionTable::new();
        for s in &self.stack {
            t.add(s.key);
        }
        t.counts().to_vec()
    }

    /// Encodes a move in 16 bits for the transposition table:
    /// from (6) | to (6) | promotion role (3). Castling is king-takes-rook.
    pub fn encode_move(m: Move) -> u16 {
        let (from, to) = match m {
            Move::Castle { king, rook } => (king, rook),
            _ => (m.from().expect("no drops"), m.to()),
        };
        let promo = match m {
            Move::Normal {
                promotion: Some(r), ..
            } => r as u16,
            _ => 0,
        };
        from.to_u32() as u16 | ((to.to_u32() as u16) << 6) | (promo << 12)
    }

    /// Turns a 16-bit move back into a move of this position, if it is
    /// legal here. A key collision (type-1 error) gives a move of some other
    /// position; this is where it is caught.
    pub fn decode_move(&self, code: u16) -> Option<Move> {
        if code == 0 {
            return None;
        }
        let from = Square::new(u32::from(code & 63));
        let to = Square::new(u32::from((code >> 6) & 63));
        let promo = match code >> 12 {
            0 => None,
            r => Some(Role::try_from(r as u8).ok()?),
        };
        let pos = self.board();
        let us = pos.turn();
        let piece = pos.board().piece_at(from)?;
        if piece.color != us {
            return None;
        }
        let target = pos.board().piece_at(to);
        let m = match (piece.role, target) {
            (Role::King, Some(t)) if t.color == us && t.role == Role::Rook => Move::Castle {
                king: from,
                rook: to,
            },
            (Role::Pawn, None) if from.file() != to.file() => Move::EnPassant { from, to },
            _ => Move::Normal {
                role: piece.role,
                from,
                capture: target.filter(|t| t.color != us).map(|t| t.role),
                to,
                promotion: promo,
            },
        };
        // Castling and en passant carry no promotion: such a code is none
        // of this position's moves.
        if promo.is_some() && !matches!(m, Move::Normal { .. }) {
            return None;
        }
        crate::movegen::is_legal(pos, m).then_some(m)
    }

    /// The move as UCI text in this position's castling notation.
    pub fn uci(&self, m: Move) -> String {
        m.to_uci(self.castling_mode).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "unmake past the base position")]
    fn unmake_past_the_base_position_stops() {
        let mut pos = Position::default();
        pos.make_uci("e2e4").unwrap();
        pos.unmake();
        pos.unmake();
    }

    /// A tiny deterministic generator so the random games repeat exactly.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Every 16-bit code (from, to, promotion) decodes to a legal move or to
    /// none, and the legal moves are all there: what a key collision's move
    /// from another position meets.
    fn decodes_exactly_the_legal_moves(pos: &Position) {
        let mut decoded = Vec::new();
        for promotion in 0..=6u16 {
            for from_to in 0..4096u16 {
                if let Some(m) = pos.decode_move(promotion << 12 | from_to) {
                    decoded.push(pos.uci(m));
                }
            }
        }
        let mut legal: Vec<String> = pos
            .board()
            .legal_moves()
            .iter()
            .map(|&m| pos.uci(m))
            .collect();
        decoded.sort();
        legal.sort();
        assert_eq!(decoded, legal, "in {}", pos.fen());
    }

    fn random_games(start: &str, mode: CastlingMode, games: usize, seed: u64) {
        let mut rng = Rng(seed);
        for _ in 0..games {
            let mut pos = Position::from_fen(start, mode).unwrap();
            for _ in 0..200 {
                let moves = pos.board().legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[(rng.next() % moves.len() as u64) as usize];
                let before = pos.key();
                let check = pos.gives_check(m);
                // The shared lookups agree with the single-move answer for
                // every legal move here.
                let squares = pos.check_squares();
                for &other in &moves {
                    assert_eq!(
                        squares.gives_check(&pos, other),
                        pos.gives_check(other),
                        "check_squares {other:?} in {}",
                        pos.fen()
                    );
                }
                let predicted_key = pos.key_after(m);
                pos.make(m);
                assert_eq!(predicted_key, pos.key(), "key_after {m:?}");
                assert_eq!(check, pos.in_check(), "gives_check {m:?} in {}", pos.fen());
                assert_eq!(
                    pos.key(),
                    full_key(pos.board()),
                    "after {m:?} in {}",
                    pos.fen()
                );
                assert_eq!(
                    pos.structure_keys(),
                    full_structure_keys(pos.board()),
                    "structure keys after {m:?} in {}",
                    pos.fen()
                );
                // Encoding round-trips for every legal move.
                pos.unmake();
                assert_eq!(pos.key(), before);
                assert_eq!(pos.decode_move(Position::encode_move(m)), Some(m));
                if rng.next().is_multiple_of(64) {
                    decodes_exactly_the_legal_moves(&pos);
                }
                pos.make(m);
                if !pos.in_check() && rng.next().is_multiple_of(8) {
                    pos.make_null();
                    assert_eq!(pos.key(), full_key(pos.board()), "null in {}", pos.fen());
                    assert_eq!(pos.structure_keys(), full_structure_keys(pos.board()));
                    pos.unmake();
                }
            }
            assert!(pos.repetition_counts_consistent());
            while pos.height() > 1 {
                pos.unmake();
            }
            assert_eq!(pos.key(), full_key(pos.board()));
            assert_eq!(pos.structure_keys(), full_structure_keys(pos.board()));
            // Back at the base: exactly one count, for the base position.
            assert!(pos.repetition_counts_consistent());
            let total: u32 = pos
                .repetition_table()
                .counts()
                .iter()
                .map(|&c| u32::from(c))
                .sum();
            assert_eq!(total, 1);
        }
    }

    /// A game history that repeats one position 500 times saturates its
    /// counter; searching on (make and unmake over it) must neither drift
    /// the counter down nor hide the repetition. Before counters stuck at
    /// 255, each make there was lost and each unmake counted: the
    /// end-of-search invariant failed on such a `position ... moves` list.
    #[test]
    fn saturated_repetition_counter_stays_sound() {
        let mut pos = Position::default();
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for m in shuffle.iter().cycle().take(4 * 500) {
            pos.make_uci(m).unwrap();
        }
        let start = pos.key();
        let slot = |key: u64| key as usize & (REPETITION_TABLE_SIZE - 1);
        assert_eq!(pos.repetition_table().counts()[slot(start)], u8::MAX);
        assert!(pos.repetition_counts_consistent());
        // A search's worth of visits, each through the repeated cycle.
        for _ in 0..300 {
            for m in shuffle {
                pos.make_uci(m).unwrap();
            }
            assert!(pos.is_repetition(4), "the cycle just played repeats");
            for _ in shuffle {
                pos.unmake();
            }
        }
        assert_eq!(pos.key(), start);
        assert_eq!(pos.repetition_table().counts()[slot(start)], u8::MAX);
        assert!(pos.repetition_counts_consistent());
        assert!(pos.is_repetition(0), "three-fold in the game history");
    }

    #[test]
    fn incremental_key_matches_full_key_in_random_games() {
        random_games(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            CastlingMode::Standard,
            60,
            0x9e37_79b9_7f4a_7c15,
        );
        // Kiwipete: castling both ways, en passant, promotions soon.
        random_games(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            CastlingMode::Standard,
            60,
            12345,
        );
        // Promotion-heavy.
        random_games(
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            CastlingMode::Standard,
            40,
            777,
        );
    }

    #[test]
    fn incremental_key_in_chess960() {
        random_games(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            CastlingMode::Chess960,
            60,
            4242,
        );
    }

    #[test]
    fn polyglot_reference_keys() {
        let cases = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                0x463b96181691fc9c,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                0x22a48b5a8e47ff78,
            ),
        ];
        for (fen, key) in cases {
            assert_eq!(
                Position::from_fen(fen, CastlingMode::Standard)
                    .unwrap()
                    .key(),
                key
            );
        }
        // The same keys reached by playing the moves.
        let mut pos = Position::default();
        for m in ["e2e4", "d7d5", "e4e5", "f7f5"] {
            pos.make_uci(m).unwrap();
        }
        assert_eq!(pos.key(), 0x22a48b5a8e47ff78);
    }

    #[test]
    fn repetition_counter_exits_early_and_finds_repeats() {
        let mut pos = Position::default();
        assert!(!pos.is_repetition(0));
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            pos.make_uci(m).unwrap();
        }
        // Start position again: second occurrence, before a root at ply 0.
        assert!(
            !pos.is_repetition(0),
            "two-fold before the root is not yet a draw"
        );
        assert!(pos.is_repetition(4), "two-fold inside the tree is a draw");
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            pos.make_uci(m).unwrap();
        }
        assert!(pos.is_repetition(0), "three-fold");
        pos.make_uci("e2e4").unwrap();
        assert_eq!(pos.check_repetition(0), RepetitionCheck::New);
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(Position::from_fen("not a fen", CastlingMode::Standard).is_err());
        // Two white kings.
        assert!(
            Position::from_fen("8/8/8/8/8/8/8/KK5k w - - 0 1", CastlingMode::Standard).is_err()
        );
        let mut pos = Position::default();
        assert!(pos.make_uci("e2e5").is_err());
        assert!(pos.make_uci("zz").is_err());
        assert_eq!(pos.height(), 1);
    }
}
