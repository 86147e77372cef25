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
//! `strength` (`UCI_LimitStrength`: the node budget and the choice among
//! root moves of a weakened search) sits between `engine` and `search`.
//! `rng` is the one random generator (strength, openings, training).
//! `params` (the search's tunable numbers: margins, depths, factors, with
//! their ranges for SPSA) is a leaf that `search`, `history` and `timeman`
//! read.
//! `perft` and `bench` stand beside the search; so do `selfplay` (one
//! move's search to a node budget, as data generation plays) and `genfens`
//! (OpenBench's openings, which it asks of the engine). The tools that make
//! and use training data (datagen, the formats, the trainer, the WDL fit)
//! are a crate of their own, `tools/`, on this library.

pub mod bench;
pub mod build;
pub mod channel;
pub mod engine;
pub mod epd;
pub mod eval_cache;
pub mod evaluator;
pub mod genfens;
pub mod history;
pub mod huge_pages;
pub mod movegen;
pub mod movepick;
pub mod nnue;
pub mod params;
pub mod perft;
pub mod position;
pub mod rng;
pub mod score;
pub mod search;
pub mod see;
pub mod selfplay;
pub mod strength;
pub mod tablebase;
pub mod timeman;
pub mod tt;
pub mod uci;
pub mod wdl;
