//! The `position` command: the board the GUI sets, read the way the GUI
//! meant it.
//!
//! A GUI that sends `position` plays the next `go`'s move on the board it
//! has, so the engine must never keep an older one. What it can read, it
//! reads as Stockfish and python-chess do, saying in an `info string` what
//! it changed: castling rights the board contradicts (`KQkq` after the king
//! moved, as hand-edited FENs and some GUIs send) are dropped; a FEN whose
//! castling rights only Chess960 can mean (Shredder-FEN letters, or a
//! Chess960 start: a king off the e-file at move 1) is played as Chess960;
//! a move list is played up to its first illegal move. What it can't read (a FEN that is no FEN, a board with no
//! king) leaves no position at all: the next `go` answers `bestmove 0000`.

use shakmaty::fen::Fen;
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, File, PositionError, PositionErrorKinds,
    Role,
};

use crate::channel::excerpt;
use crate::position::Position;

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// What `position` made of its arguments.
pub(super) struct Setup {
    /// The board to search from (`None`: the GUI's board can't be known).
    pub position: Option<Position>,
    /// What was changed or left out, one `info string` each.
    pub notes: Vec<String>,
}

/// Reads `position startpos|fen <FEN> [moves <m1> ...]` (`args`: after
/// `position`), with castling moves in `mode` unless the FEN is Chess960's.
pub(super) fn read(args: &[&str], mode: CastlingMode) -> Setup {
    let moves_at = args.iter().position(|&t| t == "moves");
    let (board, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &args[args.len()..]),
    };
    let mut notes = Vec::new();
    let start = match board.split_first() {
        Some((&"startpos", [])) => read_fen(START_FEN, mode, &mut notes),
        Some((&"fen", fen)) if !fen.is_empty() => read_fen(&fen.join(" "), mode, &mut notes),
        _ => Err(format!(
            "expected 'position startpos|fen <fen> [moves ...]', got 'position {}'",
            excerpt(&args.join(" "))
        )),
    };
    let mut position = match start {
        Ok(p) => p,
        Err(e) => {
            notes.push(format!("error: {e}; no position until the next valid one"));
            return Setup {
                position: None,
                notes,
            };
        }
    };
    for (i, m) in moves.iter().enumerate() {
        if let Err(e) = position.make_uci(m) {
            let ignored = moves.len() - i;
            notes.push(format!(
                "error: {e}; playing from the position before it ({ignored} move{} ignored)",
                if ignored == 1 { "" } else { "s" }
            ));
            break;
        }
    }
    Setup {
        position: Some(position),
        notes,
    }
}

/// Reads a FEN for play: castling rights the board contradicts are
/// dropped, a Chess960 FEN is read as Chess960, an impossible en passant
/// square is left out, each with a note. Boards the move generator can't
/// play (no king, pawns on the back rank, the side not to move in check)
/// are refused.
fn read_fen(text: &str, mode: CastlingMode, notes: &mut Vec<String>) -> Result<Position, String> {
    let text = text.trim();
    let fen: Fen = text
        .parse()
        .map_err(|e| format!("invalid FEN '{}': {e}", excerpt(text)))?;
    let mut mode = mode;
    if mode == CastlingMode::Standard && is_chess960(&fen, castling_field(text)) {
        notes.push(format!(
            "castling rights '{}' are Chess960's: playing this game as Chess960",
            castling_field(text)
        ));
        mode = CastlingMode::Chess960;
    }
    let read: Result<Chess, _> = fen.clone().into_position(mode);
    if let Err(e) = &read
        && e.kinds().contains(PositionErrorKinds::INVALID_EP_SQUARE)
    {
        notes.push("the en passant square is impossible here: left out".into());
    }
    let board = read
        .or_else(PositionError::ignore_impossible_check)
        .or_else(PositionError::ignore_too_much_material)
        .or_else(PositionError::ignore_invalid_ep_square)
        .or_else(PositionError::ignore_invalid_castling_rights)
        .map_err(|e| format!("impossible position '{}': {e}", excerpt(text)))?;
    let kept = Fen::from_position(&board, EnPassantMode::Legal).to_string();
    let (given, read) = (castling_field(text), castling_field(&kept));
    if fen.as_setup().castling_rights != shakmaty::Position::castles(&board).castling_rights() {
        notes.push(format!(
            "castling rights '{given}' don't match the board: read as '{read}'"
        ));
    }
    Ok(Position::from_chess(board, mode))
}

/// The castling field of a FEN ("-" where it has none).
fn castling_field(fen: &str) -> &str {
    fen.split_whitespace().nth(2).unwrap_or("-")
}

/// Are a FEN's castling rights Chess960's, not stale standard ones? They
/// are if Chess960 reads every right as valid where standard chess does
/// not, and either they name rook files (Shredder-FEN, X-FEN), or it is
/// the first move and a king that may castle stands off the e-file: a
/// Chess960 start, as GUIs send one with the game's moves after it. Later
/// in a game, `KQkq` with the king off e1 is a standard game's stale
/// rights (its king moved), and they are dropped.
fn is_chess960(fen: &Fen, castling: &str) -> bool {
    let setup = fen.as_setup();
    if setup.castling_rights.is_empty() {
        return false;
    }
    let valid_in = |mode| {
        shakmaty::Castles::from_setup(setup, mode)
            .is_ok_and(|c| c.castling_rights() == setup.castling_rights)
    };
    if valid_in(CastlingMode::Standard) || !valid_in(CastlingMode::Chess960) {
        return false;
    }
    let letters = castling
        .chars()
        .any(|c| !matches!(c, 'K' | 'Q' | 'k' | 'q' | '-'));
    let king_off_e_file = Color::ALL.into_iter().any(|color| {
        let rights: Bitboard = setup.castling_rights & color.backrank();
        let king = (setup.board.by_color(color) & setup.board.by_role(Role::King)).first();
        !rights.is_empty() && king.is_some_and(|k| k.file() != File::E)
    });
    letters || (king_off_e_file && setup.fullmoves.get() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(line: &str) -> Setup {
        let args: Vec<&str> = line.split_whitespace().collect();
        read(&args, CastlingMode::Standard)
    }

    fn fen_of(s: &Setup) -> String {
        s.position.as_ref().expect("a position").fen()
    }

    #[test]
    fn a_plain_position_is_read_without_notes() {
        let s = setup("startpos moves e2e4 e7e5 g1f3");
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        assert_eq!(
            fen_of(&s),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
        );
    }

    #[test]
    fn castling_rights_the_board_contradicts_are_dropped() {
        // The white king has left e1; the black h-rook is gone.
        let s = setup("fen rnbqkbn1/pppppppp/8/8/8/8/PPPPKPPP/RNBQ1BNR w KQkq - 0 1");
        assert_eq!(
            fen_of(&s),
            "rnbqkbn1/pppppppp/8/8/8/8/PPPPKPPP/RNBQ1BNR w q - 0 1"
        );
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        assert!(s.notes[0].contains("'KQkq'") && s.notes[0].contains("'q'"));
    }

    #[test]
    fn a_chess960_fen_is_played_as_chess960() {
        // The king on f1 castles short by taking its g1 rook (Chess960's
        // notation); in standard notation f1g1 is no move.
        let s = setup("fen 4k3/8/8/8/8/8/8/1R3KR1 w GB - 0 1 moves f1g1");
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        assert!(s.notes[0].contains("'GB'") && s.notes[0].contains("Chess960"));
        assert!(
            fen_of(&s).starts_with("4k3/8/8/8/8/8/8/1R3RK1 b "),
            "{}",
            fen_of(&s)
        );
        // X-FEN's KQkq with the king off the e-file means the outermost
        // rooks.
        let s = setup("fen rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1");
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        assert!(s.notes[0].contains("Chess960"));
        // Later in a game, a king off the e-file with KQ rights is a
        // standard game's king that moved: the rights go.
        let s = setup("fen r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 4 20");
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        assert!(s.notes[0].contains("read as 'kq'"), "{:?}", s.notes);
    }

    #[test]
    fn a_move_list_is_played_up_to_its_first_illegal_move() {
        let s = setup("startpos moves e2e4 e7e5 e4e5 g1f3");
        assert_eq!(
            fen_of(&s),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        assert_eq!(s.notes.len(), 1);
        assert!(s.notes[0].contains("e4e5") && s.notes[0].contains("2 moves ignored"));
        let s = setup("startpos moves zz");
        assert!(s.notes[0].contains("zz"));
        assert_eq!(fen_of(&s), START_FEN);
    }

    #[test]
    fn an_unreadable_fen_leaves_no_position() {
        for line in [
            "fen 8/8 w",
            "fen 8/8/8/8/8/8/8/KK5k w - - 0 1",
            "fen 4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
            "fen",
            "",
            "startpos e2e4",
            "fen 8/8/8/8/8/8/8/8 w - - 0 1 moves e2e4",
        ] {
            let s = setup(line);
            assert!(s.position.is_none(), "'position {line}' gave a position");
            assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
            assert!(s.notes[0].starts_with("error: "));
        }
    }

    #[test]
    fn an_impossible_en_passant_square_is_left_out() {
        let s = setup("fen 4k3/8/8/8/8/8/8/4K3 w - e6 0 1");
        assert_eq!(fen_of(&s), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
    }
}
