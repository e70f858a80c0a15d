//! Kernel values on indicator data by bit counting.
//!
//! Many LIBSVM benchmark sets (the a- and w-series, mushrooms) store only ones over a few hundred
//! features. For such rows x_i, x_j the inner product is the number of features they share,
//! c = popcount(b_i ∧ b_j) of their bit sets, and the squared distance (and the L1 distance) is
//! the integer n_i + n_j − 2c, n_i = popcount(b_i). So a kernel value is one bitwise AND and
//! popcount per 64 features followed by a table look-up: the table holds the kernel's outer
//! function of every possible integer (computed by the same code as the general path, so columns
//! are bit-identical to it), and no `exp` is evaluated per entry.
//!
//! The bit sets are stored in blocks of [`BLOCK_ROWS`] rows, word-major within a block: word w
//! of the block's 8 rows lies in 8 consecutive `u64`, so one 512-bit load reads it for 8 rows
//! and the look-up vectorises across rows (`super::bits_avx512`; the compiler vectorises the
//! popcounts of the portable loop the same way, but not the table look-up).

/// Bit sets are used up to this many 64-bit words per row (1,024 features); wider rows use the
/// gather path, whose cost follows the row's non-zeros instead of the feature count.
pub(crate) const MAX_WORDS: usize = 16;

/// Rows per storage block (see the module documentation).
pub(crate) const BLOCK_ROWS: usize = 8;

/// The rows of an indicator matrix as packed bit sets, with their popcounts and the table of
/// kernel values by integer.
#[derive(Debug, Clone)]
pub(crate) struct BitRows {
    words: usize,
    /// Blocks of [`BLOCK_ROWS`] rows × `words`, word-major within a block; the last block is
    /// padded with empty rows.
    bits: Vec<u64>,
    /// Popcount of each row, padded with zeros like `bits`.
    counts: Vec<u32>,
    max_count: u32,
    /// Whether `table` is indexed by the distance n_i + n_j − 2c (rbf, laplacian) rather than
    /// by the shared-feature count c (the other kernels).
    by_distance: bool,
    /// The kernel of every index a pair of rows can produce (2·max_count + 1 entries).
    table: Vec<f64>,
    /// `table` rounded to `f32` (the values `f32` columns store).
    table32: Vec<f32>,
}

impl BitRows {
    /// Packs the rows given by `indptr`/`indices` (the caller has checked that every value is 1)
    /// over `n_cols` features; `None` when rows would need more than [`MAX_WORDS`] words.
    /// `table(len)` returns the kernel of the integers 0, …, len − 1 read as distances
    /// (`by_distance`) or as inner products.
    pub(crate) fn pack(
        indptr: &[usize],
        indices: &[u32],
        n_cols: usize,
        by_distance: bool,
        table: impl FnOnce(usize) -> Vec<f64>,
    ) -> Option<BitRows> {
        let words = n_cols.div_ceil(64).max(1);
        if words > MAX_WORDS {
            return None;
        }
        let m = indptr.len().saturating_sub(1);
        let padded = m.div_ceil(BLOCK_ROWS) * BLOCK_ROWS;
        let mut bits = vec![0u64; padded * words];
        let mut counts = vec![0u32; padded];
        for (i, count) in counts.iter_mut().enumerate().take(m) {
            let cols = &indices[indptr[i]..indptr[i + 1]];
            for &c in cols {
                bits[word_index(words, i, c as usize / 64)] |= 1u64 << (c % 64);
            }
            *count = cols.len() as u32;
        }
        let max_count = counts.iter().copied().max().unwrap_or(0);
        let table = table(2 * max_count as usize + 1);
        Some(BitRows {
            words,
            bits,
            counts,
            max_count,
            by_distance,
            table32: table.iter().map(|&v| v as f32).collect(),
            table,
        })
    }

    /// Words per row.
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    /// Row i's bit set as a query for [`BitRows::lookup`] (its first [`BitRows::words`] words).
    pub(crate) fn row_query(&self, i: usize) -> [u64; MAX_WORDS] {
        let mut q = [0; MAX_WORDS];
        for (w, word) in q.iter_mut().enumerate().take(self.words) {
            *word = self.bits[word_index(self.words, i, w)];
        }
        q
    }

    /// Row i's number of features.
    pub(crate) fn count(&self, i: usize) -> u32 {
        self.counts[i]
    }

    /// The kernel value of rows i and j.
    pub(crate) fn entry(&self, i: usize, j: usize) -> f64 {
        let q = self.row_query(j);
        self.table[self.index(i, &q[..self.words], self.count(j)) as usize]
    }

    /// The table index of row i and a query with `q_count` features.
    #[inline(always)]
    fn index(&self, i: usize, q: &[u64], q_count: u32) -> u32 {
        let base = word_index(self.words, i, 0);
        let c: u32 = q
            .iter()
            .enumerate()
            .map(|(w, &x)| (self.bits[base + BLOCK_ROWS * w] & x).count_ones())
            .sum();
        if self.by_distance {
            self.counts[i] + q_count - 2 * c
        } else {
            c
        }
    }

    /// Packs a query with feature indices `cols` (all values 1) into `buf`; `None` if the table
    /// does not cover it (an index outside the rows' features, or more features than the
    /// longest row).
    pub(crate) fn pack_query<'b>(&self, cols: &[u32], buf: &'b mut Vec<u64>) -> Option<&'b [u64]> {
        if cols.len() > self.max_count as usize
            || cols.iter().any(|&c| c as usize >= self.words * 64)
        {
            return None;
        }
        buf.clear();
        buf.resize(self.words, 0);
        for &c in cols {
            buf[c as usize / 64] |= 1u64 << (c % 64);
        }
        Some(buf)
    }

    /// out[r] = k(row lo + r, q) for a query bit set `q` with `q_count` features (a row of
    /// these, or from [`BitRows::pack_query`], so the table covers it), as `f64` or rounded to
    /// `f32` (a column cache's storage).
    pub(crate) fn lookup<T: Value>(&self, q: &[u64], q_count: u32, lo: usize, out: &mut [T]) {
        debug_assert!(q.len() == self.words && q_count <= self.max_count);
        #[cfg(target_arch = "x86_64")]
        if crate::simd::avx512() {
            // Rows up to the next block boundary, then whole blocks vectorised, then the rest.
            let head = ((BLOCK_ROWS - lo % BLOCK_ROWS) % BLOCK_ROWS).min(out.len());
            let (first, rest) = out.split_at_mut(head);
            lookup_dispatch(self, q, q_count, lo, T::slice(first));
            let start = lo + head;
            let args = super::bits_avx512::Blocks {
                bits: &self.bits[start * self.words..],
                words: self.words,
                counts: &self.counts[start..],
                query: q,
                query_count: q_count,
                by_distance: self.by_distance,
            };
            // SAFETY: the CPU has AVX-512 with VPOPCNTQ (`simd::avx512` detected it).
            #[allow(unsafe_code)]
            let done = unsafe {
                match T::slice(rest) {
                    Out::F32(out) => super::bits_avx512::lookup_f32(&args, &self.table32, out),
                    Out::F64(out) => super::bits_avx512::lookup_f64(&args, &self.table, out),
                }
            };
            lookup_dispatch(self, q, q_count, start + done, T::slice(&mut rest[done..]));
            return;
        }
        lookup_dispatch(self, q, q_count, lo, T::slice(out));
    }

    /// [`BitRows::lookup`] with one monomorphised loop per common width, so the word loop is
    /// unrolled.
    #[inline(always)]
    fn lookup_width<T: Value>(&self, q: &[u64], q_count: u32, lo: usize, out: &mut [T]) {
        match self.words {
            1 => self.lookup_w::<1, T>(q, q_count, lo, out),
            2 => self.lookup_w::<2, T>(q, q_count, lo, out),
            3 => self.lookup_w::<3, T>(q, q_count, lo, out),
            4 => self.lookup_w::<4, T>(q, q_count, lo, out),
            5 => self.lookup_w::<5, T>(q, q_count, lo, out),
            6 => self.lookup_w::<6, T>(q, q_count, lo, out),
            7 => self.lookup_w::<7, T>(q, q_count, lo, out),
            8 => self.lookup_w::<8, T>(q, q_count, lo, out),
            _ => {
                for (r, o) in out.iter_mut().enumerate() {
                    *o = T::from_f64(self.table[self.index(lo + r, q, q_count) as usize]);
                }
            }
        }
    }

    /// The portable loop: whole blocks count 8 rows at a time (the compiler vectorises the
    /// popcounts), rows outside whole blocks one by one. Measured with `FWSVM_SIMD=avx2`
    /// (no vector popcount): 2–6% slower than the row-major layout this storage replaced, and
    /// counting row by row within the block, or row by row from the blocked storage, was
    /// slower still (BENCHMARKS.md).
    #[inline(always)]
    fn lookup_w<const W: usize, T: Value>(
        &self,
        q: &[u64],
        q_count: u32,
        lo: usize,
        out: &mut [T],
    ) {
        let q: &[u64; W] = q.try_into().expect("query width matches the rows");
        let table = &self.table[..];
        let index = |c: u32, n: u32| {
            if self.by_distance {
                n + q_count - 2 * c
            } else {
                c
            }
        };
        let mut r = 0;
        while r < out.len() {
            let i = lo + r;
            if i.is_multiple_of(BLOCK_ROWS) && r + BLOCK_ROWS <= out.len() {
                let block = &self.bits[i * W..(i + BLOCK_ROWS) * W];
                let mut c = [0u32; BLOCK_ROWS];
                for (w, &x) in q.iter().enumerate() {
                    let words = &block[w * BLOCK_ROWS..(w + 1) * BLOCK_ROWS];
                    for (c, &y) in c.iter_mut().zip(words) {
                        *c += (y & x).count_ones();
                    }
                }
                let counts = &self.counts[i..i + BLOCK_ROWS];
                for ((o, &c), &n) in out[r..r + BLOCK_ROWS].iter_mut().zip(&c).zip(counts) {
                    *o = T::from_f64(table[index(c, n) as usize]);
                }
                r += BLOCK_ROWS;
            } else {
                out[r] = T::from_f64(table[self.index(i, q, q_count) as usize]);
                r += 1;
            }
        }
    }
}

/// Position of word w of row i in [`BitRows`]'s blocked storage.
#[inline(always)]
fn word_index(words: usize, i: usize, w: usize) -> usize {
    (i / BLOCK_ROWS) * BLOCK_ROWS * words + w * BLOCK_ROWS + i % BLOCK_ROWS
}

crate::simd::multiversion! {
    avx512;
    /// [`BitRows::lookup`], in the AVX-512 (vector popcount) or AVX2 + POPCNT build when the
    /// CPU has it.
    fn lookup_dispatch(rows: &BitRows, q: &[u64], q_count: u32, lo: usize, out: Out<'_>) {
        match out {
            Out::F64(out) => rows.lookup_width(q, q_count, lo, out),
            Out::F32(out) => rows.lookup_width(q, q_count, lo, out),
        }
    }
}

/// An output slice of either precision, so one dispatched function serves both.
pub enum Out<'o> {
    F64(&'o mut [f64]),
    F32(&'o mut [f32]),
}

/// A kernel value's storage type: `f64`, or `f32` (rounded once, for the column cache).
pub trait Value: Copy + Send + Sync {
    /// `v` in this type.
    fn from_f64(v: f64) -> Self;
    /// The slice as an [`Out`].
    fn slice(out: &mut [Self]) -> Out<'_>;
}

impl Value for f64 {
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v
    }
    fn slice(out: &mut [Self]) -> Out<'_> {
        Out::F64(out)
    }
}

impl Value for f32 {
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn slice(out: &mut [Self]) -> Out<'_> {
        Out::F32(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_shared_features_for_every_width() {
        for n_cols in [1usize, 63, 64, 65, 130, 300, 520, 1000] {
            // Row 0: every third feature; row 1: every second; row 2: none.
            let r0: Vec<u32> = (0..n_cols as u32).step_by(3).collect();
            let r1: Vec<u32> = (0..n_cols as u32).step_by(2).collect();
            let indptr = [0, r0.len(), r0.len() + r1.len(), r0.len() + r1.len()];
            let indices: Vec<u32> = r0.iter().chain(&r1).copied().collect();
            let identity = |len: usize| (0..len).map(|i| i as f64).collect();
            let shared_01 = r0.iter().filter(|c| *c % 2 == 0).count() as f64;
            let d01 = (r0.len() + r1.len()) as f64 - 2.0 * shared_01;
            for (by_distance, expected) in [
                (false, [shared_01, r1.len() as f64, 0.0]),
                (true, [d01, 0.0, r1.len() as f64]),
            ] {
                let rows = BitRows::pack(&indptr, &indices, n_cols, by_distance, identity)
                    .expect("narrow enough");
                assert_eq!(rows.count(0) as usize, r0.len());
                let mut buf = Vec::new();
                let q = rows.pack_query(&r1, &mut buf).expect("in range").to_vec();
                let mut out = [0.0; 3];
                rows.lookup(&q, r1.len() as u32, 0, &mut out);
                assert_eq!(
                    out, expected,
                    "n_cols = {n_cols}, by_distance = {by_distance}"
                );
                let entries: Vec<f64> = (0..3).map(|i| rows.entry(i, 1)).collect();
                assert_eq!(
                    entries, expected,
                    "n_cols = {n_cols}, by_distance = {by_distance}"
                );
                // Offsets address the right rows.
                let mut tail = [0.0; 2];
                rows.lookup(&q, r1.len() as u32, 1, &mut tail);
                assert_eq!(tail, expected[1..], "n_cols = {n_cols}");
            }
        }
    }

    /// Random rows over `n_cols` features (at most `max` per row, every 7th row at `max`).
    fn random_rows(m: usize, n_cols: usize, max: usize, seed: u64) -> (Vec<usize>, Vec<u32>) {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        let mut indptr = vec![0];
        let mut indices = Vec::new();
        for i in 0..m {
            let k = if i % 7 == 0 { max } else { next() % (max + 1) };
            let mut cols: Vec<u32> = Vec::new();
            while cols.len() < k {
                let c = (next() % n_cols) as u32;
                if !cols.contains(&c) {
                    cols.push(c);
                }
            }
            cols.sort_unstable();
            indices.extend(cols);
            indptr.push(indices.len());
        }
        (indptr, indices)
    }

    #[test]
    fn look_ups_match_the_scalar_entries_for_every_width_and_table() {
        // Widths 1-10 words (9 and 10: the generic loop), tables of ≤ 32 entries (one permute),
        // up to 256 (several) and more (gather), f32 and f64 columns; lengths and offsets cover the head before a block
        // boundary, whole 8- and 16-row groups and the remainders.
        let cases = [
            (60, 14, true),
            (100, 15, true),
            (100, 16, true),
            (100, 14, false),
            (100, 31, false),
            (180, 40, true),
            (300, 60, true),
            (300, 60, false),
            (500, 20, true),
            (560, 30, true),
            (600, 140, true),
        ];
        for (n_cols, max, by_distance) in cases {
            let (indptr, indices) = random_rows(70, n_cols, max, (n_cols + max) as u64);
            let table = |len: usize| (0..len).map(|i| 1.0 / (1.0 + i as f64 * 0.37)).collect();
            let rows =
                BitRows::pack(&indptr, &indices, n_cols, by_distance, table).expect("narrow");
            for j in [0usize, 5, 69] {
                let (q, n) = (rows.row_query(j)[..rows.words()].to_vec(), rows.count(j));
                for (lo, len) in [
                    (0, 70),
                    (0, 16),
                    (3, 33),
                    (8, 24),
                    (17, 15),
                    (40, 30),
                    (69, 1),
                    (5, 0),
                ] {
                    let what = format!(
                        "{n_cols} features, max {max}, by_distance {by_distance}, j {j}, rows {lo}..{}",
                        lo + len
                    );
                    let mut wide = vec![f64::NAN; len];
                    rows.lookup(&q, n, lo, &mut wide);
                    let expected: Vec<f64> = (lo..lo + len).map(|i| rows.entry(i, j)).collect();
                    assert_eq!(wide, expected, "f64: {what}");
                    let mut narrow = vec![f32::NAN; len];
                    rows.lookup(&q, n, lo, &mut narrow);
                    let expected: Vec<f32> = expected.iter().map(|&v| v as f32).collect();
                    assert_eq!(narrow, expected, "f32: {what}");
                }
            }
        }
    }

    #[test]
    fn wide_rows_and_uncovered_queries_are_refused() {
        let identity = |len: usize| (0..len).map(|i| i as f64).collect();
        assert!(BitRows::pack(&[0, 1], &[0], 64 * MAX_WORDS + 1, true, identity).is_none());
        let rows = BitRows::pack(&[0, 1], &[3], 10, true, identity).expect("narrow");
        assert!(rows.pack_query(&[64], &mut Vec::new()).is_none());
        // Longer than the longest row: the table stops at distance 2.
        assert!(rows.pack_query(&[1, 2], &mut Vec::new()).is_none());
        assert!(rows.pack_query(&[2], &mut Vec::new()).is_some());
    }
}
