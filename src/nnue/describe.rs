//! The text of the `eval` command: the net's score and what each piece is
//! worth to it.
//!
//! A piece's worth is the evaluation with it minus the evaluation without
//! it, both from White's side (kings are never taken off). It says what the
//! net makes of the piece where it stands: a knight on the rim is worth
//! less than one in the centre, a pawn about to queen more than one at
//! home. The worths need not add up to the evaluation: the net is not a sum
//! of pieces.

use shakmaty::{Board, Color, File, Rank, Role, Square};

use super::Network;
use crate::score::normalised_cp;

/// A score for the side to move, `turn`, seen from White's side.
fn white_view(score: i32, turn: Color) -> i32 {
    if turn == Color::White { score } else { -score }
}

/// The net's evaluation for White of `board` with `turn` to move.
fn for_white(net: &Network, board: &Board, turn: Color) -> i32 {
    white_view(net.evaluate_board(board, turn), turn)
}

/// Each piece but the kings with its worth to White in centipawns, by
/// square.
pub fn piece_worths(net: &Network, board: &Board, turn: Color) -> Vec<(Square, i32)> {
    let whole = for_white(net, board, turn);
    board
        .occupied()
        .into_iter()
        .filter(|&sq| board.role_at(sq) != Some(Role::King))
        .map(|sq| {
            let mut without = board.clone();
            without.discard_piece_at(sq);
            (sq, whole - for_white(net, &without, turn))
        })
        .collect()
}

/// The `eval` command's lines: the score, then the board with each piece's
/// worth under it.
///
/// Scores are shown as UCI shows them, in normalised centipawns
/// (`score::normalised_cp`: 100 is a 50% chance to win).
pub fn describe(net: &Network, board: &Board, turn: Color) -> String {
    let score = normalised_cp(net.evaluate_board(board, turn));
    let white = white_view(score, turn);
    let worths = piece_worths(net, board, turn);
    let worth_at = |sq: Square| worths.iter().find(|(s, _)| *s == sq).map(|&(_, w)| w);
    let rule = format!("   {}+\n", "+------".repeat(8));
    let mut text = String::from(
        "Each piece's worth to White in cp (100: a 50% chance to win): the net's evaluation minus its evaluation without the piece\n",
    );
    text.push_str(&rule);
    for rank in Rank::ALL.into_iter().rev() {
        let mut pieces = format!(" {} ", rank.char());
        let mut values = String::from("   ");
        for file in File::ALL {
            let sq = Square::from_coords(file, rank);
            let symbol = board.piece_at(sq).map_or(' ', |p| p.char());
            pieces.push_str(&format!("|   {symbol}  "));
            match worth_at(sq) {
                Some(w) => values.push_str(&format!("|{:^+6}", normalised_cp(w))),
                None => values.push_str("|      "),
            }
        }
        text.push_str(&format!("{pieces}|\n{values}|\n{rule}"));
    }
    text.push_str("      a      b      c      d      e      f      g      h\n");
    text.push_str(&format!(
        "NNUE evaluation: {score} cp for the side to move ({white} cp for White)"
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position as _};

    fn board(fen: &str) -> (Board, Color) {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        (pos.board().clone(), pos.turn())
    }

    /// Every piece but the kings gets a worth, and a queen is worth more to
    /// its side than a pawn.
    #[test]
    fn every_piece_but_the_kings_has_a_worth() {
        let net = nnue::embedded();
        let (b, turn) = board("4k3/8/8/3q4/8/8/3P4/3QK3 w - - 0 1");
        let worths = piece_worths(&net, &b, turn);
        let at = |s: Square| worths.iter().find(|(sq, _)| *sq == s).unwrap().1;
        assert_eq!(worths.len(), 3);
        assert!(at(Square::D1) > at(Square::D2), "{worths:?}");
        assert!(
            at(Square::D5) < 0,
            "Black's queen is worth less than nothing to White"
        );
    }

    #[test]
    fn the_text_shows_the_board_and_the_score() {
        let net = nnue::embedded();
        let (b, turn) = board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let text = describe(&net, &b, turn);
        let score = normalised_cp(net.evaluate_board(&b, turn));
        assert!(text.ends_with(&format!(
            "{score} cp for the side to move ({} cp for White)",
            -score
        )));
        assert!(text.contains(" 8 |   r  |   n  |"), "{text}");
        assert_eq!(
            text.lines().filter(|l| l.starts_with("   +------")).count(),
            9
        );
    }
}
