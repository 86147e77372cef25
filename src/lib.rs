//! Lasker, a UCI chess engine.
//!
//! Dependencies run one way: `uci` → `engine` → `search` → `movepick`
//! (with `movegen`, `see` and `history`, the move histories), `evaluator`
//! → `eval_cache` and `nnue`, `tt` (on `huge_pages`), `timeman`,
//! `tablebase` (Syzygy probes, which knows nothing of scores), `score` (the
//! score scale both `search` and `tt` speak), `wdl` (the win/draw/loss
//! chances of a score, for `UCI_ShowWDL`), and
//! everything sits on `position`, the wrapper over
//! shakmaty that keeps the incremental key and the repetition counters.
//! `strength` (`UCI_LimitStrength`: a level's node budget and its choice
//! among root moves) sits below `search`, whose request carries a level,
//! on `timeman` and `score`; `engine` applies it.
//! `rng` is the one random generator (strength, openings, training).
//! `params` (the search's tunable numbers: margins, depths, factors, with
//! their ranges for SPSA) is a leaf that `search`, `history` and `timeman`
//! read.
//! `perft` and `bench` stand beside the search; so do `selfplay` (one
//! move's search to a node budget, as data generation plays) and `genfens`
//! (OpenBench's openings, which it asks of the engine). The tools that make
//! and use training data (datagen, the formats, the trainer, the WDL fit,
//! the judge) are a crate of their own, `tools/`, on this library.
//!
//! Modules that neither the binary, the tools nor the tests and benches
//! need are `pub(crate)`, so that the compiler reports what in them is
//! unused.

pub mod bench;
pub mod build;
pub mod channel;
pub mod engine;
pub(crate) mod epd;
pub(crate) mod eval_cache;
pub(crate) mod evaluator;
pub(crate) mod genfens;
pub(crate) mod history;
pub(crate) mod huge_pages;
pub(crate) mod movegen;
pub(crate) mod movepick;
pub mod nnue;
pub mod params;
pub mod perft;
pub mod position;
pub mod rng;
pub mod score;
pub mod search;
pub(crate) mod see;
pub mod selfplay;
pub(crate) mod strength;
pub mod tablebase;
pub mod timeman;
pub mod tt;
pub mod uci;
pub mod wdl;
