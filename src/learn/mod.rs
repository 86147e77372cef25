//! The tools that make and use training data for the evaluation network:
//! `lasker datagen` (self-play), the data formats (`viriformat` games,
//! `trainingdata` records, `pgn` games with engine scores; `data` reads any
//! of them for training and converts between them), `lasker train`, and
//! `genfens`, the openings of OpenBench's data generation, and `wdl_fit`
//! (`lasker fit-wdl`, the win/draw/loss model fitted to self-play).
//! None of this is on the engine's search path.

pub mod data;
pub mod datagen;
pub mod genfens;
pub mod pgn;
pub mod train;
pub mod trainingdata;
pub mod viriformat;
pub mod wdl_fit;
