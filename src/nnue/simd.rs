//! The two inner loops of the net: adding or subtracting a feature row to an
//! accumulator, and the SCReLU dot product of the output layer, for any
//! width the net file has (a multiple of 16 up to `MAX_HIDDEN`).
//!
//! The row updates are plain loops that the compiler vectorises for any
//! target. The dot product has hand-written versions: AVX-512 and AVX2 on
//! x86-64, the widest the CPU has chosen at run time (the build targets
//! x86-64-v2, which has neither), and NEON on aarch64, where every target
//! has it; elsewhere a portable one. All give the same integer (a test
//! checks each one present against the definition at every width).

use super::QA;

#[inline]
pub fn add_row(acc: &mut [i16], row: &[i16]) {
    debug_assert_eq!(acc.len(), row.len());
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(w);
    }
}

#[inline]
pub fn sub_row(acc: &mut [i16], row: &[i16]) {
    debug_assert_eq!(acc.len(), row.len());
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(w);
    }
}

/// `acc = parent + add - sub`, lane by lane (wrapping): a copy and two row
/// updates in one pass.
#[inline]
pub fn copy_add_sub(acc: &mut [i16], parent: &[i16], add: &[i16], sub: &[i16]) {
    debug_assert!(acc.len() == parent.len() && acc.len() == add.len() && acc.len() == sub.len());
    for (((a, &p), &x), &y) in acc.iter_mut().zip(parent).zip(add).zip(sub) {
        *a = p.wrapping_add(x).wrapping_sub(y);
    }
}

/// Σ clamp(acc, 0, QA)² · weight over the accumulator (in QA² · QB), for
/// `acc` and `weights` of the same length, a multiple of 16 up to
/// `MAX_HIDDEN`. Output weights must lie within ±127 (the net loader checks
/// it), so that the SIMD paths' 16-bit product `v · w` can't overflow.
#[inline]
pub fn screlu_dot(acc: &[i16], weights: &[i16]) -> i64 {
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        // SAFETY: NEON, the only requirement of `neon::screlu_dot`, is
        // enabled for the whole build (as on every aarch64 target but the
        // soft-float ones), so every CPU this binary runs on has it: no
        // run-time check. The compiler still asks for `unsafe` here, as it
        // counts only a caller's own `#[target_feature]`.
        unsafe { neon::screlu_dot(acc, weights) }
    }
    #[cfg(not(all(target_arch = "aarch64", target_feature = "neon")))]
    {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                // SAFETY: the CPU has AVX-512F and AVX-512BW (checked just
                // above), the only requirement of `avx512::screlu_dot`.
                return unsafe { avx512::screlu_dot(acc, weights) };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above), the only
                // requirement of `avx2::screlu_dot`.
                return unsafe { avx2::screlu_dot(acc, weights) };
            }
        }
        portable_screlu_dot(acc, weights)
    }
}

pub fn portable_screlu_dot(acc: &[i16], weights: &[i16]) -> i64 {
    assert_eq!(acc.len(), weights.len());
    acc.iter()
        .zip(weights)
        .map(|(&a, &w)| {
            let v = i32::from(a).clamp(0, QA);
            i64::from(v * v * i32::from(w))
        })
        .sum()
}

#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    use super::QA;
    use crate::nnue::MAX_HIDDEN;
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must support AVX2. Memory safety holds otherwise: every
    /// load reads 16 lanes at `i` with `i + 16 <= len`, where `len` is the
    /// length of both slices (asserted equal on entry), so no load passes
    /// the end of either.
    #[target_feature(enable = "avx2")]
    pub unsafe fn screlu_dot(acc: &[i16], weights: &[i16]) -> i64 {
        let len = acc.len();
        assert!(weights.len() == len && len.is_multiple_of(16) && len <= MAX_HIDDEN);
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        for i in (0..len).step_by(16) {
            // SAFETY: i + 16 <= len, the length of both slices (len is a
            // multiple of 16); loadu has no alignment requirement.
            let (v, w) = unsafe {
                (
                    _mm256_loadu_si256(acc.as_ptr().add(i).cast()),
                    _mm256_loadu_si256(weights.as_ptr().add(i).cast()),
                )
            };
            let v = _mm256_min_epi16(_mm256_max_epi16(v, zero), qa);
            // v ≤ 255 and |w| ≤ 127: v·w fits in 16 bits; madd then
            // multiplies by v again and sums pairs in 32 bits. Each of the
            // 8 lanes sums len / 8 ≤ 128 products of at most 255² · 127 =
            // 8,258,175 in magnitude: below 2^31 (up to 260 would be).
            let vw = _mm256_mullo_epi16(v, w);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
        // The lanes' total can pass i32 from 256 wide on: add them in i64.
        let quads = _mm256_add_epi64(
            _mm256_cvtepi32_epi64(_mm256_castsi256_si128(sum)),
            _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(sum)),
        );
        let pairs = _mm_add_epi64(
            _mm256_castsi256_si128(quads),
            _mm256_extracti128_si256::<1>(quads),
        );
        _mm_cvtsi128_si64(pairs) + _mm_extract_epi64::<1>(pairs)
    }
}

#[cfg(target_arch = "x86_64")]
pub mod avx512 {
    use super::QA;
    use crate::nnue::MAX_HIDDEN;
    use std::arch::x86_64::*;

    /// The AVX2 path's arithmetic, 32 lanes a step. Widths are multiples
    /// of 16, not of 32, so a last 16 lanes (at 16, 208, ...) are loaded
    /// 256 bits wide and zero-extended: the zero lanes add nothing.
    ///
    /// # Safety
    /// The CPU must support AVX-512F and AVX-512BW. Memory safety holds
    /// otherwise: every 512-bit load reads 32 lanes at `i` with `i + 32 <=
    /// len`, the tail's 256-bit load 16 lanes at `i` with `i + 16 == len`,
    /// where `len` is the length of both slices (asserted equal on entry).
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn screlu_dot(acc: &[i16], weights: &[i16]) -> i64 {
        let len = acc.len();
        assert!(weights.len() == len && len.is_multiple_of(16) && len <= MAX_HIDDEN);
        let mut sum = _mm512_setzero_si512();
        let mut i = 0;
        while i + 32 <= len {
            // SAFETY: i + 32 <= len, the length of both slices; loadu has
            // no alignment requirement.
            let (v, w) = unsafe {
                (
                    _mm512_loadu_si512(acc.as_ptr().add(i).cast()),
                    _mm512_loadu_si512(weights.as_ptr().add(i).cast()),
                )
            };
            sum = accumulate(sum, v, w);
            i += 32;
        }
        if i < len {
            // SAFETY: len is a multiple of 16 and i (a multiple of 32) is
            // below it, so i + 16 == len: lanes i..len of both slices are
            // in bounds; loadu has no alignment requirement.
            let (v, w) = unsafe {
                (
                    _mm256_loadu_si256(acc.as_ptr().add(i).cast()),
                    _mm256_loadu_si256(weights.as_ptr().add(i).cast()),
                )
            };
            let (v, w) = (_mm512_zextsi256_si512(v), _mm512_zextsi256_si512(w));
            sum = accumulate(sum, v, w);
        }
        // The lanes' total can pass i32 from 256 wide on: add them in i64.
        let low = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(sum));
        let high = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(sum));
        _mm512_reduce_add_epi64(_mm512_add_epi64(low, high))
    }

    /// `sum` plus clamp(v, 0, QA)² · w, pairs of lanes summed into each of
    /// the 16 i32 lanes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn accumulate(sum: __m512i, v: __m512i, w: __m512i) -> __m512i {
        let v = _mm512_min_epi16(
            _mm512_max_epi16(v, _mm512_setzero_si512()),
            _mm512_set1_epi16(QA as i16),
        );
        // v ≤ 255 and |w| ≤ 127: v·w fits in 16 bits; madd then
        // multiplies by v again and sums pairs in 32 bits. Each of the 16
        // lanes gets 2 products a step, in at most MAX_HIDDEN / 32 = 32
        // steps (the tail being the last): at most 64 products of at most
        // 255² · 127 = 8,258,175 in magnitude, 528,523,200, below 2^31
        // (up to 260 products would be).
        let vw = _mm512_mullo_epi16(v, w);
        _mm512_add_epi32(sum, _mm512_madd_epi16(vw, v))
    }
}

#[cfg(target_arch = "aarch64")]
pub mod neon {
    use super::QA;
    use crate::nnue::MAX_HIDDEN;
    use std::arch::aarch64::*;

    /// The AVX2 path's arithmetic, 16 lanes a step as two 8-lane vectors.
    ///
    /// # Safety
    /// The CPU must support NEON: a caller without
    /// `#[target_feature(enable = "neon")]` must call this in an `unsafe`
    /// block saying why it has it. Memory safety holds otherwise: every
    /// load reads 8 lanes at `i` or `i + 8` with `i + 16 <= len`, where
    /// `len` is the length of both slices (asserted equal on entry).
    #[target_feature(enable = "neon")]
    pub fn screlu_dot(acc: &[i16], weights: &[i16]) -> i64 {
        let len = acc.len();
        assert!(weights.len() == len && len.is_multiple_of(16) && len <= MAX_HIDDEN);
        let zero = vdupq_n_s16(0);
        let qa = vdupq_n_s16(QA as i16);
        // Four sums of 4 lanes: two per 8-lane vector (its low and high
        // halves), which also keeps four multiply-adds in flight.
        let mut sums = [vdupq_n_s32(0); 4];
        for i in (0..len).step_by(16) {
            // SAFETY: i + 16 <= len, the length of both slices (len is a
            // multiple of 16), so lanes i..i + 16 of each are in bounds;
            // vld1q_s16 needs only 2-byte alignment, which &[i16] has.
            let (a0, a1, w0, w1) = unsafe {
                let (a, w) = (acc.as_ptr().add(i), weights.as_ptr().add(i));
                (
                    vld1q_s16(a),
                    vld1q_s16(a.add(8)),
                    vld1q_s16(w),
                    vld1q_s16(w.add(8)),
                )
            };
            for (j, (v, w)) in [(a0, w0), (a1, w1)].into_iter().enumerate() {
                let v = vminq_s16(vmaxq_s16(v, zero), qa);
                // v ≤ 255 and |w| ≤ 127: v·w fits in 16 bits; the widening
                // multiply-adds then multiply by v again into 32-bit lanes.
                // Each of the 16 lanes sums len / 16 ≤ 64 products of at
                // most 255² · 127 = 8,258,175 in magnitude: at most
                // 528,523,200, below 2^31 (up to 260 products would be).
                let vw = vmulq_s16(v, w);
                sums[2 * j] = vmlal_s16(sums[2 * j], vget_low_s16(vw), vget_low_s16(v));
                sums[2 * j + 1] = vmlal_high_s16(sums[2 * j + 1], vw, v);
            }
        }
        // The lanes' total can pass i32 from 256 wide on: add them in i64.
        sums.iter().map(|&s| vaddlvq_s32(s)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::MAX_HIDDEN;

    /// The widths tested: version 1's, the trainer's wider choices, and
    /// the smallest and an odd multiple of 16.
    const WIDTHS: [usize; 6] = [16, 128, 208, 256, 512, MAX_HIDDEN];

    /// The definition written out plainly, in i64 and without `clamp`: a
    /// reference independent of both paths under test.
    fn reference(acc: &[i16], weights: &[i16]) -> i64 {
        assert_eq!(acc.len(), weights.len());
        let mut sum = 0i64;
        for (&a, &w) in acc.iter().zip(weights) {
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

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Every dot product this machine has against the reference at every
    /// width: known values (all lanes saturated at the largest weights,
    /// where the total passes i32 from 256 wide on), then random
    /// accumulators below 0, inside and above QA with weights at the ±127
    /// extremes. The portable path and the dispatching `screlu_dot` are
    /// always compared; AVX-512 and AVX2 where the CPU has them, NEON
    /// where the build has it. The test says on stderr which it compared
    /// and which it could not (shown with `--nocapture`).
    #[test]
    fn dot_products_equal_the_definition_at_every_width() {
        let avx2 = avx2_available();
        let avx512 = avx512_available();
        let neon = cfg!(all(target_arch = "aarch64", target_feature = "neon"));
        let mut compared = vec!["portable", "dispatched"];
        for (present, name, absence) in [
            (avx512, "AVX-512", "no AVX-512 (F and BW) on this CPU"),
            (avx2, "AVX2", "no AVX2 on this CPU"),
            (neon, "NEON", "no NEON in this build"),
        ] {
            if present {
                compared.push(name);
            } else {
                eprintln!("{absence}: the {name} dot product is not compared");
            }
        }
        eprintln!("dot products compared: {}", compared.join(", "));
        let check = |acc: &[i16], weights: &[i16]| {
            let expected = reference(acc, weights);
            assert_eq!(portable_screlu_dot(acc, weights), expected);
            assert_eq!(screlu_dot(acc, weights), expected);
            #[cfg(target_arch = "x86_64")]
            if avx512 {
                // SAFETY: AVX-512F and AVX-512BW are present (checked).
                let got = unsafe { avx512::screlu_dot(acc, weights) };
                assert_eq!(got, expected);
            }
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: AVX2 is present (checked).
                let got = unsafe { avx2::screlu_dot(acc, weights) };
                assert_eq!(got, expected);
            }
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            {
                // SAFETY: the build enables NEON (the cfg above), so the
                // CPU running it has it.
                let got = unsafe { neon::screlu_dot(acc, weights) };
                assert_eq!(got, expected);
            }
        };
        let mut seed = 0x1234_5678_9abc_def0u64;
        for width in WIDTHS {
            // Saturated everywhere, at the largest weight: width · 255² · 127.
            for weight in [127, -127] {
                check(&vec![300; width], &vec![weight; width]);
                assert_eq!(
                    reference(&vec![300; width], &vec![weight; width]),
                    width as i64 * 65_025 * i64::from(weight)
                );
            }
            // Negative accumulators count for nothing.
            check(&vec![-1; width], &vec![127; width]);
            assert_eq!(reference(&vec![-1; width], &vec![127; width]), 0);
            // One value in the middle, in the last lane: 10² · -127.
            let mut one = vec![0i16; width];
            one[width - 3] = 10;
            check(&one, &vec![-127; width]);
            assert_eq!(reference(&one, &vec![-127; width]), -12_700);

            for _ in 0..300 {
                let acc: Vec<i16> = (0..width)
                    .map(|_| (xorshift(&mut seed) % 700) as i16 - 200) // below 0, inside, above QA
                    .collect();
                let weights: Vec<i16> = (0..width)
                    .map(|_| (xorshift(&mut seed) % 255) as i16 - 127)
                    .collect();
                check(&acc, &weights);
            }
        }
    }

    /// Adding and subtracting rows at every width, alone and fused with a
    /// copy: each lane by itself, wrapping like the i16 arithmetic the
    /// accumulators rely on, and a subtraction undoing an addition.
    #[test]
    fn row_updates_add_and_subtract_every_lane_at_every_width() {
        let mut seed = 0x0fed_cba9_8765_4321u64;
        for width in WIDTHS {
            for _ in 0..50 {
                let start: Vec<i16> = (0..width).map(|_| xorshift(&mut seed) as i16).collect();
                let row: Vec<i16> = (0..width).map(|_| xorshift(&mut seed) as i16).collect();
                let mut acc = start.clone();
                add_row(&mut acc, &row);
                for i in 0..width {
                    let sum = (i32::from(start[i]) + i32::from(row[i])) as i16;
                    assert_eq!(acc[i], sum, "width {width} lane {i}");
                }
                sub_row(&mut acc, &row);
                assert_eq!(acc, start, "width {width}");
                // The fused copy: start + row - other.
                let other: Vec<i16> = (0..width).map(|_| xorshift(&mut seed) as i16).collect();
                let mut fused = vec![0; width];
                copy_add_sub(&mut fused, &start, &row, &other);
                for i in 0..width {
                    let expected =
                        (i32::from(start[i]) + i32::from(row[i]) - i32::from(other[i])) as i16;
                    assert_eq!(fused[i], expected, "width {width} lane {i}");
                }
                sub_row(&mut acc, &row);
                for i in 0..width {
                    let difference = (i32::from(start[i]) - i32::from(row[i])) as i16;
                    assert_eq!(acc[i], difference, "width {width} lane {i}");
                }
            }
        }
    }

    fn avx512_available() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
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
