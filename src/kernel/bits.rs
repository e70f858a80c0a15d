//! Kernel values on indicator data by bit counting.
//!
//! Many LIBSVM benchmark sets (the a- and w-series, mushrooms) store only ones over a few hundred
//! features. For such rows x_i, x_j the inner product is the number of features they share,
//! c = popcount(b_i ∧ b_j) of their bit sets, and the squared distance (and the L1 distance) is
//! the integer n_i + n_j − 2c, n_i = popcount(b_i). So a kernel value is one bitwise AND and
//! popcount per 64 features followed by a table look-up: the table holds the kernel's outer
//! function of every possible integer (computed by the same code as the general path, so columns
//! are bit-identical to it), and no `exp` is evaluated per entry.

/// Bit sets are used up to this many 64-bit words per row (1,024 features); wider rows use the
/// gather path, whose cost follows the row's non-zeros instead of the feature count.
pub(crate) const MAX_WORDS: usize = 16;

/// The rows of an indicator matrix as packed bit sets, with their popcounts and the table of
/// kernel values by integer.
#[derive(Debug, Clone)]
pub(crate) struct BitRows {
    words: usize,
    bits: Vec<u64>,
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
        let mut bits = vec![0u64; m * words];
        let mut counts = vec![0u32; m];
        for (i, (row, count)) in bits.chunks_exact_mut(words).zip(&mut counts).enumerate() {
            let cols = &indices[indptr[i]..indptr[i + 1]];
            set_bits(row, cols);
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

    /// Row i's bit set.
    pub(crate) fn row(&self, i: usize) -> &[u64] {
        &self.bits[i * self.words..(i + 1) * self.words]
    }

    /// Row i's number of features.
    pub(crate) fn count(&self, i: usize) -> u32 {
        self.counts[i]
    }

    /// The kernel value of rows i and j.
    pub(crate) fn entry(&self, i: usize, j: usize) -> f64 {
        self.value(self.row(i), self.count(i), self.row(j), self.count(j))
    }

    /// The kernel value of two bit sets with `n_a` and `n_b` features.
    #[inline(always)]
    fn value(&self, a: &[u64], n_a: u32, b: &[u64], n_b: u32) -> f64 {
        let c: u32 = a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum();
        let index = if self.by_distance {
            n_a + n_b - 2 * c
        } else {
            c
        };
        self.table[index as usize]
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
        set_bits(buf, cols);
        Some(buf)
    }

    /// out[r] = k(row lo + r, q) for a query bit set `q` with `q_count` features (a row of
    /// these, or from [`BitRows::pack_query`], so the table covers it), as `f64` or rounded to
    /// `f32` (a column cache's storage).
    pub(crate) fn lookup<T: Value>(&self, q: &[u64], q_count: u32, lo: usize, out: &mut [T]) {
        debug_assert!(q.len() == self.words && q_count <= self.max_count);
        let (lo, out) = match T::slice(out) {
            #[cfg(target_arch = "x86_64")]
            Out::F32(out) if self.fits_avx512() => {
                // SAFETY: the CPU has AVX-512 with VPOPCNTQ (`simd::avx512` detected it).
                #[allow(unsafe_code)]
                let done = unsafe {
                    super::bits_avx512::lookup_two_words(
                        &self.bits[2 * lo..],
                        &self.counts[lo..],
                        [q[0], q[1]],
                        q_count,
                        self.by_distance,
                        &self.table32,
                        out,
                    )
                };
                (lo + done, Out::F32(&mut out[done..]))
            }
            out => (lo, out),
        };
        lookup_dispatch(self, q, q_count, lo, out);
    }

    #[cfg(target_arch = "x86_64")]
    /// Whether [`super::bits_avx512`] can do `f32` look-ups: two-word rows, a table of at most
    /// 32 entries, and a CPU with AVX-512 and VPOPCNTQ.
    fn fits_avx512(&self) -> bool {
        self.words == 2 && self.table32.len() <= 32 && crate::simd::avx512()
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
            _ => self.lookup_any(q, q_count, lo, out),
        }
    }

    #[inline(always)]
    fn lookup_w<const W: usize, T: Value>(
        &self,
        q: &[u64],
        q_count: u32,
        lo: usize,
        out: &mut [T],
    ) {
        let q: &[u64; W] = q.try_into().expect("query width matches the rows");
        let rows = &self.bits[lo * W..(lo + out.len()) * W];
        let counts = &self.counts[lo..lo + out.len()];
        let table = &self.table[..];
        if self.by_distance {
            for ((o, row), &n) in out.iter_mut().zip(rows.chunks_exact(W)).zip(counts) {
                let c = shared::<W>(row, q);
                *o = T::from_f64(table[(n + q_count - 2 * c) as usize]);
            }
        } else {
            for (o, row) in out.iter_mut().zip(rows.chunks_exact(W)) {
                *o = T::from_f64(table[shared::<W>(row, q) as usize]);
            }
        }
    }

    #[inline(always)]
    fn lookup_any<T: Value>(&self, q: &[u64], q_count: u32, lo: usize, out: &mut [T]) {
        for (r, o) in out.iter_mut().enumerate() {
            *o = T::from_f64(self.value(self.row(lo + r), self.count(lo + r), q, q_count));
        }
    }
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
pub(crate) enum Out<'o> {
    F64(&'o mut [f64]),
    F32(&'o mut [f32]),
}

/// A kernel value's storage type: `f64`, or `f32` (rounded once, for the column cache).
pub(crate) trait Value: Copy + Send + Sync {
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

/// popcount(a ∧ b) over W words.
#[inline(always)]
fn shared<const W: usize>(a: &[u64], b: &[u64; W]) -> u32 {
    let mut c = 0;
    for w in 0..W {
        c += (a[w] & b[w]).count_ones();
    }
    c
}

fn set_bits(row: &mut [u64], cols: &[u32]) {
    for &c in cols {
        row[c as usize / 64] |= 1u64 << (c % 64);
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

    /// Random two-word rows (100 features, at most `max` per row, some rows at `max`).
    fn two_word_rows(m: usize, max: usize, seed: u64) -> (Vec<usize>, Vec<u32>) {
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
                let c = (next() % 100) as u32;
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
    fn f32_look_up_of_two_word_rows_matches_the_scalar_entries() {
        // Tables of 29 and 31 entries take the AVX-512 path on CPUs that have it, 33 the
        // scalar one; lengths and offsets cover the 16-row blocks and their remainders.
        for (max, by_distance) in [(14, true), (15, true), (16, true), (14, false), (31, false)] {
            let (indptr, indices) = two_word_rows(70, max, max as u64);
            let table = |len: usize| (0..len).map(|i| 1.0 / (1.0 + i as f64 * 0.37)).collect();
            let rows = BitRows::pack(&indptr, &indices, 100, by_distance, table).expect("narrow");
            for j in [0usize, 5, 69] {
                let (q, n) = (rows.row(j).to_vec(), rows.count(j));
                for (lo, len) in [
                    (0, 70),
                    (0, 16),
                    (3, 33),
                    (17, 15),
                    (40, 30),
                    (69, 1),
                    (5, 0),
                ] {
                    let mut out = vec![f32::NAN; len];
                    rows.lookup(&q, n, lo, &mut out);
                    let expected: Vec<f32> =
                        (lo..lo + len).map(|i| rows.entry(i, j) as f32).collect();
                    assert_eq!(
                        out,
                        expected,
                        "max {max}, by_distance {by_distance}, j {j}, rows {lo}..{}",
                        lo + len
                    );
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
