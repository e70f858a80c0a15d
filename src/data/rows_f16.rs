//! [`LinearRows`](super::LinearRows) over dense IEEE half-precision rows ([`DenseF16View`]): a feature map's
//! shard stored in two bytes a value, half the bytes of `f32` rows for every sweep to stream
//! (CoCoA's rounds read each shard's rows once or more per round, and are bound by memory).
//! The values are the `binary16` bit patterns (`u16`: NumPy's `float16`); every arithmetic
//! step is in `f64` on the exactly converted values, so the solver sees the rounded features
//! exactly and its certificate is exact for them.
//!
//! With AVX-512 (or AVX2) and F16C the loops convert eight values per instruction; the sums run
//! in the same sixteen lanes and are added in the same order as the portable loops, so every
//! result is the same on every machine. Measured (one thread, 200,000 rows of 1,000 Nyström
//! features, BENCHMARKS.md): the gap's pass over the rows 41.6 → 26.1 ms against `f32` rows, a
//! late CoCoA round 54 → 34 ms, the first (every row visited in a random order) 182 → 166 ms.

use super::rows::{DenseRowsView, RowElement};

/// `binary16` rows (bit patterns; NumPy's `float16`), read as [`RowElement`] `u16`.
pub type DenseF16View<'a> = DenseRowsView<'a, u16>;

/// `u16` values are `binary16` bit patterns.
impl RowElement for u16 {
    #[inline]
    fn dot(row: &[u16], w: &[f64]) -> f64 {
        dot_f16(row, w)
    }
    #[inline]
    fn axpy(a: f64, row: &[u16], w: &mut [f64]) {
        axpy_f16(a, row, w);
    }
    #[inline]
    fn sq_norm(row: &[u16]) -> f64 {
        sq_norm_f16(row)
    }
    #[inline]
    fn is_finite(self) -> bool {
        half::f16::from_bits(self).is_finite()
    }
}

/// The `binary16` value with bit pattern `h`, exactly, as `f64` (the portable loops' and the
/// vector loops' tails; `half`'s conversion).
#[inline]
fn f16_to_f64(h: u16) -> f64 {
    f64::from(half::f16::from_bits(h))
}

/// Sixteen-lane sums of f(k) for k < n, the lanes added as v_i = l_i + l_{i+8}, then
/// (v0 + v4) + (v1 + v5) + (v2 + v6) + (v3 + v7), then the tail: the order of the vector loops
/// (two AVX-512 or four AVX2 accumulators: the additions of one chain wait for each other, so
/// two chains convert and sum twice the values per cycle).
#[inline(always)]
fn lane_sum(n: usize, f: impl Fn(usize) -> f64) -> f64 {
    let body = n - n % 16;
    let mut acc = [0.0f64; 16];
    for k in (0..body).step_by(16) {
        for (l, a) in acc.iter_mut().enumerate() {
            *a += f(k + l);
        }
    }
    let tail: f64 = (body..n).map(f).sum();
    let v: [f64; 8] = std::array::from_fn(|i| acc[i] + acc[i + 8]);
    (v[0] + v[4]) + (v[1] + v[5]) + (v[2] + v[6]) + (v[3] + v[7]) + tail
}

/// Which of the converting loops this CPU runs: AVX-512 + F16C, AVX2 + F16C, or neither.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Build {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

#[inline]
fn build() -> Build {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static BUILD: OnceLock<Build> = OnceLock::new();
        *BUILD.get_or_init(|| {
            if !std::arch::is_x86_feature_detected!("f16c") {
                Build::Portable
            } else if crate::simd::avx512() {
                Build::Avx512
            } else if crate::simd::avx2() {
                Build::Avx2
            } else {
                Build::Portable
            }
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    Build::Portable
}

/// ⟨a, b⟩ of a `binary16` row and `f64` weights, in `f64`.
#[inline]
fn dot_f16(a: &[u16], b: &[f64]) -> f64 {
    match build() {
        // SAFETY (both arms): `build` detected the features the functions enable.
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx512 => unsafe { x86::sum_avx512::<false>(a, b) },
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx2 => unsafe { x86::sum_avx2::<false>(a, b) },
        Build::Portable => lane_sum(a.len().min(b.len()), |k| f16_to_f64(a[k]) * b[k]),
    }
}

/// ‖a‖² of a `binary16` row, in `f64`.
#[inline]
fn sq_norm_f16(a: &[u16]) -> f64 {
    match build() {
        // SAFETY (both arms): `build` detected the features the functions enable.
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx512 => unsafe { x86::sum_avx512::<true>(a, &[]) },
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx2 => unsafe { x86::sum_avx2::<true>(a, &[]) },
        Build::Portable => lane_sum(a.len(), |k| f16_to_f64(a[k]) * f16_to_f64(a[k])),
    }
}

/// w ← w + a·x for a `binary16` row, in `f64` (a product, then a sum: no fused multiply-add).
#[inline]
fn axpy_f16(a: f64, x: &[u16], w: &mut [f64]) {
    match build() {
        // SAFETY (both arms): `build` detected the features the functions enable.
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx512 => unsafe { x86::axpy_avx512(a, x, w) },
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx2 => unsafe { x86::axpy_avx2(a, x, w) },
        Build::Portable => {
            for (wj, &xj) in w.iter_mut().zip(x) {
                *wj += a * f16_to_f64(xj);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    //! The converting loops: eight `binary16` values loaded as 128 bits, converted to `f32`
    //! (F16C's `vcvtph2ps`) and to `f64`, exactly; products and sums in `f64`.
    use super::f16_to_f64;
    use std::arch::x86_64::*;

    /// Eight values at `p`, exactly as `f64`: AVX-512.
    #[inline]
    #[target_feature(enable = "avx512f,avx2,f16c")]
    unsafe fn load8_512(p: *const u16) -> __m512d {
        // SAFETY: the caller's `p` has eight readable values.
        _mm512_cvtps_pd(_mm256_cvtph_ps(unsafe {
            _mm_loadu_si128(p.cast::<__m128i>())
        }))
    }

    /// Σ x_k·b_k (`SQUARE`: Σ x_k²) in `lane_sum`'s sixteen lanes and order: AVX-512.
    #[target_feature(enable = "avx512f,avx2,f16c")]
    pub(super) fn sum_avx512<const SQUARE: bool>(a: &[u16], b: &[f64]) -> f64 {
        let n = if SQUARE {
            a.len()
        } else {
            a.len().min(b.len())
        };
        let body = n - n % 16;
        let (mut acc0, mut acc1) = (_mm512_setzero_pd(), _mm512_setzero_pd());
        for k in (0..body).step_by(16) {
            // SAFETY: k + 16 ≤ body ≤ the length of both slices (of `a` alone for SQUARE).
            unsafe {
                let (x0, x1) = (
                    load8_512(a.as_ptr().add(k)),
                    load8_512(a.as_ptr().add(k + 8)),
                );
                let (y0, y1) = if SQUARE {
                    (x0, x1)
                } else {
                    (
                        _mm512_loadu_pd(b.as_ptr().add(k)),
                        _mm512_loadu_pd(b.as_ptr().add(k + 8)),
                    )
                };
                acc0 = _mm512_add_pd(acc0, _mm512_mul_pd(x0, y0));
                acc1 = _mm512_add_pd(acc1, _mm512_mul_pd(x1, y1));
            }
        }
        let mut v = [0.0f64; 8];
        // SAFETY: `v` holds eight f64.
        unsafe { _mm512_storeu_pd(v.as_mut_ptr(), _mm512_add_pd(acc0, acc1)) };
        let tail: f64 = (body..n).map(|k| term::<SQUARE>(a, b, k)).sum();
        (v[0] + v[4]) + (v[1] + v[5]) + (v[2] + v[6]) + (v[3] + v[7]) + tail
    }

    /// The same sums with AVX2: four accumulators of four lanes.
    #[target_feature(enable = "avx2,f16c")]
    pub(super) fn sum_avx2<const SQUARE: bool>(a: &[u16], b: &[f64]) -> f64 {
        let n = if SQUARE {
            a.len()
        } else {
            a.len().min(b.len())
        };
        let body = n - n % 16;
        let mut acc = [_mm256_setzero_pd(); 4];
        for k in (0..body).step_by(16) {
            for (h, acc_pair) in acc.chunks_exact_mut(2).enumerate() {
                let at = k + 8 * h;
                // SAFETY: at + 8 ≤ body ≤ the length of both slices (of `a` alone for SQUARE).
                unsafe {
                    let x = _mm256_cvtph_ps(_mm_loadu_si128(a.as_ptr().add(at).cast::<__m128i>()));
                    let x_lo = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
                    let x_hi = _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x));
                    let (y_lo, y_hi) = if SQUARE {
                        (x_lo, x_hi)
                    } else {
                        (
                            _mm256_loadu_pd(b.as_ptr().add(at)),
                            _mm256_loadu_pd(b.as_ptr().add(at + 4)),
                        )
                    };
                    acc_pair[0] = _mm256_add_pd(acc_pair[0], _mm256_mul_pd(x_lo, y_lo));
                    acc_pair[1] = _mm256_add_pd(acc_pair[1], _mm256_mul_pd(x_hi, y_hi));
                }
            }
        }
        // Lanes 0–3 and 4–7 of the first eight plus those of the second eight.
        let (lo, hi) = (_mm256_add_pd(acc[0], acc[2]), _mm256_add_pd(acc[1], acc[3]));
        let mut v = [0.0f64; 8];
        // SAFETY: `v` holds eight f64: lanes 0–3, then 4–7.
        unsafe {
            _mm256_storeu_pd(v.as_mut_ptr(), lo);
            _mm256_storeu_pd(v.as_mut_ptr().add(4), hi);
        }
        let tail: f64 = (body..n).map(|k| term::<SQUARE>(a, b, k)).sum();
        (v[0] + v[4]) + (v[1] + v[5]) + (v[2] + v[6]) + (v[3] + v[7]) + tail
    }

    #[inline]
    fn term<const SQUARE: bool>(a: &[u16], b: &[f64], k: usize) -> f64 {
        let x = f16_to_f64(a[k]);
        if SQUARE { x * x } else { x * b[k] }
    }

    #[target_feature(enable = "avx512f,avx2,f16c")]
    pub(super) fn axpy_avx512(a: f64, x: &[u16], w: &mut [f64]) {
        let n = x.len().min(w.len());
        let body = n - n % 8;
        let scale = _mm512_set1_pd(a);
        for k in (0..body).step_by(8) {
            // SAFETY: k + 8 ≤ body ≤ the length of both slices.
            unsafe {
                let v = _mm512_cvtps_pd(_mm256_cvtph_ps(_mm_loadu_si128(
                    x.as_ptr().add(k).cast::<__m128i>(),
                )));
                let p = w.as_mut_ptr().add(k);
                _mm512_storeu_pd(
                    p,
                    _mm512_add_pd(_mm512_loadu_pd(p), _mm512_mul_pd(scale, v)),
                );
            }
        }
        for k in body..n {
            w[k] += a * f16_to_f64(x[k]);
        }
    }

    #[target_feature(enable = "avx2,f16c")]
    pub(super) fn axpy_avx2(a: f64, x: &[u16], w: &mut [f64]) {
        let n = x.len().min(w.len());
        let body = n - n % 8;
        let scale = _mm256_set1_pd(a);
        for k in (0..body).step_by(8) {
            // SAFETY: k + 8 ≤ body ≤ the length of both slices.
            unsafe {
                let v = _mm256_cvtph_ps(_mm_loadu_si128(x.as_ptr().add(k).cast::<__m128i>()));
                let halves = [
                    _mm256_cvtps_pd(_mm256_castps256_ps128(v)),
                    _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v)),
                ];
                for (h, half) in halves.into_iter().enumerate() {
                    let p = w.as_mut_ptr().add(k + 4 * h);
                    _mm256_storeu_pd(
                        p,
                        _mm256_add_pd(_mm256_loadu_pd(p), _mm256_mul_pd(scale, half)),
                    );
                }
            }
        }
        for k in body..n {
            w[k] += a * f16_to_f64(x[k]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::LinearRows;

    /// The vector loops give the portable loops' results bit for bit: the default build
    /// compares the AVX-512 loops, `FWSVM_SIMD=avx2` the AVX2 ones (CI runs both); and
    /// infinities are found by row.
    #[test]
    fn vector_loops_agree_with_the_portable_ones() {
        // Rows of 1 to 40 values (tails of every length), finite values of every magnitude.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in 1..=40 {
            let row: Vec<u16> = (0..n)
                .map(|_| {
                    let h = (next() & 0xffff) as u16;
                    if h & 0x7c00 == 0x7c00 { h & 0x83ff } else { h }
                })
                .collect();
            let w: Vec<f64> = (0..n)
                .map(|_| (next() % 2001) as f64 / 1000.0 - 1.0)
                .collect();
            assert_eq!(
                dot_f16(&row, &w).to_bits(),
                lane_sum(n, |k| f16_to_f64(row[k]) * w[k]).to_bits()
            );
            let (mut fast, mut plain) = (w.clone(), w.clone());
            axpy_f16(0.37, &row, &mut fast);
            for (p, &h) in plain.iter_mut().zip(&row) {
                *p += 0.37 * f16_to_f64(h);
            }
            assert_eq!(fast, plain);
            let view = DenseF16View::new(&row, 1, n).unwrap();
            let expect = lane_sum(n, |k| f16_to_f64(row[k]) * f16_to_f64(row[k]));
            assert_eq!(view.row_sq_norm(0).to_bits(), expect.to_bits());
        }
        assert!(DenseF16View::new(&[0u16; 6], 4, 2).is_err());
        let inf = [0x3c00, 0x7c00, 0x3c00, 0x3c00];
        assert!(matches!(
            DenseF16View::new(&inf, 2, 2).unwrap().check_finite(),
            Err(crate::FwsvmError::NonFinite { row: 0, .. })
        ));
    }
}
