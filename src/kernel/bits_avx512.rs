//! The bit-counting look-up of two-word indicator rows (at most 128 features: the a-series)
//! into `f32` columns, sixteen rows per iteration with AVX-512.
//!
//! The compiler keeps [`super::bits`]'s look-up scalar (about 14 instructions per kernel
//! value, BENCHMARKS.md). Here eight rows' words are one 512-bit load each, ANDed with the
//! query and counted by VPOPCNTQ; a two-source permute adds each row's two counts; the table
//! index (n_i + n_q − 2c, or c) is formed in 32-bit lanes; and a two-register permute
//! (`vpermt2ps`) reads the table of at most 32 entries for sixteen rows at once. The values are
//! the table's entries rounded to `f32`, exactly what the scalar path stores.
//!
//! Together with the dispatch in [`crate::simd`] this is the crate's only `unsafe`: unaligned
//! vector loads and stores, within bounds asserted from the slices' lengths. Measured on a9a
//! (one thread, 76,322 steps): fit 7.7–8.4 s → 5.2–5.4 s (BENCHMARKS.md).

#![allow(unsafe_code)]

use std::arch::x86_64::*;

/// Rows per iteration.
const ROWS: usize = 16;

/// Writes `out[r]` for the first `ROWS`·⌊len/ROWS⌋ rows of `out` and returns how many it
/// wrote (the caller finishes the rest). `rows` holds the rows' two words each, `counts` their
/// popcounts (from the same first row as `out`), `table` at most 32 entries covering every
/// index a row and the query `q` (with `q_count` features) can produce.
///
/// # Panics
/// If `table` is empty or longer than 32 entries, or `rows`/`counts` are shorter than `out`.
#[target_feature(enable = "avx512f,avx512vpopcntdq,avx512vl,avx512bw")]
pub(super) fn lookup_two_words(
    rows: &[u64],
    counts: &[u32],
    q: [u64; 2],
    q_count: u32,
    by_distance: bool,
    table: &[f32],
    out: &mut [f32],
) -> usize {
    assert!(
        !table.is_empty() && table.len() <= 32,
        "table of 1 to 32 entries"
    );
    let len = out.len();
    assert!(
        rows.len() >= 2 * len && counts.len() >= len,
        "rows for every output"
    );
    let mut padded = [0f32; 32];
    padded[..table.len()].copy_from_slice(table);
    // SAFETY: `padded` holds 32 floats, two 16-lane loads.
    let (t_lo, t_hi) = unsafe {
        (
            _mm512_loadu_ps(padded.as_ptr()),
            _mm512_loadu_ps(padded.as_ptr().add(16)),
        )
    };
    // Lane pattern q0, q1, q0, q1, … (lane 0 first; `set` lists lanes from the top).
    let (q0, q1) = (q[0] as i64, q[1] as i64);
    let query = _mm512_set_epi64(q1, q0, q1, q0, q1, q0, q1, q0);
    // Lanes 2k and 2k + 1 of the pair (a, b) hold row k's two words.
    let even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    let odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    let q_count = _mm512_set1_epi32(q_count as i32);
    let blocks = len / ROWS;
    for block in 0..blocks {
        let r0 = block * ROWS;
        let mut shared = [_mm256_setzero_si256(); 2];
        for (half, c) in shared.iter_mut().enumerate() {
            let w = 2 * (r0 + 8 * half);
            // SAFETY: w + 16 ≤ 2·(r0 + 16) ≤ 2·len ≤ rows.len() (asserted above).
            let (a, b) = unsafe {
                (
                    _mm512_loadu_si512(rows.as_ptr().add(w).cast()),
                    _mm512_loadu_si512(rows.as_ptr().add(w + 8).cast()),
                )
            };
            let a = _mm512_popcnt_epi64(_mm512_and_si512(a, query));
            let b = _mm512_popcnt_epi64(_mm512_and_si512(b, query));
            let sum = _mm512_add_epi64(
                _mm512_permutex2var_epi64(a, even, b),
                _mm512_permutex2var_epi64(a, odd, b),
            );
            *c = _mm512_cvtepi64_epi32(sum);
        }
        let shared = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(shared[0]), shared[1]);
        let index = if by_distance {
            // SAFETY: r0 + 16 ≤ len ≤ counts.len() (asserted above).
            let n = unsafe { _mm512_loadu_si512(counts.as_ptr().add(r0).cast()) };
            _mm512_sub_epi32(_mm512_add_epi32(n, q_count), _mm512_slli_epi32::<1>(shared))
        } else {
            shared
        };
        let values = _mm512_permutex2var_ps(t_lo, index, t_hi);
        // SAFETY: r0 + 16 ≤ len = out.len().
        unsafe { _mm512_storeu_ps(out.as_mut_ptr().add(r0), values) };
    }
    blocks * ROWS
}
