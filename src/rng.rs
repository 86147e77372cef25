//! The engine's one random generator: SplitMix64, small, fast, seedable and
//! plenty for choosing moves (`strength`), openings (`genfens`, the tools'
//! `datagen`), training batches (the tools' `train`) and test keys. Not for
//! anything secret.

use std::hash::BuildHasher;
use std::time::SystemTime;

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// Stream `stream` of `seed` (a thread's, an epoch's): streams of one
    /// seed never overlap in practice. Stream 0 is `new(seed)`.
    pub fn with_stream(seed: u64, stream: u64) -> Rng {
        Rng(seed ^ stream.wrapping_mul(0xA076_1D64_78BD_642F))
    }

    /// Seeded from the process's hash keys (random per process) and the
    /// time: a different sequence on every run.
    pub fn from_entropy() -> Rng {
        let state = std::collections::hash_map::RandomState::new();
        Rng(state.hash_one(SystemTime::now()))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// SplitMix64's finaliser: every input bit moves every output bit, so
/// that nearby inputs give unrelated outputs (the generator's step, and a
/// hash of values that are already well spread, such as boards).
pub fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_and_streams_repeat_and_differ() {
        let take = |mut r: Rng| (0..4).map(|_| r.next_u64()).collect::<Vec<_>>();
        assert_eq!(take(Rng::new(7)), take(Rng::new(7)));
        assert_eq!(take(Rng::with_stream(7, 0)), take(Rng::new(7)));
        assert_ne!(take(Rng::with_stream(7, 1)), take(Rng::new(7)));
        assert_ne!(take(Rng::new(8)), take(Rng::new(7)));
        // SplitMix64's published first output for seed 0.
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        let mut r = Rng::new(3);
        let mut seen = [false; 5];
        for _ in 0..200 {
            seen[r.below(5)] = true;
        }
        assert!(seen.iter().all(|&s| s), "every value of 0..5 comes up");
    }
}
