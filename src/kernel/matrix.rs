//! [`KernelMatrix`]: a kernel bound to a data set, evaluated a column (or a query row) at a time.
//! The m×m matrix is never formed.

use super::bits::{BitRows, Value};
use super::dot::{
    binary_gather_dot, dense_dot, dense_l1, l1_norm, sparse_dense_dot, sparse_dense_l1,
    sparse_gather_dot, sparse_sparse_dot, sparse_sparse_l1, sq_norm,
};
use super::exp::{F32_EXP_ERROR, exp_in_place, exp_in_place_f32};
use super::feature_major::FeatureMajor;
use super::{Kernel, NormKind};
use crate::data::{CsrView, Features};
use crate::error::{FwsvmError, Result};
use crate::parallel::{current_num_threads, for_each_chunk};

/// Rows per parallel task when computing a column.
const ROW_CHUNK: usize = 2048;

/// Rows per task of [`KernelMatrix::add_expansion`]: a block's partial column and sums stay in
/// L1 while every expansion term is added.
const EXPANSION_ROWS: usize = 1024;

/// Reusable scatter buffer for evaluating sparse-against-sparse kernel rows.
///
/// A sparse query row is scattered into a dense buffer (`n_features` rounded up to a power of two)
/// so each training row's inner product becomes a gather (no sorted merge per row); the touched
/// entries are cleared afterwards, so the buffer costs O(nnz) per query, not O(n_features).
#[derive(Debug, Default, Clone)]
pub struct QueryScratch {
    dense: Vec<f64>,
    bits: Vec<u64>,
    row: Vec<f64>,
}

impl QueryScratch {
    /// An empty scratch buffer; it grows on first use.
    pub fn new() -> Self {
        QueryScratch::default()
    }
}

/// A borrowed query vector.
#[derive(Clone, Copy)]
enum Query<'q> {
    Dense(&'q [f64]),
    Sparse(&'q [u32], &'q [f64]),
}

/// The terms Σ_s coef_s k(·, q_{rows[s]}) of a kernel expansion: rows of `queries` with their
/// coefficients (see [`KernelMatrix::add_expansion`]).
#[derive(Clone, Copy)]
pub(crate) struct Terms<'a> {
    pub(crate) queries: &'a Features<'a>,
    pub(crate) rows: &'a [usize],
    pub(crate) coef: &'a [f64],
}

impl<'a> Terms<'a> {
    pub(crate) fn new(queries: &'a Features<'a>, rows: &'a [usize], coef: &'a [f64]) -> Self {
        Self {
            queries,
            rows,
            coef,
        }
    }
}

/// The kernel evaluated on one data set, with per-row norms and the diagonal precomputed.
#[derive(Debug, Clone)]
pub struct KernelMatrix<'a> {
    kernel: Kernel,
    data: Features<'a>,
    norms: Vec<f64>,
    diag: Vec<f64>,
    /// Sparse data whose stored values are all 1 (indicator features, like the a- and
    /// w-series): an inner product with a scattered query is a sum of gathered query entries,
    /// so the value array is never read.
    binary: bool,
    /// Indicator data over at most [`bits::MAX_WORDS`](super::bits::MAX_WORDS) words: kernel
    /// values by bit counting and a table look-up (see [`super::bits`]).
    bits: Option<BitRows>,
    /// Low-dimensional data transposed, so columns vectorise across rows (see
    /// [`super::feature_major`]).
    by_feature: Option<FeatureMajor>,
    /// Sparse data over more features than a scatter buffer may span: the features it uses,
    /// renumbered (see [`FeatureMap`]).
    features: Option<FeatureMap>,
}

/// Sparse data whose `n_features` is too large for a dense scatter buffer of that length (a CSR
/// of shape (60, 2⁴⁰) asked for 8.8 TB): the features the rows use, sorted, and the rows' column
/// indices renumbered into them, so a scattered query needs memory in proportion to the stored
/// values. A query's features outside the list meet no stored value and drop out of the inner
/// products (they still count in the query's own norm).
#[derive(Debug, Clone)]
struct FeatureMap {
    used: Vec<u32>,
    local: Vec<u32>,
}

/// Sparse data over more features than this are renumbered ([`FeatureMap`]); below it a query is
/// scattered into a buffer of `n_features` values (32 MB at most).
const MAX_SCATTER_FEATURES: usize = 1 << 22;

impl FeatureMap {
    fn new(s: &crate::data::CsrView<'_>) -> FeatureMap {
        let mut used: Vec<u32> = s.indices().to_vec();
        used.sort_unstable();
        used.dedup();
        let local = s
            .indices()
            .iter()
            .map(|f| used.binary_search(f).expect("a used feature") as u32)
            .collect();
        FeatureMap { used, local }
    }
}

impl<'a> KernelMatrix<'a> {
    /// Binds `kernel` to `data`, computing the norms the kernel needs and k(x_i, x_i).
    pub fn new(kernel: Kernel, data: Features<'a>) -> Self {
        let m = data.n_rows();
        let kind = kernel.norm_kind();
        let mut norms = vec![0.0; if kind == NormKind::None { 0 } else { m }];
        let per_row = data.n_cols().max(1);
        for_each_chunk(&mut norms, ROW_CHUNK, m * per_row, |lo, out| {
            for (r, o) in out.iter_mut().enumerate() {
                let i = lo + r;
                *o = match (kind, &data) {
                    (NormKind::SquaredL2, Features::Dense(d)) => sq_norm(d.row(i)),
                    (NormKind::SquaredL2, Features::Sparse(s)) => sq_norm(s.row(i).1),
                    (NormKind::L1, Features::Dense(d)) => l1_norm(d.row(i)),
                    (NormKind::L1, Features::Sparse(s)) => l1_norm(s.row(i).1),
                    (NormKind::None, _) => 0.0,
                };
            }
        });
        let mut diag = vec![0.0; m];
        for_each_chunk(&mut diag, ROW_CHUNK, m * per_row, |lo, out| {
            for (r, o) in out.iter_mut().enumerate() {
                let i = lo + r;
                *o = match kernel {
                    // Exactly 1: avoids ‖x‖² + ‖x‖² − 2⟨x,x⟩ round-off on the diagonal.
                    Kernel::Rbf { .. } | Kernel::Laplacian { .. } => 1.0,
                    Kernel::Precomputed => gram_entry(&data, i, i),
                    _ => {
                        let d = match &data {
                            Features::Dense(d) => sq_norm(d.row(i)),
                            Features::Sparse(s) => sq_norm(s.row(i).1),
                        };
                        kernel.of_dot(d, d, d)
                    }
                };
            }
        });
        let binary = kernel != Kernel::Precomputed
            && matches!(&data, Features::Sparse(s) if s.data().iter().all(|&v| v == 1.0));
        let mut km = KernelMatrix {
            kernel,
            data,
            norms,
            diag,
            binary,
            bits: None,
            by_feature: None,
            features: None,
        };
        if let Features::Sparse(x) = &data
            && x.n_cols() > MAX_SCATTER_FEATURES
        {
            km.features = Some(FeatureMap::new(x));
        }
        if let (true, Features::Sparse(s)) = (binary, &data) {
            // Distances for the kernels of a distance (rbf, laplacian), inner products otherwise.
            let by_distance = kernel.norm_kind() != NormKind::None;
            let table = |len| km.integer_table(len);
            km.bits = BitRows::pack(s.indptr(), s.indices(), s.n_cols(), by_distance, table);
        }
        if km.bits.is_none() && kernel != Kernel::Precomputed {
            km.by_feature = FeatureMajor::pack(&data);
        }
        km
    }

    /// The kernel of the integers 0, 1, …, len − 1, read as distances (rbf, laplacian) or as inner
    /// products (the others), computed by the same outer function as every column.
    fn integer_table(&self, len: usize) -> Vec<f64> {
        let ints: Vec<f64> = (0..len).map(|i| i as f64).collect();
        match self.kernel {
            // ‖x − z‖² = d is ‖x‖² + ‖z‖² − 2⟨x, z⟩ with norms d, 0 and inner product 0.
            Kernel::Rbf { .. } => {
                let mut table = vec![0.0; len];
                self.outer(&mut table, &ints, 0.0);
                table
            }
            _ => {
                let mut table = ints;
                self.outer(&mut table, &[], 0.0);
                table
            }
        }
    }

    /// The kernel function.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The data the kernel is evaluated on.
    pub fn data(&self) -> Features<'a> {
        self.data
    }

    /// Number of rows m.
    pub fn n_rows(&self) -> usize {
        self.data.n_rows()
    }

    /// k(x_i, x_i) for every row.
    pub fn diagonal(&self) -> &[f64] {
        &self.diag
    }

    /// One entry k(x_i, x_j), computed directly in O(nnz) without a scratch buffer.
    pub fn entry(&self, i: usize, j: usize) -> f64 {
        if i == j {
            return self.diag[i];
        }
        if self.kernel == Kernel::Precomputed {
            return gram_entry(&self.data, i, j);
        }
        if let Some(bits) = &self.bits {
            return bits.entry(i, j);
        }
        match self.kernel.norm_kind() {
            NormKind::L1 => {
                let l1 = match &self.data {
                    Features::Dense(d) => dense_l1(d.row(i), d.row(j)),
                    Features::Sparse(s) => {
                        let ((ai, av), (bi, bv)) = (s.row(i), s.row(j));
                        sparse_sparse_l1(ai, av, bi, bv)
                    }
                };
                self.kernel.of_l1(l1)
            }
            kind => {
                let dot = match &self.data {
                    Features::Dense(d) => dense_dot(d.row(i), d.row(j)),
                    Features::Sparse(s) => {
                        let ((ai, av), (bi, bv)) = (s.row(i), s.row(j));
                        sparse_sparse_dot(ai, av, bi, bv)
                    }
                };
                let (ni, nj) = if kind == NormKind::SquaredL2 {
                    (self.norms[i], self.norms[j])
                } else {
                    (0.0, 0.0)
                };
                self.kernel.of_dot(dot, ni, nj)
            }
        }
    }

    /// The column k(x_i, x_j) for all rows i, written into `out` (length m), in parallel over
    /// rows when m is large.
    pub fn column(&self, j: usize, out: &mut [f64], scratch: &mut QueryScratch) {
        if self.kernel == Kernel::Precomputed {
            self.precomputed_column(j, out);
            return;
        }
        let qnorm = if self.norms.is_empty() {
            0.0
        } else {
            self.norms[j]
        };
        if let Some(bits) = &self.bits {
            self.lookup_all(bits, &bits.row_query(j)[..bits.words()], bits.count(j), out);
        } else if let Some(x) = &self.by_feature {
            x.row_into(j, &mut scratch.row);
            self.eval_feature_major(x, &scratch.row, qnorm, out);
        } else {
            match &self.data {
                Features::Dense(d) => self.eval_all(Query::Dense(d.row(j)), qnorm, &[], out),
                Features::Sparse(s) => {
                    let (idx, val) = s.row(j);
                    self.eval_sparse_query(idx, val, qnorm, out, scratch);
                }
            }
        }
        // The diagonal entry is exact (see `new`), keep the column consistent with it.
        out[j] = self.diag[j];
    }

    /// Column j of a precomputed kernel: the Gram matrix is symmetric, so it is row j.
    fn precomputed_column<T: Value>(&self, j: usize, out: &mut [T]) {
        match &self.data {
            Features::Dense(d) => {
                for (o, &v) in out.iter_mut().zip(d.row(j)) {
                    *o = T::from_f64(v);
                }
            }
            Features::Sparse(s) => {
                out.iter_mut().for_each(|o| *o = T::from_f64(0.0));
                let (idx, val) = s.row(j);
                for (&c, &v) in idx.iter().zip(val) {
                    out[c as usize] = T::from_f64(v);
                }
            }
        }
    }

    /// Whether the query-table path of [`KernelMatrix::columns`] applies: an inner-product
    /// kernel on data without a faster layout (bit rows, feature-major).
    pub(super) fn block_path(&self) -> bool {
        matches!(
            self.kernel,
            Kernel::Rbf { .. } | Kernel::Linear | Kernel::Poly { .. } | Kernel::Sigmoid { .. }
        ) && self.bits.is_none()
            && self.by_feature.is_none()
    }

    /// The transposed data of low-dimensional dense data, if this matrix keeps it.
    pub(super) fn feature_major(&self) -> Option<&FeatureMajor> {
        self.by_feature.as_ref()
    }

    /// [`KernelMatrix::column`] in `f32` (for a column cache that stores `f32`): the inner
    /// products in `f64` chunk by chunk, then the outer function in `f32` straight into `out`
    /// (indicator data is looked up into `out`). Each value is within
    /// [`KernelMatrix::f32_error`] of the exact one.
    pub fn column_f32(&self, j: usize, out: &mut [f32], scratch: &mut QueryScratch) {
        if let Some(bits) = &self.bits {
            self.lookup_all(bits, &bits.row_query(j)[..bits.words()], bits.count(j), out);
        } else if self.kernel == Kernel::Precomputed {
            self.precomputed_column(j, out);
        } else {
            let qnorm = if self.norms.is_empty() {
                0.0
            } else {
                self.norms[j]
            };
            if let Some(x) = &self.by_feature {
                x.row_into(j, &mut scratch.row);
                let (q, l1) = (&scratch.row[..], self.kernel.norm_kind() == NormKind::L1);
                let work = out.len() * (q.len() + 1);
                self.chunks_f32(out, work, qnorm, |lo, buf| x.products(q, l1, lo, buf));
            } else {
                match &self.data {
                    Features::Dense(d) => {
                        let q = Query::Dense(d.row(j));
                        let work = d.n_rows() * d.n_cols();
                        self.chunks_f32(out, work, qnorm, |lo, buf| {
                            self.products_range(q, qnorm, &[], lo, buf)
                        });
                    }
                    Features::Sparse(s) => {
                        let (idx, val) = s.row(j);
                        let dense = self.scatter(scratch, idx, val);
                        let q = Query::Sparse(idx, val);
                        let work = s.nnz() + s.n_rows();
                        self.chunks_f32(out, work, qnorm, |lo, buf| {
                            self.products_range(q, qnorm, dense, lo, buf)
                        });
                        self.clear(scratch, idx);
                    }
                }
            }
        }
        out[j] = self.diag[j] as f32;
    }

    /// out (f32) chunk by chunk, in parallel over rows when `work` is large: `products(lo,
    /// buf)` writes the inner products (or L1 distances) of rows lo.. into `buf`, then the
    /// outer function rounds them into the chunk.
    fn chunks_f32(
        &self,
        out: &mut [f32],
        work: usize,
        qnorm: f64,
        products: impl Fn(usize, &mut [f64]) + Sync,
    ) {
        for_each_chunk(out, ROW_CHUNK, work, |lo, chunk| {
            let mut buf = [0.0f64; ROW_CHUNK];
            let buf = &mut buf[..chunk.len()];
            products(lo, buf);
            let norms = if self.norms.is_empty() {
                &[][..]
            } else {
                &self.norms[lo..lo + chunk.len()]
            };
            self.outer_f32(buf, norms, qnorm, chunk);
        });
    }

    /// The bound on |`column_f32` − `column`| per unit of the largest kernel value, in units of
    /// 2⁻²⁴: a rounded `f64` value errs by half an ulp, at most 2⁻²⁴|k|; the `f32` exp of the
    /// rbf and laplacian kernels by 2.5 (measured 1.75; indicator data rounds a table of `f64`
    /// values).
    pub fn f32_error(&self) -> f64 {
        match self.kernel {
            Kernel::Rbf { .. } | Kernel::Laplacian { .. } if self.bits.is_none() => F32_EXP_ERROR,
            _ => 1.0,
        }
    }

    /// k(x_i, q) for all rows i of this matrix, where q is row `t` of `queries` (a test set
    /// with the same number of features). Serial: callers parallelise over queries.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the feature counts differ.
    pub fn query_row(
        &self,
        queries: &Features<'_>,
        t: usize,
        out: &mut [f64],
        scratch: &mut QueryScratch,
    ) -> Result<()> {
        if self.kernel == Kernel::Precomputed {
            return Err(FwsvmError::InvalidInput(
                "a precomputed kernel has no feature vectors to evaluate: pass kernel values instead".into(),
            ));
        }
        if queries.n_cols() != self.data.n_cols() {
            return Err(FwsvmError::InvalidInput(format!(
                "X has {} features, but the model was trained with {}",
                queries.n_cols(),
                self.data.n_cols()
            )));
        }
        self.query_range(queries, t, 0, out, scratch);
        Ok(())
    }

    /// out[r] = k(x_{lo+r}, q) where q is row `t` of `queries` (same feature count, not a
    /// precomputed kernel: the callers check). Uses the fastest storage this matrix has: bit
    /// counting for indicator queries, the feature-major products, else the row-major loops.
    fn query_range(
        &self,
        queries: &Features<'_>,
        t: usize,
        lo: usize,
        out: &mut [f64],
        scratch: &mut QueryScratch,
    ) {
        let kind = self.kernel.norm_kind();
        let norm_of = |v: &[f64]| match kind {
            NormKind::SquaredL2 => sq_norm(v),
            NormKind::L1 => l1_norm(v),
            NormKind::None => 0.0,
        };
        if let Some(x) = &self.by_feature {
            // The query as a dense vector of at most `feature_major::MAX_FEATURES` values.
            scratch.row.clear();
            match queries {
                Features::Dense(q) => scratch.row.extend_from_slice(q.row(t)),
                Features::Sparse(q) => {
                    scratch.row.resize(self.data.n_cols(), 0.0);
                    let (idx, val) = q.row(t);
                    for (&i, &v) in idx.iter().zip(val) {
                        scratch.row[i as usize] = v;
                    }
                }
            }
            let qnorm = norm_of(&scratch.row);
            x.products(&scratch.row, kind == NormKind::L1, lo, out);
            let norms = if self.norms.is_empty() {
                &[][..]
            } else {
                &self.norms[lo..lo + out.len()]
            };
            self.outer(out, norms, qnorm);
            return;
        }
        match queries {
            Features::Dense(q) => {
                let row = q.row(t);
                self.eval_range(Query::Dense(row), norm_of(row), &[], lo, out);
            }
            Features::Sparse(q) => {
                let (idx, val) = q.row(t);
                // Indicator queries the look-up table covers are bit-counted too.
                if let Some(bits) = &self.bits
                    && val.iter().all(|&v| v == 1.0)
                    && let Some(q) = bits.pack_query(idx, &mut scratch.bits)
                {
                    bits.lookup(q, idx.len() as u32, lo, out);
                    return;
                }
                let qnorm = norm_of(val);
                match &self.data {
                    Features::Dense(_) => {
                        self.eval_range(Query::Sparse(idx, val), qnorm, &[], lo, out)
                    }
                    Features::Sparse(_) => {
                        let dense = self.scatter(scratch, idx, val);
                        self.eval_range(Query::Sparse(idx, val), qnorm, dense, lo, out);
                        self.clear(scratch, idx);
                    }
                }
            }
        }
    }

    /// out[r] += Σ_s coef_s k(x_r, q_{rows[s]}) for every row r of this matrix, where q are rows
    /// of the terms' queries (same feature count; not a precomputed kernel): a kernel expansion
    /// evaluated on this matrix's rows, one block of rows per task, the sum over the terms in
    /// their order in every block (so the result does not depend on the thread count).
    pub(crate) fn add_expansion(&self, terms: Terms<'_>, out: &mut [f64]) {
        self.expansion(terms, out, false);
    }

    /// [`KernelMatrix::add_expansion`] with the kernel values of [`KernelMatrix::column_f32`]
    /// (sums in `f64`) where the register tile computes them, each within
    /// [`KernelMatrix::f32_error`] of the exact value; exact otherwise. For updates whose
    /// rounding the caller charges to a bound, as it does for `f32` columns.
    pub(crate) fn add_expansion_rounded(&self, terms: Terms<'_>, out: &mut [f64]) {
        self.expansion(terms, out, true);
    }

    fn expansion(&self, terms: Terms<'_>, out: &mut [f64], rounded: bool) {
        let (queries, rows, coef) = (terms.queries, terms.rows, terms.coef);
        debug_assert_eq!(rows.len(), coef.len());
        debug_assert_eq!(out.len(), self.n_rows());
        if self.block_path() && super::block::add_expansion_blocked(self, terms, out) {
            return;
        }
        if self.tiles_pay() && super::block::add_expansion_tiled(self, terms, out, rounded) {
            return;
        }
        let work = out.len() * rows.len() * self.data.n_cols().max(1);
        for_each_chunk(out, EXPANSION_ROWS, work, |lo, chunk| {
            let mut column = vec![0.0; chunk.len()];
            let mut scratch = QueryScratch::new();
            for (&t, &c) in rows.iter().zip(coef) {
                self.query_range(queries, t, lo, &mut column, &mut scratch);
                for (o, &k) in chunk.iter_mut().zip(&column) {
                    *o += c * k;
                }
            }
        });
    }

    fn eval_sparse_query(
        &self,
        idx: &[u32],
        val: &[f64],
        qnorm: f64,
        out: &mut [f64],
        scratch: &mut QueryScratch,
    ) {
        let dense = self.scatter(scratch, idx, val);
        self.eval_all(Query::Sparse(idx, val), qnorm, dense, out);
        self.clear(scratch, idx);
    }

    /// Column of the indicator query `q` (a training row) by bit counting, in parallel over rows
    /// when m is large.
    fn lookup_all<T: Value>(&self, bits: &BitRows, q: &[u64], q_count: u32, out: &mut [T]) {
        // A row costs ~1 ns. Measured: two threads lose on w5a (9,888 rows, 5 words) and win on
        // a7a (16,100 rows, 2 words), so the crossover (PARALLEL_MIN_WORK) sits near 13,000
        // rows; and one chunk per thread keeps rayon's per-task cost off the ~10-100 µs of a
        // column (a7a on 2 threads: 2.44 s against 3.42 s with 2,048-row chunks; BENCHMARKS.md).
        let work = out.len() * 5;
        let chunk = out.len().div_ceil(current_num_threads()).max(ROW_CHUNK);
        for_each_chunk(out, chunk, work, |lo, chunk| {
            bits.lookup(q, q_count, lo, chunk)
        });
    }

    /// The column of the dense query `q` (one value per feature) from the transposed data, in
    /// parallel over rows when m is large.
    fn eval_feature_major(&self, x: &FeatureMajor, q: &[f64], qnorm: f64, out: &mut [f64]) {
        let l1 = self.kernel.norm_kind() == NormKind::L1;
        let work = out.len() * (q.len() + 1);
        for_each_chunk(out, ROW_CHUNK, work, |lo, chunk| {
            x.products(q, l1, lo, chunk);
            let norms = if self.norms.is_empty() {
                &[][..]
            } else {
                &self.norms[lo..lo + chunk.len()]
            };
            self.outer(chunk, norms, qnorm);
        });
    }

    fn eval_all(&self, q: Query<'_>, qnorm: f64, scattered: &[f64], out: &mut [f64]) {
        let work = match &self.data {
            Features::Dense(d) => d.n_rows() * d.n_cols(),
            Features::Sparse(s) => s.nnz() + s.n_rows(),
        };
        for_each_chunk(out, ROW_CHUNK, work, |lo, chunk| {
            self.eval_range(q, qnorm, scattered, lo, chunk);
        });
    }

    /// out[r] = k(x_{lo+r}, q). `scattered` is q as a dense vector when both q and the data are
    /// sparse (the gather path), empty otherwise.
    fn eval_range(&self, q: Query<'_>, qnorm: f64, scattered: &[f64], lo: usize, out: &mut [f64]) {
        // Pass 1: inner products (or L1 distances); pass 2: the kernel's outer function.
        self.products_range(q, qnorm, scattered, lo, out);
        let norms = if self.norms.is_empty() {
            &[][..]
        } else {
            &self.norms[lo..lo + out.len()]
        };
        self.outer(out, norms, qnorm);
    }

    /// out[r] = ⟨x_{lo+r}, q⟩, or the L1 distance for the laplacian kernel: one loop per
    /// storage combination (`scattered` as in [`KernelMatrix::eval_range`]).
    fn products_range(
        &self,
        q: Query<'_>,
        qnorm: f64,
        scattered: &[f64],
        lo: usize,
        out: &mut [f64],
    ) {
        let l1 = self.kernel.norm_kind() == NormKind::L1;
        match (&self.data, q) {
            (Features::Dense(d), Query::Dense(qv)) if l1 => {
                fill(out, lo, |i| dense_l1(d.row(i), qv))
            }
            (Features::Dense(d), Query::Dense(qv)) => fill(out, lo, |i| dense_dot(d.row(i), qv)),
            (Features::Dense(d), Query::Sparse(qi, qv)) if l1 => fill(out, lo, |i| {
                sparse_dense_l1(qi, qv, d.row(i), self.norms[i])
            }),
            (Features::Dense(d), Query::Sparse(qi, qv)) => {
                fill(out, lo, |i| sparse_dense_dot(qi, qv, d.row(i)))
            }
            (Features::Sparse(s), Query::Dense(qv)) if l1 => fill(out, lo, |i| {
                let (ri, rv) = s.row(i);
                sparse_dense_l1(ri, rv, qv, qnorm)
            }),
            (Features::Sparse(s), Query::Dense(qv)) => fill(out, lo, |i| {
                let (ri, rv) = s.row(i);
                sparse_dense_dot(ri, rv, qv)
            }),
            (Features::Sparse(s), Query::Sparse(..)) if l1 => fill(out, lo, |i| {
                let (ri, rv) = self.scattered_row(s, i);
                sparse_dense_l1(ri, rv, scattered, qnorm)
            }),
            (Features::Sparse(s), Query::Sparse(..)) if self.binary => fill(out, lo, |i| {
                binary_gather_dot(self.scattered_row(s, i).0, scattered)
            }),
            (Features::Sparse(s), Query::Sparse(..)) => fill(out, lo, |i| {
                let (ri, rv) = self.scattered_row(s, i);
                sparse_gather_dot(ri, rv, scattered)
            }),
        }
    }

    /// The rows' squared norms (rbf; empty for the other kernels).
    pub(super) fn norms(&self) -> &[f64] {
        &self.norms
    }

    /// The kernel's outer function applied in place to inner products (or L1 distances), with
    /// the match hoisted out of the loop; `norms` are the rows' squared norms (rbf only).
    pub(super) fn outer(&self, out: &mut [f64], norms: &[f64], qnorm: f64) {
        outer_dispatch(self.kernel, out, norms, qnorm);
    }

    /// The outer function from the inner products (or L1 distances) in `products` (used as
    /// scratch) into `out` in `f32`: the exponent of the rbf and laplacian kernels is computed
    /// in `f64` as in [`KernelMatrix::outer`], its exp in `f32` ([`exp_nonpositive_f32`],
    /// sixteen values per AVX-512 instruction); the other kernels are rounded from `f64`.
    pub(super) fn outer_f32(
        &self,
        products: &mut [f64],
        norms: &[f64],
        qnorm: f64,
        out: &mut [f32],
    ) {
        match self.kernel {
            Kernel::Rbf { .. } | Kernel::Laplacian { .. } => {
                exponent_f32_dispatch(self.kernel, products, norms, qnorm, out);
                exp_f32_dispatch(out);
            }
            _ => {
                self.outer(products, norms, qnorm);
                for (o, &p) in out.iter_mut().zip(products.iter()) {
                    *o = p as f32;
                }
            }
        }
    }
}

crate::simd::multiversion! {
    avx512;
    /// The exponent of the rbf (−γ‖x − q‖²) or laplacian (−γ‖x − q‖₁) kernel, computed as in
    /// [`KernelMatrix::outer`] and rounded to `f32`.
    fn exponent_f32_dispatch(kernel: Kernel, products: &[f64], norms: &[f64], qnorm: f64, out: &mut [f32]) {
        match kernel {
            Kernel::Rbf { gamma } => {
                for ((o, &p), &n) in out.iter_mut().zip(products).zip(norms) {
                    *o = (-gamma * (n + qnorm - 2.0 * p).max(0.0)) as f32;
                }
            }
            Kernel::Laplacian { gamma } => {
                for (o, &p) in out.iter_mut().zip(products) {
                    *o = (-gamma * p.max(0.0)) as f32;
                }
            }
            _ => unreachable!("only the kernels of an exp"),
        }
    }
}

crate::simd::multiversion! {
    avx512;
    /// [`exp_in_place_f32`] in the AVX-512 or AVX2 build when the CPU has it (no FMA: every
    /// tier gives the same values).
    fn exp_f32_dispatch(out: &mut [f32]) {
        exp_in_place_f32(out);
    }
}

crate::simd::multiversion! {
    avx512;
    /// [`KernelMatrix::outer`], in the AVX2 build when the CPU has it: the vectorised `exp` of
    /// the rbf and laplacian kernels runs four values per instruction instead of two (no FMA,
    /// so the values are those of the baseline build).
    fn outer_dispatch(kernel: Kernel, out: &mut [f64], norms: &[f64], qnorm: f64) {
        match kernel {
            Kernel::Linear | Kernel::Precomputed => {}
            Kernel::Rbf { gamma } => {
                for (o, &n) in out.iter_mut().zip(norms) {
                    *o = -gamma * (n + qnorm - 2.0 * *o).max(0.0);
                }
                exp_in_place(out);
            }
            Kernel::Laplacian { gamma } => {
                for o in out.iter_mut() {
                    *o = -gamma * o.max(0.0);
                }
                exp_in_place(out);
            }
            Kernel::Poly {
                gamma,
                coef0,
                degree,
            } => {
                for o in out.iter_mut() {
                    *o = (gamma * *o + coef0).powi(degree as i32);
                }
            }
            Kernel::Sigmoid { gamma, coef0 } => {
                for o in out.iter_mut() {
                    *o = (gamma * *o + coef0).tanh();
                }
            }
        }
    }
}

/// out[r] = f(lo + r).
#[inline(always)]
fn fill(out: &mut [f64], lo: usize, f: impl Fn(usize) -> f64) {
    for (r, o) in out.iter_mut().enumerate() {
        *o = f(lo + r);
    }
}

/// Entry (i, j) of a Gram matrix stored as features.
fn gram_entry(data: &Features<'_>, i: usize, j: usize) -> f64 {
    match data {
        Features::Dense(d) => d.row(i).get(j).copied().unwrap_or(0.0),
        Features::Sparse(s) => {
            let (idx, val) = s.row(i);
            idx.binary_search(&(j as u32)).map_or(0.0, |p| val[p])
        }
    }
}

impl KernelMatrix<'_> {
    /// Row i of sparse data with its column indices as the scatter buffer numbers them (the
    /// renumbered ones when the data has a [`FeatureMap`]).
    #[inline(always)]
    fn scattered_row<'s>(&'s self, s: &CsrView<'s>, i: usize) -> (&'s [u32], &'s [f64]) {
        let (idx, val) = s.row(i);
        match &self.features {
            None => (idx, val),
            Some(map) => {
                let (lo, hi) = (s.indptr()[i], s.indptr()[i + 1]);
                (&map.local[lo..hi], val)
            }
        }
    }

    /// Scatters a sparse query into the scratch buffer, whose length is a power of two: it lets
    /// the gather loops mask their indices instead of bounds-checking.
    fn scatter<'s>(&self, scratch: &'s mut QueryScratch, idx: &[u32], val: &[f64]) -> &'s [f64] {
        let span = match &self.features {
            None => self.data.n_cols(),
            Some(map) => map.used.len(),
        };
        let len = span.max(1).next_power_of_two();
        if scratch.dense.len() < len {
            scratch.dense.resize(len, 0.0);
        }
        match &self.features {
            None => {
                for (&i, &v) in idx.iter().zip(val) {
                    scratch.dense[i as usize] = v;
                }
            }
            Some(map) => {
                for (&i, &v) in idx.iter().zip(val) {
                    if let Ok(p) = map.used.binary_search(&i) {
                        scratch.dense[p] = v;
                    }
                }
            }
        }
        &scratch.dense[..len]
    }

    /// Clears what [`Self::scatter`] wrote for the same query.
    fn clear(&self, scratch: &mut QueryScratch, idx: &[u32]) {
        match &self.features {
            None => {
                for &i in idx {
                    scratch.dense[i as usize] = 0.0;
                }
            }
            Some(map) => {
                for &i in idx {
                    if let Ok(p) = map.used.binary_search(&i) {
                        scratch.dense[p] = 0.0;
                    }
                }
            }
        }
    }
}

/// The kernel values between every row of `x` and every row of `columns`, row-major
/// (`x.n_rows()` × `columns.n_rows()`): the features of a Nyström approximation, k(x, S) for
/// landmarks S. Parallel over the rows of `x`.
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for a precomputed kernel or differing feature counts;
/// [`FwsvmError::OutOfMemory`](crate::FwsvmError) if the result cannot be allocated.
pub fn cross_kernel(kernel: Kernel, x: Features<'_>, columns: Features<'_>) -> Result<Vec<f64>> {
    let s = columns.n_rows();
    let mut out = crate::error::try_filled(x.n_rows().saturating_mul(s), 0.0, "kernel values")?;
    cross_kernel_blocks(kernel, x, columns, &mut out, s, 64, |k, rows, ()| {
        rows.copy_from_slice(k);
    })?;
    Ok(out)
}

/// `f(k, out rows, scratch)` for consecutive blocks of at most `block_rows` rows of `x`: k the
/// block's kernel values against every row of `columns` (row-major, block rows ×
/// `columns.n_rows()`), `out`'s matching rows of `width` values each, and a `S::default()`
/// scratch value kept across the blocks of one task. Parallel over the rows; a block's values
/// exist only while `f` runs (a map of many rows never holds all its kernel values).
///
/// # Errors
/// As [`cross_kernel`] (`out` must hold `x.n_rows()` rows of `width`).
pub(crate) fn cross_kernel_blocks<T: Send, S: Default>(
    kernel: Kernel,
    x: Features<'_>,
    columns: Features<'_>,
    out: &mut [T],
    width: usize,
    block_rows: usize,
    f: impl Fn(&[f64], &mut [T], &mut S) + Sync,
) -> Result<()> {
    let s = columns.n_rows();
    if out.len() != x.n_rows().saturating_mul(width) {
        return Err(FwsvmError::InvalidInput(format!(
            "{} output values for {} rows of {width}",
            out.len(),
            x.n_rows()
        )));
    }
    let matrix = KernelMatrix::new(kernel, columns);
    if x.n_rows() > 0 && s > 0 {
        // Checks the kernel and the feature counts once.
        let mut probe = vec![0.0; s];
        matrix.query_row(&x, 0, &mut probe, &mut QueryScratch::new())?;
    }
    if s == 0 || width == 0 {
        return Ok(());
    }
    let work = x
        .n_rows()
        .saturating_mul(s)
        .saturating_mul(x.n_cols().max(1) + width);
    // One task per thread, each with one buffer (and scratch) for all its blocks: no
    // allocation per block. (Measured in a Dask worker, whose nanny sets glibc's
    // MALLOC_TRIM_THRESHOLD_, and in a plain process with and without it: the same time —
    // BENCHMARKS, seventh stop.)
    let block_rows = block_rows.max(1);
    let per_task = x
        .n_rows()
        .div_ceil(crate::parallel::current_num_threads())
        .max(block_rows);
    crate::parallel::for_each_chunk(out, per_task * width, work, |lo, rows| {
        let mut k = vec![0.0; block_rows.min(rows.len() / width) * s];
        let mut scratch = QueryScratch::new();
        let mut own = S::default();
        for (b, rows) in rows.chunks_mut(block_rows * width).enumerate() {
            let first = lo / width + b * block_rows;
            let k = &mut k[..rows.len() / width * s];
            for (r, row) in k.chunks_mut(s).enumerate() {
                matrix.query_range(&x, first + r, 0, row, &mut scratch);
            }
            f(k, rows, &mut own);
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{CsrView, DenseView};
    use crate::random::SplitMix64;

    /// Sparse data over a huge feature space (renumbered features) gives the columns, rows and
    /// expansions of the same data over a small one, for every kernel.
    #[test]
    fn renumbered_features_give_the_same_kernel_values() {
        let mut rng = SplitMix64::new(11);
        let m = 300;
        let (indptr, small) = rng.sparse_pattern(m, 6, 500);
        // The same values with the features spread over 2³¹ (order preserved).
        let huge: Vec<u32> = small.iter().map(|&f| f * 4_000_000 + 7).collect();
        let values: Vec<f64> = (0..small.len()).map(|_| rng.normal()).collect();
        let a = Features::Sparse(CsrView::new(&indptr, &small, &values, 2_000_000_000).unwrap());
        let b = Features::Sparse(CsrView::new(&indptr, &huge, &values, 2_000_000_007).unwrap());
        let kernels = [
            Kernel::rbf(0.3),
            Kernel::Linear,
            Kernel::Laplacian { gamma: 0.2 },
        ];
        for kernel in kernels {
            let (ka, kb) = (KernelMatrix::new(kernel, a), KernelMatrix::new(kernel, b));
            assert!(ka.features.is_some() && kb.features.is_some());
            let small_km = KernelMatrix::new(
                kernel,
                Features::Sparse(CsrView::new(&indptr, &small, &values, 500).unwrap()),
            );
            assert!(small_km.features.is_none());
            let mut scratch = QueryScratch::new();
            for j in [0, 17, 299] {
                let (mut ca, mut cb, mut cs) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
                ka.column(j, &mut ca, &mut scratch);
                kb.column(j, &mut cb, &mut scratch);
                small_km.column(j, &mut cs, &mut scratch);
                assert_eq!(ca, cs, "{kernel:?}");
                assert_eq!(cb, cs, "{kernel:?}");
            }
        }
    }

    /// `add_expansion` (the rebuild of shrunk rows, evaluated a block of rows at a time) equals
    /// the sum of single entries, for every kernel and every storage path: feature-major dense,
    /// row-major dense (> 64 features), sparse real values, and indicator bits.
    #[test]
    fn expansion_equals_the_sum_of_single_entries_for_every_kernel_and_storage() {
        let mut rng = SplitMix64::new(3);
        let m = 2100;
        let dense_low: Vec<f64> = (0..m * 5).map(|_| rng.normal()).collect();
        let dense_high: Vec<f64> = (0..m * 70).map(|_| rng.normal()).collect();
        // Sparse rows: 4 of 200 features, real values or all ones.
        let (indptr, indices) = rng.sparse_pattern(m, 4, 200);
        let real: Vec<f64> = (0..indices.len()).map(|_| rng.normal()).collect();
        let ones = vec![1.0; indices.len()];
        let storages = [
            (
                "feature-major",
                Features::Dense(DenseView::new(&dense_low, m, 5).unwrap()),
            ),
            (
                "row-major",
                Features::Dense(DenseView::new(&dense_high, m, 70).unwrap()),
            ),
            (
                "sparse",
                Features::Sparse(CsrView::new(&indptr, &indices, &real, 200).unwrap()),
            ),
            (
                "bits",
                Features::Sparse(CsrView::new(&indptr, &indices, &ones, 200).unwrap()),
            ),
        ];
        let kernels = [
            Kernel::rbf(0.3),
            Kernel::Linear,
            Kernel::poly(0.2, 1.0, 3),
            Kernel::Laplacian { gamma: 0.2 },
            Kernel::Sigmoid {
                gamma: 0.01,
                coef0: 0.5,
            },
        ];
        let rows: Vec<usize> = (0..m).step_by(7).collect();
        let coef: Vec<f64> = rows.iter().map(|_| rng.normal()).collect();
        for (name, data) in storages {
            for kernel in kernels {
                let km = KernelMatrix::new(kernel, data);
                match name {
                    "feature-major" => assert!(km.by_feature.is_some()),
                    "bits" if kernel.norm_kind() != NormKind::L1 => assert!(km.bits.is_some()),
                    _ => {}
                }
                let mut out = vec![0.5; m];
                km.add_expansion(Terms::new(&data, &rows, &coef), &mut out);
                for r in (0..m).step_by(13) {
                    let want: f64 = 0.5
                        + rows
                            .iter()
                            .zip(&coef)
                            .map(|(&t, &c)| c * km.entry(r, t))
                            .sum::<f64>();
                    let scale: f64 = 1.0 + coef.iter().map(|c| c.abs()).sum::<f64>();
                    assert!(
                        (out[r] - want).abs() <= 1e-12 * scale,
                        "{name} {kernel:?} row {r}: {} vs {want}",
                        out[r]
                    );
                }
            }
        }
    }
}
