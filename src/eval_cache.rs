//! A search thread's cache of static evaluations, by position key.
//!
//! The same position is often evaluated again: a transposition whose table
//! entry doesn't cut, a re-search after a null window or a reduction fails,
//! the next iteration. Evaluation is a quarter of the run time, a lookup a
//! single load.
//!
//! One `u64` a slot: the key's high 48 bits over the 16-bit score. The slot
//! is chosen by the key's low 16 bits, so a hit has matched all 64 bits.

const SLOTS: usize = 1 << 16;
const SCORE_BITS: u32 = 16;
const SCORE_MASK: u64 = (1 << SCORE_BITS) - 1;

pub struct EvalCache {
    slots: Box<[u64]>,
}

impl Default for EvalCache {
    fn default() -> Self {
        EvalCache {
            slots: vec![0; SLOTS].into_boxed_slice(),
        }
    }
}

impl EvalCache {
    /// The cached score of the position with `key`, if there is one.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<i32> {
        let slot = self.slots[key as usize & (SLOTS - 1)];
        (slot != 0 && (slot ^ key) & !SCORE_MASK == 0).then(|| i32::from(slot as u16 as i16))
    }

    #[inline]
    pub fn store(&mut self, key: u64, score: i32) {
        // Scores stay far inside i16 (all the material of a side is under
        // 20,000 centipawns); one that didn't would just not be cached.
        if let Ok(small) = i16::try_from(score) {
            self.slots[key as usize & (SLOTS - 1)] = (key & !SCORE_MASK) | u64::from(small as u16);
        }
    }

    pub fn clear(&mut self) {
        self.slots.fill(0);
    }
}
