//! The bit-counting look-up ([`super::bits`]) vectorised across rows with AVX-512.
//!
//! The compiler keeps the portable look-up's table read scalar (about 14 instructions per
//! kernel value, BENCHMARKS.md). Here, per block of 8 rows (stored word-major, see
//! [`super::bits`]), each word is one 512-bit load, ANDed with the query's word and counted by
//! VPOPCNTQ; the table index (n_i + n_q − 2c, or c) is formed in 32-bit lanes for 16 rows; and
//! the table is read by two-register permutes (`vpermt2ps`, one per 32-entry window of the
//! table, up to 256 entries) or a gather. The values are the table's entries, rounded to `f32` for `f32` columns: exactly
//! what the portable loop stores.
//!
//! Together with the dispatch in [`crate::simd`] this is the crate's only `unsafe`: unaligned
//! vector loads and stores within bounds asserted from the slices' lengths, and gathers whose
//! indices are clamped to the table. Measured on a9a (one thread, 76,322 steps): fit 7.7–8.4 s
//! → 5.2–5.4 s (BENCHMARKS.md).

#![allow(unsafe_code)]

use super::bits::{BLOCK_ROWS, MAX_WORDS};
use std::arch::x86_64::*;

/// Whole blocks of bit rows and a query, as [`super::bits::BitRows`] stores them.
pub(super) struct Blocks<'a> {
    /// Starting at a block boundary.
    pub bits: &'a [u64],
    pub words: usize,
    /// The rows' popcounts, from the same first row.
    pub counts: &'a [u32],
    pub query: &'a [u64],
    pub query_count: u32,
    pub by_distance: bool,
}

/// Table indices of the 8 rows of the block starting at word `at` (8 × i32).
#[inline]
#[target_feature(enable = "avx512f,avx512vpopcntdq,avx512vl,avx512bw")]
fn block_indices(b: &Blocks<'_>, query: &[__m512i; MAX_WORDS], row: usize) -> __m256i {
    let at = row * b.words;
    assert!(at + BLOCK_ROWS * b.words <= b.bits.len() && row + BLOCK_ROWS <= b.counts.len());
    let mut shared = _mm512_setzero_si512();
    for (w, q) in query.iter().enumerate().take(b.words) {
        // SAFETY: at + 8·w + 8 ≤ at + 8·words ≤ bits.len() (asserted above).
        let x = unsafe { _mm512_loadu_si512(b.bits.as_ptr().add(at + BLOCK_ROWS * w).cast()) };
        shared = _mm512_add_epi64(shared, _mm512_popcnt_epi64(_mm512_and_si512(x, *q)));
    }
    let shared = _mm512_cvtepi64_epi32(shared);
    if b.by_distance {
        // SAFETY: row + 8 ≤ counts.len() (asserted above).
        let n = unsafe { _mm256_loadu_si256(b.counts.as_ptr().add(row).cast()) };
        let n_q = _mm256_set1_epi32(b.query_count as i32);
        _mm256_sub_epi32(_mm256_add_epi32(n, n_q), _mm256_slli_epi32::<1>(shared))
    } else {
        shared
    }
}

/// The query's words, each broadcast to 8 lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512vpopcntdq,avx512vl,avx512bw")]
fn broadcast(b: &Blocks<'_>) -> [__m512i; MAX_WORDS] {
    assert!(b.query.len() == b.words && b.words <= MAX_WORDS);
    let mut query = [_mm512_setzero_si512(); MAX_WORDS];
    for (v, &q) in query.iter_mut().zip(b.query) {
        *v = _mm512_set1_epi64(q as i64);
    }
    query
}

/// Tables up to this many 32-entry windows are read by permutes (one per window), larger ones
/// by a gather. On Zen 4 a 16-lane gather costs about 2 cycles per value (60% of the w8a
/// look-up when tried); a window costs a permute, a compare and a blend per 16 values.
const MAX_WINDOWS: usize = 8;

/// Writes `out[r]` = table[index of row r] for the first 16·⌊len/16⌋ rows and returns how many
/// it wrote (the caller finishes the rest). `table` must cover every index the rows and the
/// query produce (indices are clamped to it, so memory is safe regardless).
#[target_feature(enable = "avx512f,avx512vpopcntdq,avx512vl,avx512bw")]
pub(super) fn lookup_f32(b: &Blocks<'_>, table: &[f32], out: &mut [f32]) -> usize {
    assert!(!table.is_empty() && table.len() <= i32::MAX as usize);
    let query = broadcast(b);
    let last = _mm512_set1_epi32(table.len() as i32 - 1);
    let windows = table.len().div_ceil(32);
    // The table in registers: window k is the pair (2k, 2k + 1) of 16 floats.
    let mut padded = [0f32; 32 * MAX_WINDOWS];
    let n = table.len().min(padded.len());
    padded[..n].copy_from_slice(&table[..n]);
    let mut regs = [_mm512_setzero_ps(); 2 * MAX_WINDOWS];
    for (k, reg) in regs.iter_mut().enumerate() {
        // SAFETY: 16·k + 16 ≤ 32·MAX_WINDOWS = padded.len().
        *reg = unsafe { _mm512_loadu_ps(padded.as_ptr().add(16 * k)) };
    }
    let rows = 2 * BLOCK_ROWS;
    let done = out.len() / rows * rows;
    for r0 in (0..done).step_by(rows) {
        let lo = block_indices(b, &query, r0);
        let hi = block_indices(b, &query, r0 + BLOCK_ROWS);
        let index = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
        let index = _mm512_min_epu32(index, last);
        let values = if windows <= MAX_WINDOWS {
            // The permute reads the low 5 bits of each index; the window is the rest.
            let window = _mm512_srli_epi32::<5>(index);
            let mut values = _mm512_permutex2var_ps(regs[0], index, regs[1]);
            for k in 1..windows {
                let in_k = _mm512_cmpeq_epi32_mask(window, _mm512_set1_epi32(k as i32));
                let v = _mm512_permutex2var_ps(regs[2 * k], index, regs[2 * k + 1]);
                values = _mm512_mask_mov_ps(values, in_k, v);
            }
            values
        } else {
            // SAFETY: every index is clamped to table.len() − 1.
            unsafe { _mm512_i32gather_ps::<4>(index, table.as_ptr()) }
        };
        // SAFETY: r0 + 16 ≤ done ≤ out.len().
        unsafe { _mm512_storeu_ps(out.as_mut_ptr().add(r0), values) };
    }
    done
}

/// [`lookup_f32`] for `f64` columns, 8 rows at a time by a gather.
#[target_feature(enable = "avx512f,avx512vpopcntdq,avx512vl,avx512bw")]
pub(super) fn lookup_f64(b: &Blocks<'_>, table: &[f64], out: &mut [f64]) -> usize {
    assert!(!table.is_empty() && table.len() <= i32::MAX as usize);
    let query = broadcast(b);
    let last = _mm256_set1_epi32(table.len() as i32 - 1);
    let done = out.len() / BLOCK_ROWS * BLOCK_ROWS;
    for r0 in (0..done).step_by(BLOCK_ROWS) {
        let index = _mm256_min_epu32(block_indices(b, &query, r0), last);
        // SAFETY: every index is clamped to table.len() − 1; r0 + 8 ≤ done ≤ out.len().
        unsafe {
            let values = _mm512_i32gather_pd::<8>(index, table.as_ptr());
            _mm512_storeu_pd(out.as_mut_ptr().add(r0), values);
        }
    }
    done
}
