//! Lasker's tools: what makes and uses training data for the evaluation
//! network, on the engine's library (`lasker`), apart from the engine
//! binary, whose hot path they are not on.
//!
//! - `datagen`: self-play games (`lasker-tools datagen`), each move's search
//!   the engine's `selfplay::search`;
//! - the formats: `viriformat` games (what datagen writes), `trainingdata`
//!   records (bulletformat's 32-byte boards), `pgn` games with engine
//!   scores; `data` reads any of them for training and converts between
//!   them (`lasker-tools convert`);
//! - `train`: the trainer (`lasker-tools train`), which writes nets the
//!   engine loads;
//! - `judge`: nets against an outside judge, Stockfish's scores of other
//!   engines' games (`lasker-tools judge`);
//! - `wdl_fit`: the win/draw/loss model of `UCI_ShowWDL`, fitted to
//!   self-play (`lasker-tools fit-wdl`).

pub mod data;
pub mod datagen;
pub mod judge;
pub mod pgn;
pub mod train;
pub mod trainingdata;
pub mod viriformat;
pub mod wdl_fit;

#[cfg(test)]
mod test_support {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess};

    /// The board of a FEN the test knows is good.
    pub fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }
}
