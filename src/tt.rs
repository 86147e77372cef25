//! The transposition table: one table shared by all search threads, without
//! locks.
//!
//! Layout: buckets of four 16-byte entries, one bucket per 64-byte cache
//! line, so a probe touches one line. The bucket is chosen by the high bits
//! of the key (multiply-high, which spreads keys over any number of buckets).
//!
//! Lock-free: an entry is two `AtomicU64` words, `key ^ data` and `data`
//! (Hyatt and Mann's lockless hashing). Two threads may write the same entry
//! at once and leave words from different writes; then `word0 ^ word1` is not
//! the probing key and the entry is ignored: a torn entry is never trusted.
//! All accesses are relaxed atomics, so there is no data race; the one
//! `unsafe` is the cache prefetch hint (`prefetch`), which reads nothing.
//!
//! Data word: move (16) | score (16) | depth (8) | generation (8) |
//! bound (2) | pieces (6) | unused (8).
//!
//! Replacement in a full bucket: the entry of the same position, else an
//! empty one, else one that can't be reached again (more pieces than the
//! root: pieces never come back), else the one with the lowest
//! `depth - params::tt_age_plies() * age`, so deep entries live long but stale ones go.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use crate::huge_pages;
use crate::params;
use crate::score::TB_WIN_BOUND;

pub const ENTRIES_PER_BUCKET: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is at most this (all moves failed low).
    Upper = 1,
    /// The score is at least this (a move failed high).
    Lower = 2,
    Exact = 3,
}

impl Bound {
    /// What a search result `best` proves, for a node searched with
    /// `alpha` (before any move raised it) and `beta`.
    pub fn of_result(best: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    fn from_bits(b: u64) -> Option<Bound> {
        match b {
            1 => Some(Bound::Upper),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Exact),
            _ => None,
        }
    }
}

/// A decoded entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// 16-bit move code (`Position::encode_move`), 0 for none.
    pub mv: u16,
    /// Score relative to the node (mates counted from the node).
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
    pub generation: u8,
    pub pieces: u8,
}

impl TtEntry {
    /// Does this entry decide the node without a search? Only if it is deep
    /// enough and its bound proves the cutoff for the window.
    pub fn cuts(&self, depth: i32, alpha: i32, beta: i32) -> bool {
        self.depth >= depth
            && match self.bound {
                Bound::Exact => true,
                Bound::Lower => self.score >= beta,
                Bound::Upper => self.score <= alpha,
            }
    }

    fn pack(&self) -> u64 {
        u64::from(self.mv)
            | (u64::from(self.score as i16 as u16) << 16)
            | (u64::from(self.depth.clamp(0, 255) as u8) << 32)
            | (u64::from(self.generation) << 40)
            | ((self.bound as u64) << 48)
            | (u64::from(self.pieces & 63) << 50)
    }

    fn unpack(data: u64) -> Option<TtEntry> {
        Some(TtEntry {
            mv: data as u16,
            score: i32::from((data >> 16) as u16 as i16),
            depth: i32::from((data >> 32) as u8),
            generation: (data >> 40) as u8,
            bound: Bound::from_bits((data >> 48) & 3)?,
            pieces: ((data >> 50) & 63) as u8,
        })
    }
}

/// Mates and tablebase wins are stored relative to the node (distance from
/// it, not from the root), so that an entry stays true wherever the
/// position recurs, in this search or another.
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score + ply as i32
    } else if score <= -TB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score back relative to the root, for a node `ply` plies from it.
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score - ply as i32
    } else if score <= -TB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[derive(Default)]
struct Slot {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    slots: [Slot; ENTRIES_PER_BUCKET],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

/// The replacement rules, each of which can be switched off to measure what
/// it is worth (`with_policy`, in builds with `--features ablation`; all on
/// in play, and fixed so in every other build).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplacementPolicy {
    /// Entries with more pieces than the root go first.
    pub unreachable_first: bool,
    /// Entries of earlier searches lose `params::tt_age_plies` of depth per
    /// search.
    pub aging: bool,
    /// Among the rest, the shallowest goes (else the first slot found).
    pub depth_preferred: bool,
}

impl ReplacementPolicy {
    /// Every rule on: the table as it plays.
    pub const ALL: ReplacementPolicy = ReplacementPolicy {
        unreachable_first: true,
        aging: true,
        depth_preferred: true,
    };
}

impl Default for ReplacementPolicy {
    fn default() -> Self {
        ReplacementPolicy::ALL
    }
}

pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: AtomicU8,
    root_pieces: AtomicU8,
    /// The experiments' knobs (`--features ablation` only; every other
    /// build verifies the whole key and applies every rule, as constants).
    #[cfg(feature = "ablation")]
    experiment: Experiment,
}

/// What the table's experiments change (`with_check_bits`, `with_policy`).
#[cfg(feature = "ablation")]
struct Experiment {
    /// Bits of the key that a probe verifies (all 64 unless narrowed).
    check_mask: u64,
    /// Probes that matched an entry stored under another full key (a
    /// type-1 error let through by a narrow check).
    false_hits: AtomicU64,
    policy: ReplacementPolicy,
}

/// Why the table could not be resized.
#[derive(Debug)]
pub struct AllocError {
    pub megabytes: usize,
}

impl std::fmt::Display for AllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "can't allocate {} MB for the hash table", self.megabytes)
    }
}

impl TranspositionTable {
    /// A table of `megabytes` MB; 0 gives a table that stores nothing (for
    /// measuring the search without one).
    pub fn new(megabytes: usize) -> Result<Self, AllocError> {
        let mut tt = TranspositionTable {
            buckets: Vec::new(),
            generation: AtomicU8::new(0),
            root_pieces: AtomicU8::new(32),
            #[cfg(feature = "ablation")]
            experiment: Experiment {
                check_mask: u64::MAX,
                false_hits: AtomicU64::new(0),
                policy: ReplacementPolicy::ALL,
            },
        };
        tt.resize(megabytes)?;
        Ok(tt)
    }

    /// Resizes; on failure the old table stays as it was.
    pub fn resize(&mut self, megabytes: usize) -> Result<(), AllocError> {
        let count = megabytes.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>();
        let mut fresh: Vec<Bucket> = Vec::new();
        fresh
            .try_reserve_exact(count)
            .map_err(|_| AllocError { megabytes })?;
        // Huge pages where the system gives them (`huge_pages`), asked for
        // before the pages are touched. Only now let the old table go, then
        // touch the new pages so that resident memory matches the setting
        // from the start.
        huge_pages::advise(fresh.as_ptr(), count * std::mem::size_of::<Bucket>());
        self.buckets = Vec::new();
        fresh.resize_with(count, Bucket::default);
        self.buckets = fresh;
        Ok(())
    }

    /// Experiment only: verify just the low `bits` bits of the key, to
    /// count the type-1 errors a narrower check would let through.
    #[cfg(feature = "ablation")]
    pub fn with_check_bits(mut self, bits: u32) -> Self {
        self.experiment.check_mask = if bits >= 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        self
    }

    /// Experiment only: switch replacement rules off.
    #[cfg(feature = "ablation")]
    pub fn with_policy(mut self, policy: ReplacementPolicy) -> Self {
        self.experiment.policy = policy;
        self
    }

    /// The bits of the key a probe verifies: all of them, but in an
    /// experiment.
    #[inline(always)]
    fn check_mask(&self) -> u64 {
        #[cfg(feature = "ablation")]
        {
            self.experiment.check_mask
        }
        #[cfg(not(feature = "ablation"))]
        {
            u64::MAX
        }
    }

    /// The replacement rules: all of them, but in an experiment.
    #[inline(always)]
    fn policy(&self) -> ReplacementPolicy {
        #[cfg(feature = "ablation")]
        {
            self.experiment.policy
        }
        #[cfg(not(feature = "ablation"))]
        {
            ReplacementPolicy::ALL
        }
    }

    /// The address of the middle bucket (`huge_pages`' test).
    #[cfg(all(
        test,
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    pub(crate) fn middle_address(&self) -> usize {
        &self.buckets[self.buckets.len() / 2] as *const Bucket as usize
    }

    pub fn megabytes(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    pub fn entry_count(&self) -> usize {
        self.buckets.len() * ENTRIES_PER_BUCKET
    }

    pub fn clear(&self) {
        for b in &self.buckets {
            for s in &b.slots {
                s.key_xor_data.store(0, Ordering::Relaxed);
                s.data.store(0, Ordering::Relaxed);
            }
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Called once per search: ages the existing entries and records how
    /// many pieces the root has (entries with more can never be reached).
    pub fn new_search(&self, root_pieces: u32) {
        self.generation.fetch_add(1, Ordering::Relaxed);
        self.root_pieces
            .store(root_pieces.min(63) as u8, Ordering::Relaxed);
    }

    pub fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed)
    }

    fn bucket(&self, key: u64) -> Option<&Bucket> {
        if self.buckets.is_empty() {
            return None;
        }
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        Some(&self.buckets[index])
    }

    /// Asks the CPU to start loading the bucket of `key` (called as a move
    /// is made, so the line is in cache when the child probes).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        if let Some(b) = self.bucket(key) {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            // SAFETY: a prefetch is only a hint: it never faults and has no
            // effect on program state, whatever the address. The pointer
            // is to a live bucket anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((b as *const Bucket).cast::<i8>()) };
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(b) = self.bucket(key) {
            // SAFETY: PRFM is only a hint: it never faults, writes nothing
            // and changes no flags, whatever the address. The pointer is to
            // a live bucket anyway.
            unsafe {
                std::arch::asm!(
                    "prfm pldl1keep, [{0}]",
                    in(reg) b as *const Bucket,
                    options(nostack, readonly, preserves_flags)
                );
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let _ = key;
    }

    /// The entry stored for `key`, if any whose check passes.
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let bucket = self.bucket(key)?;
        for slot in &bucket.slots {
            let data = slot.data.load(Ordering::Relaxed);
            let stored = slot.key_xor_data.load(Ordering::Relaxed) ^ data;
            if data != 0 && (stored ^ key) & self.check_mask() == 0 {
                #[cfg(feature = "ablation")]
                if stored != key {
                    self.experiment.false_hits.fetch_add(1, Ordering::Relaxed);
                }
                return TtEntry::unpack(data);
            }
        }
        None
    }

    /// Experiment only: type-1 errors let through so far (always 0 with
    /// the full 64-bit check, where a false hit needs a full-key collision).
    #[cfg(feature = "ablation")]
    pub fn false_hits(&self) -> u64 {
        self.experiment.false_hits.load(Ordering::Relaxed)
    }

    /// Experiment only: valid entries in `key`'s bucket stored under other
    /// full keys; each matches a narrowed check with chance 2^-bits.
    pub fn foreign_entries(&self, key: u64) -> usize {
        self.bucket(key).map_or(0, |b| {
            b.slots
                .iter()
                .filter(|s| {
                    let data = s.data.load(Ordering::Relaxed);
                    data != 0 && s.key_xor_data.load(Ordering::Relaxed) ^ data != key
                })
                .count()
        })
    }

    pub fn store(&self, key: u64, mv: u16, score: i32, depth: i32, bound: Bound, pieces: u32) {
        let Some(bucket) = self.bucket(key) else {
            return;
        };
        let generation = self.generation();
        let entry = TtEntry {
            mv,
            score,
            depth,
            bound,
            generation,
            pieces: pieces as u8,
        };
        let root_pieces = self.root_pieces.load(Ordering::Relaxed);
        let mut victim = 0;
        let mut victim_value = i32::MAX;
        for (i, slot) in bucket.slots.iter().enumerate() {
            let data = slot.data.load(Ordering::Relaxed);
            let stored_key = slot.key_xor_data.load(Ordering::Relaxed) ^ data;
            if data == 0 {
                if victim_value > i32::MIN + 1 {
                    victim = i;
                    victim_value = i32::MIN + 1;
                }
                continue;
            }
            let Some(old) = TtEntry::unpack(data) else {
                victim = i;
                victim_value = i32::MIN + 1;
                continue;
            };
            if (stored_key ^ key) & self.check_mask() == 0 {
                // Same position: keep a deeper result of this search unless
                // the new one is exact; never lose the move.
                if bound != Bound::Exact
                    && old.generation == generation
                    && depth + params::tt_keep_deeper_margin() < old.depth
                {
                    return;
                }
                let mv = if mv == 0 { old.mv } else { mv };
                write(slot, key, TtEntry { mv, ..entry });
                return;
            }
            let policy = self.policy();
            let value = if policy.unreachable_first && old.pieces > root_pieces {
                i32::MIN + 2 // unreachable: more pieces than the root
            } else {
                let age = if policy.aging {
                    i32::from(generation.wrapping_sub(old.generation))
                } else {
                    0
                };
                let depth = if policy.depth_preferred { old.depth } else { 0 };
                depth - params::tt_age_plies() * age
            };
            if value < victim_value {
                victim = i;
                victim_value = value;
            }
        }
        write(&bucket.slots[victim], key, entry);
    }

    /// Per mille of sampled entries written in the current search.
    pub fn hashfull(&self) -> usize {
        let generation = self.generation();
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for b in &self.buckets[..sample] {
            for s in &b.slots {
                let data = s.data.load(Ordering::Relaxed);
                if data != 0 && TtEntry::unpack(data).is_some_and(|e| e.generation == generation) {
                    used += 1;
                }
            }
        }
        if sample == 0 {
            0
        } else {
            used * 1000 / (sample * ENTRIES_PER_BUCKET)
        }
    }
}

fn write(slot: &Slot, key: u64, e: TtEntry) {
    let data = e.pack();
    slot.key_xor_data.store(key ^ data, Ordering::Relaxed);
    slot.data.store(data, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::MATE;

    fn entry(mv: u16, score: i32, depth: i32, bound: Bound) -> TtEntry {
        TtEntry {
            mv,
            score,
            depth,
            bound,
            generation: 7,
            pieces: 17,
        }
    }

    #[test]
    fn packing_round_trips() {
        for e in [
            entry(0xabcd, -32000, 0, Bound::Upper),
            entry(1, 32000, 255, Bound::Lower),
            entry(0x7fff, 0, 17, Bound::Exact),
            entry(42, -1, 1, Bound::Exact),
        ] {
            assert_eq!(TtEntry::unpack(e.pack()), Some(e));
        }
    }

    #[test]
    fn bounds_cut_only_when_they_prove_it() {
        let lower = entry(0, 100, 5, Bound::Lower);
        assert!(lower.cuts(5, 0, 100));
        assert!(
            !lower.cuts(5, 0, 101),
            "lower bound below beta proves nothing"
        );
        assert!(!lower.cuts(6, 0, 50), "too shallow");
        let upper = entry(0, -20, 5, Bound::Upper);
        assert!(upper.cuts(4, -20, 50));
        assert!(!upper.cuts(4, -21, 50));
        let exact = entry(0, 3, 5, Bound::Exact);
        assert!(exact.cuts(5, -1000, 1000));
        assert!(!exact.cuts(6, -1000, 1000));
    }

    #[test]
    fn mate_scores_are_node_relative() {
        // Mate in 3 plies from a node at ply 5 is mate in 8 from the root.
        let root_score = MATE - 8;
        let stored = score_to_tt(root_score, 5);
        assert_eq!(stored, MATE - 3);
        assert_eq!(score_from_tt(stored, 9), MATE - 12);
        assert_eq!(score_from_tt(score_to_tt(-MATE + 10, 4), 4), -MATE + 10);
        assert_eq!(score_to_tt(123, 40), 123);
    }

    #[test]
    fn tablebase_scores_are_node_relative() {
        use crate::score::{MATE_BOUND, TB_WIN};
        // A tablebase win 2 plies below a node at ply 6 (TB_WIN - 8 at the
        // root) is stored as 2 plies from the node, read back at ply 3.
        let stored = score_to_tt(TB_WIN - 8, 6);
        assert_eq!(stored, TB_WIN - 2);
        assert!(stored < MATE_BOUND, "still below the mate range");
        assert_eq!(score_from_tt(stored, 3), TB_WIN - 5);
        assert_eq!(score_from_tt(score_to_tt(-TB_WIN + 9, 4), 4), -TB_WIN + 9);
        // Just below the tablebase range: an ordinary score.
        assert_eq!(score_to_tt(TB_WIN_BOUND - 1, 9), TB_WIN_BOUND - 1);
        // A stored tablebase score fits the entry's 16 bits.
        let e = entry(0, score_to_tt(TB_WIN - 1, 1), 9, Bound::Lower);
        assert_eq!(TtEntry::unpack(e.pack()), Some(e));
    }

    #[test]
    fn store_probe_and_keep_move() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.new_search(32);
        tt.store(0x1234_5678_9abc_def0, 77, 50, 6, Bound::Exact, 32);
        let e = tt.probe(0x1234_5678_9abc_def0).unwrap();
        assert_eq!((e.mv, e.score, e.depth, e.bound), (77, 50, 6, Bound::Exact));
        assert!(
            tt.probe(0x1234_5678_9abc_def1).is_none(),
            "one bit off: no hit"
        );
        // A later store of the same position without a move keeps the move.
        tt.store(0x1234_5678_9abc_def0, 0, -5, 7, Bound::Upper, 32);
        let e = tt.probe(0x1234_5678_9abc_def0).unwrap();
        assert_eq!((e.mv, e.score, e.bound), (77, -5, Bound::Upper));
    }

    /// Keys that all land in bucket 0 of a 1 MB table.
    fn same_bucket_keys(n: u64) -> Vec<u64> {
        (1..=n).map(|i| i * 0x1000).collect()
    }

    #[test]
    fn replacement_order() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.new_search(20);
        let keys = same_bucket_keys(6);
        // Fill the bucket: depths 10, 3, 8 and an unreachable one (25
        // pieces, the root has 20) of depth 12.
        tt.store(keys[0], 1, 0, 10, Bound::Exact, 20);
        tt.store(keys[1], 2, 0, 3, Bound::Exact, 20);
        tt.store(keys[2], 3, 0, 8, Bound::Exact, 20);
        tt.store(keys[3], 4, 0, 12, Bound::Exact, 25);
        // First the unreachable entry goes, deep as it is.
        tt.store(keys[4], 5, 0, 1, Bound::Exact, 20);
        assert!(tt.probe(keys[3]).is_none());
        assert!(tt.probe(keys[4]).is_some());
        // Then the shallowest of this search (depth 1, the new one).
        tt.store(keys[5], 6, 0, 2, Bound::Exact, 20);
        assert!(tt.probe(keys[4]).is_none());
        assert!(tt.probe(keys[5]).is_some());
    }

    #[test]
    fn stale_entries_age_out() {
        let tt = TranspositionTable::new(1).unwrap();
        let keys = same_bucket_keys(5);
        tt.new_search(32);
        tt.store(keys[0], 1, 0, 10, Bound::Exact, 32);
        // Three searches later the bucket fills with shallow fresh entries.
        for _ in 0..3 {
            tt.new_search(32);
        }
        for (i, k) in keys[1..4].iter().enumerate() {
            tt.store(*k, 1, 0, i as i32 + 1, Bound::Exact, 32);
        }
        // The next store evicts the deep but stale entry (10 - 8 * 3 < 1).
        tt.store(keys[4], 1, 0, 1, Bound::Exact, 32);
        assert!(tt.probe(keys[0]).is_none());
        assert!(keys[1..].iter().all(|k| tt.probe(*k).is_some()));
    }

    #[test]
    fn same_position_keeps_deeper_result_within_a_search() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.new_search(32);
        tt.store(99, 1, 10, 12, Bound::Lower, 32);
        tt.store(99, 2, 20, 3, Bound::Lower, 32);
        assert_eq!(tt.probe(99).unwrap().depth, 12);
        tt.store(99, 2, 20, 3, Bound::Exact, 32);
        assert_eq!(tt.probe(99).unwrap().depth, 3, "exact results always go in");
    }

    #[test]
    fn resize_and_clear() {
        let mut tt = TranspositionTable::new(2).unwrap();
        assert_eq!(tt.megabytes(), 2);
        assert_eq!(tt.entry_count(), 2 * 1024 * 1024 / 16);
        tt.new_search(32);
        tt.store(5, 1, 1, 1, Bound::Exact, 32);
        // Key 5 falls in bucket 0, inside the sample of 1000 entries: one of
        // them is used, 1 per mille.
        assert_eq!(tt.hashfull(), 1);
        tt.resize(1).unwrap();
        assert_eq!(tt.megabytes(), 1);
        assert!(tt.probe(5).is_none(), "a resized table starts empty");
        tt.store(5, 1, 1, 1, Bound::Exact, 32);
        tt.clear();
        assert!(tt.probe(5).is_none());
        // An impossible size fails and leaves the table as it was.
        assert!(tt.resize(usize::MAX >> 20).is_err());
        assert_eq!(tt.megabytes(), 1);
        // Hash 0: a table that stores nothing.
        let none = TranspositionTable::new(0).unwrap();
        none.store(5, 1, 1, 1, Bound::Exact, 32);
        assert!(none.probe(5).is_none());
    }

    #[test]
    fn hashfull_counts_current_generation() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.new_search(32);
        assert_eq!(tt.hashfull(), 0);
        let n = tt.buckets.len() as u64;
        for i in 0..n {
            // One key per bucket: spread over the key space.
            let key = ((i as u128) << 64).div_ceil(n as u128) as u64;
            tt.store(key, 1, 1, 1, Bound::Exact, 32);
        }
        assert_eq!(tt.hashfull(), 250);
        tt.new_search(32);
        assert_eq!(tt.hashfull(), 0);
    }

    #[cfg(feature = "ablation")]
    #[test]
    fn narrow_check_lets_type1_errors_through_and_counts_them() {
        let tt = TranspositionTable::new(1).unwrap().with_check_bits(16);
        tt.new_search(32);
        tt.store(0x0000_0000_0000_1234, 5, 0, 3, Bound::Exact, 32);
        // Same bucket, same low 16 bits, another position.
        let other = 0x0000_0000_0001_1234;
        assert!(tt.probe(other).is_some());
        assert_eq!(tt.false_hits(), 1);
        assert_eq!(tt.foreign_entries(other), 1);
        let full = TranspositionTable::new(1).unwrap();
        full.new_search(32);
        full.store(0x1234, 5, 0, 3, Bound::Exact, 32);
        assert!(full.probe(0x0001_1234).is_none());
        assert_eq!(full.false_hits(), 0);
    }

    #[test]
    fn torn_writes_are_never_trusted() {
        // Simulate a torn entry: the two words from different writes.
        let tt = TranspositionTable::new(1).unwrap();
        tt.new_search(32);
        let key = 0xdead_beef_0000_0001;
        tt.store(key, 3, 30, 4, Bound::Exact, 32);
        let bucket = tt.bucket(key).unwrap();
        let other = entry(9, -77, 9, Bound::Lower).pack();
        bucket.slots[0].data.store(other, Ordering::Relaxed);
        assert!(tt.probe(key).is_none());
    }
}
