//! The two inner loops of the net: adding or subtracting a feature row to an
//! accumulator, and the SCReLU dot product of the output layer.
//!
//! The row updates are plain loops that the compiler vectorises for any
//! target. The dot product has an AVX2 version, chosen at run time where
//! the CPU has it, and a portable one; both give the same integer (a test
//! checks both against the definition).

use super::{HIDDEN, QA};

#[inline]
pub fn add_row(acc: &mut [i16; HIDDEN], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(w);
    }
}

#[inline]
pub fn sub_row(acc: &mut [i16; HIDDEN], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(w);
    }
}

/// Σ clamp(acc, 0, QA)² · weight over the accumulator (in QA² · QB).
/// Output weights must lie within ±127 (the net loader checks it), so that
/// the AVX2 path's 16-bit product `v · w` can't overflow.
#[inline]
pub fn screlu_dot(acc: &[i16; HIDDEN], weights: &[i16]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above), the only
            // requirement of `avx2::screlu_dot`.
            return unsafe { avx2::screlu_dot(acc, weights) };
        }
    }
    portable_screlu_dot(acc, weights)
}

pub fn portable_screlu_dot(acc: &[i16; HIDDEN], weights: &[i16]) -> i32 {
    acc.iter()
        .zip(&weights[..HIDDEN])
        .map(|(&a, &w)| {
            let v = i32::from(a).clamp(0, QA);
            v * v * i32::from(w)
        })
        .sum()
}

#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    use super::{HIDDEN, QA};
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must support AVX2. Memory safety holds otherwise: every
    /// load reads 16 lanes at `i < HIDDEN` (a multiple of 16) from slices
    /// of at least `HIDDEN` elements, asserted on entry.
    #[target_feature(enable = "avx2")]
    pub unsafe fn screlu_dot(acc: &[i16; HIDDEN], weights: &[i16]) -> i32 {
        const { assert!(HIDDEN.is_multiple_of(16)) };
        assert!(weights.len() >= HIDDEN);
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        for i in (0..HIDDEN).step_by(16) {
            // SAFETY: i + 16 <= HIDDEN <= both lengths; loadu has no
            // alignment requirement.
            let (v, w) = unsafe {
                (
                    _mm256_loadu_si256(acc.as_ptr().add(i).cast()),
                    _mm256_loadu_si256(weights.as_ptr().add(i).cast()),
                )
            };
            let v = _mm256_min_epi16(_mm256_max_epi16(v, zero), qa);
            // v ≤ 255 and |w| ≤ 127: v·w fits in 16 bits; madd then
            // multiplies by v again and sums pairs in 32 bits.
            let vw = _mm256_mullo_epi16(v, w);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
        let halves = _mm_add_epi32(
            _mm256_castsi256_si128(sum),
            _mm256_extracti128_si256::<1>(sum),
        );
        let pairs = _mm_add_epi32(halves, _mm_shuffle_epi32::<0b01_00_11_10>(halves));
        let single = _mm_add_epi32(pairs, _mm_shuffle_epi32::<0b10_11_00_01>(pairs));
        _mm_cvtsi128_si32(single)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition written out plainly, in i64 and without `clamp`: a
    /// reference independent of both paths under test.
    fn reference(acc: &[i16; HIDDEN], weights: &[i16]) -> i64 {
        let mut sum = 0i64;
        for (&a, &w) in acc.iter().zip(&weights[..HIDDEN]) {
            let a = i64::from(a);
            let v = if a < 0 {
                0
            } else if a > i64::from(QA) {
                i64::from(QA)
            } else {
                a
            };
            sum += v * v * i64::from(w);
        }
        sum
    }

    /// Both dot products against the reference: known values, then random
    /// accumulators below 0, inside and above QA with weights at the ±127
    /// extremes. The AVX2 path is compared where the CPU has it; elsewhere
    /// the test says it compared the portable path only.
    #[test]
    fn dot_products_equal_the_definition() {
        let avx2 = avx2_available();
        if !avx2 {
            eprintln!("no AVX2 on this CPU: only the portable dot product is compared");
        }
        let check = |acc: &[i16; HIDDEN], weights: &[i16]| {
            let expected = reference(acc, weights);
            assert_eq!(i64::from(portable_screlu_dot(acc, weights)), expected);
            assert_eq!(i64::from(screlu_dot(acc, weights)), expected);
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: AVX2 is present (checked).
                let got = unsafe { avx2::screlu_dot(acc, weights) };
                assert_eq!(i64::from(got), expected);
            }
        };
        // Saturated everywhere, at the largest weight: 128 · 255² · 127.
        check(&[300; HIDDEN], &[127; HIDDEN]);
        assert_eq!(
            reference(&[300; HIDDEN], &[127; HIDDEN]),
            128 * 65_025 * 127
        );
        // Negative accumulators count for nothing.
        check(&[-1; HIDDEN], &[127; HIDDEN]);
        assert_eq!(reference(&[-1; HIDDEN], &[127; HIDDEN]), 0);
        // One value in the middle: 10² · -127.
        let mut one = [0i16; HIDDEN];
        one[77] = 10;
        check(&one, &[-127; HIDDEN]);
        assert_eq!(reference(&one, &[-127; HIDDEN]), -12_700);

        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..1000 {
            let mut acc = [0i16; HIDDEN];
            for a in acc.iter_mut() {
                *a = (next() % 700) as i16 - 200; // below 0, inside, above QA
            }
            let weights: Vec<i16> = (0..HIDDEN).map(|_| (next() % 255) as i16 - 127).collect();
            check(&acc, &weights);
        }
    }

    fn avx2_available() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }
}
