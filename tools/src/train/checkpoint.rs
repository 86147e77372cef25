//! Checkpoints: the float weights and the optimiser's state, written each
//! epoch so that `--resume` continues a run where it stopped (a session
//! ends, a machine goes away).
//!
//! The magic, then u64 words, then the parameters and Adam's two moments
//! as f32. Version 1 (128 wide, one output): the width, the step and the
//! epoch. Version 2: the width, the output buckets, the step and the
//! epoch. Version 3: the input buckets, the width, the output buckets, the
//! step and the epoch.

use std::fs;
use std::path::Path;

use super::model::{Layout, Trainer};
use lasker::nnue::{InputBuckets, Shape};

const MAGIC_V1: &[u8; 8] = b"LKTRAIN1";
const MAGIC_V2: &[u8; 8] = b"LKTRAIN2";
const MAGIC: &[u8; 8] = b"LKTRAIN3";

impl Trainer {
    pub fn save_checkpoint(&self, path: &Path) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(48 + self.layout.params * 12);
        bytes.extend_from_slice(MAGIC);
        let words = [
            self.shape.input_buckets.count() as u64,
            self.shape.hidden as u64,
            self.shape.output_buckets as u64,
            self.step,
            self.epoch as u64,
        ];
        for w in words {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        for x in self.params.iter().chain(&self.m).chain(&self.v) {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        // Written aside and renamed: a kill mid-write leaves the old one.
        let partial = path.with_extension("partial");
        fs::write(&partial, &bytes)?;
        fs::rename(&partial, path)
    }

    pub fn load_checkpoint(path: &Path) -> Result<Trainer, String> {
        let bytes = fs::read(path).map_err(|e| format!("can't read {}: {e}", path.display()))?;
        let not_one = || format!("{} is not a checkpoint of this trainer", path.display());
        let magic = bytes.get(..8).ok_or_else(not_one)?;
        let words = match magic {
            m if m == MAGIC_V1 => 3,
            m if m == MAGIC_V2 => 4,
            m if m == MAGIC => 5,
            _ => return Err(not_one()),
        };
        let header = 8 + 8 * words;
        let word = |i: usize| {
            bytes
                .get(8 + 8 * i..16 + 8 * i)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
                .ok_or_else(not_one)
        };
        let shape = match words {
            3 => Shape {
                hidden: word(0)? as usize,
                ..Shape::default()
            },
            4 => Shape {
                hidden: word(0)? as usize,
                output_buckets: word(1)? as usize,
                ..Shape::default()
            },
            _ => Shape {
                input_buckets: InputBuckets::new(word(0)? as usize).ok_or_else(not_one)?,
                hidden: word(1)? as usize,
                output_buckets: word(2)? as usize,
            },
        };
        shape
            .check()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let (step, epoch) = (word(words - 2)?, word(words - 1)? as usize);
        let l = Layout::of(shape);
        if bytes.len() != header + l.params * 12 {
            return Err(format!(
                "{}: {} bytes, not those of a checkpoint of a net {shape}",
                path.display(),
                bytes.len()
            ));
        }
        let floats: Vec<f32> = bytes[header..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
            .collect();
        Ok(Trainer {
            shape,
            layout: l,
            params: floats[..l.params].to_vec(),
            m: floats[l.params..2 * l.params].to_vec(),
            v: floats[2 * l.params..].to_vec(),
            step,
            epoch,
        })
    }
}
