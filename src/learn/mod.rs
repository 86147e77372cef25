//! The tools that make and use training data for the evaluation network:
//! `lasker datagen` (self-play), the data formats (`viriformat` games,
//! `trainingdata` records), and `lasker train`. None of this is on the
//! engine's search path.

pub mod datagen;
pub mod train;
pub mod trainingdata;
pub mod viriformat;
