//! `lasker-tools train`: trains the evaluation network on self-play data (any of
//! the formats `data` reads, filtered as they load), on the CPU, and exports
//! it quantised for the engine (`nnue`).
//!
//! The net is the engine's shape (`nnue::Shape`) in f32, `model`: 128
//! wide with one input and one output bucket unless `--input-buckets`,
//! `--hidden` and `--output-buckets` say otherwise. A batch's gradient is
//! computed with the hidden layer split over the threads, each thread
//! taking every position on its columns (`batch`); AdamW then updates
//! every weight, with a cosine learning-rate schedule over the epochs
//! (`optimiser`).
//! Weights are clipped to ±1.98 so that the quantised net can't overflow
//! (`simd`).
//!
//! Each epoch ends with the validation loss on held-out games, a
//! checkpoint (float weights and the optimiser's moments: `--resume`
//! continues from it; `checkpoint`) and the quantised net
//! `net-<epoch>.nnue`.
//!
//! Files: `config` (arguments), `model` (the float net, one position's
//! forward pass, quantisation), `batch` (a batch's gradient), `optimiser`,
//! `checkpoint`, `augment` (mirrored positions), and the run loop here.

mod augment;
mod batch;
mod checkpoint;
mod config;
mod model;
mod optimiser;
#[cfg(test)]
mod tests;

use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

pub use augment::mirrored;
pub use config::{Config, USAGE};
pub use lasker::nnue::Shape;
pub use model::Trainer;

use crate::data;
use lasker::nnue::Network;
use lasker::rng::Rng;
use optimiser::learning_rate;

/// Loads the data, splits off the validation games, trains, and writes a
/// checkpoint and a net each epoch. Returns the last validation loss.
pub fn run(config: &Config) -> Result<f32, String> {
    let mut records = Vec::new();
    for path in &config.data {
        let loaded = data::load(path)?;
        eprintln!("{}", loaded.summary(path));
        if let Some(warning) = &loaded.warning {
            eprintln!("warning: {warning}");
        }
        records.extend(loaded.records);
    }
    if !config.keep_duplicates {
        let before = records.len();
        let removed = data::remove_duplicates(&mut records);
        eprintln!(
            "duplicates: {removed} of {before} positions dropped (a position's first record kept)"
        );
    }
    // The last records (the last games of the last file) are kept apart
    // from the training ones; without duplicates none of them is also a
    // training position.
    let held_out = config.held_out(records.len());
    if records.len() <= held_out + config.batch.min(records.len() / 2) {
        return Err(format!(
            "{} positions are too few to train on",
            records.len()
        ));
    }
    let validation = records.split_off(records.len() - held_out);
    let train = records;
    fs::create_dir_all(&config.out).map_err(|e| format!("{}: {e}", config.out.display()))?;
    let load = |flag: &str, net: &Path| {
        Network::load(net).map_err(|e| format!("{flag} {}: {}", net.display(), e.0))
    };
    let (mut trainer, from) = match (&config.resume, &config.init, &config.grow) {
        (Some(path), _, _) => (Trainer::load_checkpoint(path)?, "--resume"),
        (None, Some(net), _) => (Trainer::from_network(&load("--init", net)?), "--init"),
        (None, None, Some(net)) => {
            let small = load("--grow", net)?;
            let grown = Trainer::grown_from(&small, config.shape, config.seed)
                .map_err(|e| format!("--grow {}: {e}", net.display()))?;
            (grown, "--grow")
        }
        (None, None, None) => (Trainer::new(config.seed, config.shape), ""),
    };
    if trainer.shape() != config.shape {
        return Err(format!(
            "{from} is a net {}, but --input-buckets {} --hidden {} --output-buckets {} asks for one {}: give the same shape",
            trainer.shape(),
            config.shape.input_buckets.count(),
            config.shape.hidden,
            config.shape.output_buckets,
            config.shape
        ));
    }
    // Mirroring a position changes none of its inputs where the input
    // buckets mirror the board already.
    let mirror = config.mirror && !trainer.shape().input_buckets.mirrors();
    eprintln!(
        "training on {} positions, validating on {}, a net {} ({} parameters), mirroring {}, epochs {}..{}, {} threads",
        train.len(),
        validation.len(),
        trainer.shape(),
        trainer.parameters(),
        if mirror { "on" } else { "off" },
        trainer.epoch + 1,
        config.epochs,
        config.threads
    );
    let mut grad = vec![0.0f32; trainer.layout.params];
    let batches = train.len() / config.batch;
    let mut last = trainer.loss(&validation, config.objective(), config.threads);
    eprintln!("epoch {} validation loss {last:.6}", trainer.epoch);
    let mut log = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(config.out.join("log.txt"))
        .map_err(|e| format!("log: {e}"))?;
    let mut batch = Vec::with_capacity(config.batch);
    let last_epoch = config
        .stop_after
        .unwrap_or(config.epochs)
        .min(config.epochs);
    while trainer.epoch < last_epoch {
        let epoch = trainer.epoch + 1;
        // The epoch's order depends only on the seed and the epoch, so a
        // resumed run sees the batches the interrupted one would have.
        let mut order: Vec<u32> = (0..train.len() as u32).collect();
        let mut rng = Rng::with_stream(config.seed, epoch as u64);
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let start = Instant::now();
        let mut shown = Instant::now();
        let mut running = 0.0f32;
        for b in 0..batches {
            let progress = ((epoch - 1) as f32 + b as f32 / batches as f32) / config.epochs as f32;
            let lr = learning_rate(config, progress);
            batch.clear();
            let indices = &order[b * config.batch..(b + 1) * config.batch];
            batch.extend(indices.iter().map(|&i| {
                let record = train[i as usize];
                if mirror && rng.next_u64() & 1 == 1 {
                    mirrored(&record)
                } else {
                    record
                }
            }));
            running += trainer.train_batch(&batch, config, lr, &mut grad);
            if shown.elapsed().as_secs_f32() >= 5.0 || b + 1 == batches {
                shown = Instant::now();
                eprintln!(
                    "epoch {epoch} batch {}/{batches} loss {:.6} lr {lr:.6} {:.0} pos/s",
                    b + 1,
                    running / (b + 1) as f32,
                    ((b + 1) * config.batch) as f64 / start.elapsed().as_secs_f64()
                );
            }
        }
        trainer.epoch = epoch;
        last = trainer.loss(&validation, config.objective(), config.threads);
        let seconds = start.elapsed().as_secs_f64();
        let line = format!(
            "epoch {epoch} train loss {:.6} validation loss {last:.6} time {seconds:.1} s ({:.0} pos/s)",
            running / batches.max(1) as f32,
            (batches * config.batch) as f64 / seconds
        );
        eprintln!("{line}");
        writeln!(log, "{line}").map_err(|e| format!("log: {e}"))?;
        trainer
            .save_checkpoint(&config.out.join("checkpoint.bin"))
            .map_err(|e| format!("checkpoint: {e}"))?;
        fs::write(
            config.out.join(format!("net-{epoch}.nnue")),
            trainer.quantise().to_bytes(),
        )
        .map_err(|e| format!("net: {e}"))?;
    }
    Ok(last)
}
