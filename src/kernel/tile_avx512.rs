//! The feature-major register tile ([`super::feature_major`]) written with AVX-512 intrinsics.
//!
//! The portable tile leaves the compiler to keep 16 rows × 8 queries of partial sums in
//! registers, and it did not (it vectorised across queries with gathers: slower than one query
//! at a time). Here the tile is explicit: per feature, two 8-row vector loads of the transposed
//! data and one broadcast per query; 16 accumulator registers, a multiply then an add (no FMA,
//! so every sum is the portable loop's, bit for bit).

#![allow(unsafe_code)]

use super::block::BLOCK;
use std::arch::x86_64::*;

/// Rows per tile: two 8-lane vectors.
pub(super) const TILE_ROWS: usize = 16;

/// The whole tiles of [`super::feature_major::FeatureMajor::products_block`]: for each tile of
/// 16 rows from row `lo` (`n` rows in all, tiles only), `out[c·n + r]` = Σ_f term(x_f[lo + r],
/// q_c[f]) with term the product (`l1 == false`) or |x − q| (`l1 == true`), features in order.
/// `values` is the transpose (`values[f·m + i]`), `table[f·BLOCK + c]` the queries. Returns the
/// number of rows done (a multiple of [`TILE_ROWS`]).
#[target_feature(enable = "avx512f")]
pub(super) fn tiles(
    values: &[f64],
    m: usize,
    d: usize,
    table: &[f64],
    lo: usize,
    n: usize,
    l1: bool,
    out: &mut [f64],
) -> usize {
    assert!(table.len() >= d * BLOCK && out.len() >= BLOCK * n);
    assert!(d == 0 || (d - 1) * m + lo + n <= values.len());
    let whole = n / TILE_ROWS * TILE_ROWS;
    let mut r = 0;
    while r < whole {
        let mut acc = [_mm512_setzero_pd(); 2 * BLOCK];
        for f in 0..d {
            let at = f * m + lo + r;
            // SAFETY: at + 16 ≤ (d − 1)·m + lo + n ≤ values.len() (asserted above; r + 16 ≤ n).
            let (x0, x1) = unsafe {
                (
                    _mm512_loadu_pd(values.as_ptr().add(at)),
                    _mm512_loadu_pd(values.as_ptr().add(at + 8)),
                )
            };
            let q = &table[f * BLOCK..(f + 1) * BLOCK];
            for c in 0..BLOCK {
                let qc = _mm512_set1_pd(q[c]);
                if l1 {
                    let t0 = _mm512_abs_pd(_mm512_sub_pd(x0, qc));
                    let t1 = _mm512_abs_pd(_mm512_sub_pd(x1, qc));
                    acc[2 * c] = _mm512_add_pd(acc[2 * c], t0);
                    acc[2 * c + 1] = _mm512_add_pd(acc[2 * c + 1], t1);
                } else {
                    acc[2 * c] = _mm512_add_pd(acc[2 * c], _mm512_mul_pd(x0, qc));
                    acc[2 * c + 1] = _mm512_add_pd(acc[2 * c + 1], _mm512_mul_pd(x1, qc));
                }
            }
        }
        for c in 0..BLOCK {
            let at = c * n + r;
            // SAFETY: at + 16 ≤ (BLOCK − 1)·n + n ≤ out.len() (asserted above).
            unsafe {
                _mm512_storeu_pd(out.as_mut_ptr().add(at), acc[2 * c]);
                _mm512_storeu_pd(out.as_mut_ptr().add(at + 8), acc[2 * c + 1]);
            }
        }
        r += TILE_ROWS;
    }
    whole
}
