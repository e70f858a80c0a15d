//! Several kernel columns from one pass over the data.
//!
//! A column of sparse real-valued or wide dense data costs one inner product per row, and
//! computing it streams the whole data set through memory: on mnist (60,000 rows, ~150 of 784
//! features stored per row) that is ~100 MB per column, ~75 ns per kernel value, and 91% of a
//! fit. With the queries of a block of [`BLOCK`] columns scattered into a small feature-major
//! table (feature f's values for the block's queries side by side), each stored value of a row
//! is read once and multiplied into all the block's inner products with one vector
//! multiply-add: the same data traffic yields [`BLOCK`] columns.
//!
//! Every inner product adds the same terms in the same order as the single-column paths
//! (row order of the stored values, or of the features), so a block column equals the single
//! column bit for bit; the kernel's outer function is then the same call per column.

use super::QueryScratch;
use super::bits::{Out, Value};
use super::feature_major::transpose_row;
use super::matrix::{KernelMatrix, Terms};
use crate::data::Features;
use crate::parallel::for_each_chunk;

/// Columns computed per pass (8 `f64` lanes: one AVX-512 register per stored value).
pub const BLOCK: usize = 8;

/// The query table may use at most this many bytes (features × [`BLOCK`] × 8): wider data
/// computes its columns one at a time.
const MAX_TABLE_BYTES: usize = 32 << 20;

/// Rows per parallel task.
const ROWS: usize = 2048;

/// Lane sums of a dense inner product (as in `dot::dense_dot`).
const LANES: usize = 8;

/// The transposed queries: `table[f·BLOCK + c]` is feature f of query c (0 for the unused
/// lanes of a partial block).
pub(crate) struct QueryTable {
    table: Vec<f64>,
}

impl QueryTable {
    /// The table for the data rows `js` (at most [`BLOCK`]) of `data`, or `None` when the data
    /// is too wide for it.
    pub(crate) fn new(data: &Features<'_>, js: &[usize]) -> Option<QueryTable> {
        debug_assert!(js.len() <= BLOCK);
        let d = data.n_cols();
        if d.saturating_mul(BLOCK * 8) > MAX_TABLE_BYTES {
            return None;
        }
        let mut table = vec![0.0; d * BLOCK];
        for (c, &j) in js.iter().enumerate() {
            transpose_row(data, j, &mut table, BLOCK, c);
        }
        Some(QueryTable { table })
    }
}

crate::simd::multiversion! {
    avx512;
    /// Inner products of rows lo.. of `data` with the table's queries: `out[r·BLOCK + c]` =
    /// ⟨x_{lo+r}, q_c⟩, each a sum over the row's stored values (or features) in order.
    fn products(data: &Features<'_>, table: &[f64], lo: usize, out: &mut [f64]) {
        for (r, acc_out) in out.chunks_exact_mut(BLOCK).enumerate() {
            let mut acc = [0.0f64; BLOCK];
            match data {
                Features::Sparse(x) => {
                    let (idx, val) = x.row(lo + r);
                    for (&f, &v) in idx.iter().zip(val) {
                        let q: &[f64; BLOCK] = table[f as usize * BLOCK..(f as usize + 1) * BLOCK]
                            .try_into()
                            .expect("a block of the table");
                        for c in 0..BLOCK {
                            acc[c] += v * q[c];
                        }
                    }
                }
                Features::Dense(x) => {
                    // `dense_dot`'s order: eight lane sums over features 8k + l, combined
                    // pairwise, then the tail in order.
                    let row = x.row(lo + r);
                    let mut lanes = [[0.0f64; BLOCK]; LANES];
                    let full = row.len() / LANES * LANES;
                    for f0 in (0..full).step_by(LANES) {
                        for l in 0..LANES {
                            let (f, v) = (f0 + l, row[f0 + l]);
                            let q: &[f64; BLOCK] = table[f * BLOCK..(f + 1) * BLOCK]
                                .try_into()
                                .expect("a block of the table");
                            for c in 0..BLOCK {
                                lanes[l][c] += v * q[c];
                            }
                        }
                    }
                    let mut tail = [0.0f64; BLOCK];
                    for f in full..row.len() {
                        for c in 0..BLOCK {
                            tail[c] += row[f] * table[f * BLOCK + c];
                        }
                    }
                    for c in 0..BLOCK {
                        acc[c] = (lanes[0][c] + lanes[4][c])
                            + (lanes[1][c] + lanes[5][c])
                            + (lanes[2][c] + lanes[6][c])
                            + (lanes[3][c] + lanes[7][c])
                            + tail[c];
                    }
                }
            }
            acc_out.copy_from_slice(&acc);
        }
    }
}

impl KernelMatrix<'_> {
    /// Whether [`KernelMatrix::columns`] computes several columns for about the price of one:
    /// inner-product kernels on sparse real-valued data or on dense data too wide for the
    /// feature-major layout, where one column is a pass over the data limited by memory
    /// traffic. (Indicator data has its bit-counting look-up; low-dimensional dense data
    /// computes a block of columns as a register tile, [`KernelMatrix::tiles_pay`], faster per
    /// value than one column but not free: a column costs its d multiply-adds a row either way.)
    pub fn blocks_pay(&self) -> bool {
        self.block_path() && self.data().n_cols() * BLOCK * 8 <= MAX_TABLE_BYTES
    }

    /// Whether [`KernelMatrix::columns`] computes a block of columns as one register tile over
    /// the transposed data (low-dimensional dense data): each value is read once for the
    /// block's [`BLOCK`] queries instead of once per column — the engine of the blocked
    /// working sets.
    pub fn tiles_pay(&self) -> bool {
        // The transposed data exists only for dense enough low-dimensional data and the
        // kernels of an inner product or an L1 distance (not indicator bits, not precomputed).
        self.feature_major().is_some()
    }

    /// The kernel columns of the rows `js` (at most [`BLOCK`]) into `outs` (each of length m),
    /// in `f64` or `f32` (the column cache's storage), equal bit for bit to
    /// [`KernelMatrix::column`] (or [`KernelMatrix::column_f32`]) of each; one pass over the
    /// data where [`KernelMatrix::blocks_pay`] or [`KernelMatrix::tiles_pay`], one column at a
    /// time otherwise.
    pub fn columns<T: Value>(
        &self,
        js: &[usize],
        outs: &mut [&mut [T]],
        scratch: &mut QueryScratch,
    ) {
        let finish =
            |products: &mut [f64], norms: &[f64], qnorm: f64, out: &mut [T]| match T::slice(out) {
                Out::F64(out) => {
                    self.outer(products, norms, qnorm);
                    out.copy_from_slice(products);
                }
                Out::F32(out) => self.outer_f32(products, norms, qnorm, out),
            };
        if !self.columns_with(js, outs, finish) {
            for (&j, out) in js.iter().zip(outs.iter_mut()) {
                match T::slice(out) {
                    Out::F64(out) => self.column(j, out, scratch),
                    Out::F32(out) => self.column_f32(j, out, scratch),
                }
            }
        }
    }

    /// The block of columns from one pass over the data, when that pays: the register tile
    /// over the transposed data ([`KernelMatrix::tiles_pay`], two or more columns) or the query
    /// table ([`KernelMatrix::block_path`]). Per chunk of [`ROWS`] rows the inner products (or
    /// L1 distances) of each column go through `finish` (the kernel's outer function, into the
    /// column's rows) while the chunk is in cache. Returns `false` (nothing done) otherwise.
    fn columns_with<T: Value>(
        &self,
        js: &[usize],
        outs: &mut [&mut [T]],
        finish: impl Fn(&mut [f64], &[f64], f64, &mut [T]) + Sync,
    ) -> bool {
        assert!(js.len() <= BLOCK && js.len() == outs.len());
        let data = self.data();
        let tile = if self.tiles_pay() && js.len() > 1 {
            self.feature_major()
        } else {
            None
        };
        if tile.is_none() && !self.block_path() {
            return false;
        }
        let Some(table) = QueryTable::new(&data, js) else {
            return false;
        };
        let m = self.n_rows();
        let norms = self.norms();
        let qnorms: Vec<f64> = js
            .iter()
            .map(|&j| if norms.is_empty() { 0.0 } else { norms[j] })
            .collect();
        let l1 = self.kernel().norm_kind() == super::NormKind::L1;
        // The columns' rows split by chunks: parts[k][c] is chunk k of column c.
        let mut parts: Vec<Vec<&mut [T]>> = (0..m.div_ceil(ROWS)).map(|_| Vec::new()).collect();
        for out in outs.iter_mut() {
            for (k, piece) in out.chunks_mut(ROWS).enumerate() {
                parts[k].push(piece);
            }
        }
        let work = match &data {
            Features::Dense(x) => m * (x.n_cols() + 4) * js.len(),
            Features::Sparse(x) => (x.nnz() + m) * js.len(),
        };
        for_each_chunk(&mut parts, 1, work, |k, part| {
            let pieces = &mut part[0];
            let (lo, n) = (k * ROWS, pieces[0].len());
            CHUNK_PRODUCTS.with_borrow_mut(|buf| {
                buf.resize(2 * n * BLOCK, 0.0);
                let (buf, dots) = buf.split_at_mut(n * BLOCK);
                match tile {
                    Some(x) => x.products_block(&table.table, l1, lo, buf),
                    None => {
                        products(&data, &table.table, lo, dots);
                        // Row-major r·BLOCK + c to the tile's column runs c·n + r.
                        for (r, row) in dots.chunks(BLOCK).enumerate() {
                            for (c, &d) in row.iter().enumerate() {
                                buf[c * n + r] = d;
                            }
                        }
                    }
                }
                let norms = if norms.is_empty() {
                    &[][..]
                } else {
                    &norms[lo..lo + n]
                };
                for (c, piece) in pieces.iter_mut().enumerate() {
                    finish(&mut buf[c * n..(c + 1) * n], norms, qnorms[c], piece);
                }
            });
        });
        for (&j, out) in js.iter().zip(outs.iter_mut()) {
            // The diagonal entry is exact, as in `column`.
            out[j] = T::from_f64(self.diagonal()[j]);
        }
        true
    }
}

thread_local! {
    /// One chunk's inner products for [`KernelMatrix::columns_with`] (twice [`ROWS`] ×
    /// [`BLOCK`] values: the column runs and the query table's row-major sums), kept per
    /// thread between blocks.
    static CHUNK_PRODUCTS: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`KernelMatrix::add_expansion`] by blocks of [`BLOCK`] queries: out[r] += Σ_t coef_t
/// k(x_r, q_t) with the same kernel values added in the same order (so the same result), each
/// pass over a block of rows serving [`BLOCK`] queries. Returns `false` (and does nothing) when
/// the queries are too wide for a table.
pub(super) fn add_expansion_blocked(
    km: &KernelMatrix<'_>,
    terms: Terms<'_>,
    out: &mut [f64],
) -> bool {
    let (queries, rows, coef) = (terms.queries, terms.rows, terms.coef);
    let data = km.data();
    let same_storage = matches!(
        (&data, queries),
        (Features::Dense(_), Features::Dense(_)) | (Features::Sparse(_), Features::Sparse(_))
    );
    if !same_storage || queries.n_cols() * BLOCK * 8 > MAX_TABLE_BYTES {
        return false;
    }
    let rbf = !km.norms().is_empty();
    let qnorms: Vec<f64> = rows
        .iter()
        .map(|&t| {
            if !rbf {
                return 0.0;
            }
            super::dot::sq_norm(match queries {
                Features::Dense(x) => x.row(t),
                Features::Sparse(x) => x.row(t).1,
            })
        })
        .collect();
    let work = out.len() * rows.len() * 8;
    for_each_chunk(out, EXPANSION_ROWS, work, |lo, chunk| {
        let len = chunk.len();
        let mut dots = vec![0.0; len * BLOCK];
        let mut column = vec![0.0; len];
        for (b, block) in rows.chunks(BLOCK).enumerate() {
            let table = QueryTable::new(queries, block).expect("the width was checked");
            products(&data, &table.table, lo, &mut dots);
            for c in 0..block.len() {
                for (r, k) in column.iter_mut().enumerate() {
                    *k = dots[r * BLOCK + c];
                }
                let norms = if rbf {
                    &km.norms()[lo..lo + len]
                } else {
                    &[][..]
                };
                km.outer(&mut column, norms, qnorms[b * BLOCK + c]);
                let w = coef[b * BLOCK + c];
                for (o, &k) in chunk.iter_mut().zip(&column) {
                    *o += w * k;
                }
            }
        }
    });
    true
}

/// [`KernelMatrix::add_expansion`] on transposed data ([`KernelMatrix::tiles_pay`]): per
/// chunk of rows, the queries eight at a time as one register tile, each query's kernel values
/// (the values of the one-query path, bit for bit) added in the order of `rows`, so the result
/// is the one-query path's. With `rounded`, the kernel values are those of
/// [`KernelMatrix::column_f32`] instead (the sums stay `f64`). Returns `false` (and does
/// nothing) when the queries have another number of features than the data.
pub(super) fn add_expansion_tiled(
    km: &KernelMatrix<'_>,
    terms: Terms<'_>,
    out: &mut [f64],
    rounded: bool,
) -> bool {
    let (queries, rows, coef) = (terms.queries, terms.rows, terms.coef);
    let Some(x) = km.feature_major() else {
        return false;
    };
    let d = km.data().n_cols();
    if queries.n_cols() != d {
        return false;
    }
    let kind = km.kernel().norm_kind();
    let l1 = kind == super::NormKind::L1;
    // The query norms as the one-query path takes them: of the query as a dense row.
    let mut dense = vec![0.0; d];
    let qnorms: Vec<f64> = rows
        .iter()
        .map(|&t| {
            dense.iter_mut().for_each(|v| *v = 0.0);
            match queries {
                Features::Dense(q) => dense.copy_from_slice(q.row(t)),
                Features::Sparse(q) => {
                    let (idx, val) = q.row(t);
                    for (&f, &v) in idx.iter().zip(val) {
                        dense[f as usize] = v;
                    }
                }
            }
            match kind {
                super::NormKind::SquaredL2 => super::dot::sq_norm(&dense),
                super::NormKind::L1 => super::dot::l1_norm(&dense),
                super::NormKind::None => 0.0,
            }
        })
        .collect();
    let tables: Vec<QueryTable> = rows
        .chunks(BLOCK)
        .map(|block| QueryTable::new(queries, block).expect("low-dimensional queries"))
        .collect();
    let work = out.len() * rows.len() * (d + 4);
    for_each_chunk(out, EXPANSION_ROWS, work, |lo, chunk| {
        let n = chunk.len();
        let mut values = vec![0.0; n * BLOCK];
        let norms = if km.norms().is_empty() {
            &[][..]
        } else {
            &km.norms()[lo..lo + n]
        };
        for (b, table) in tables.iter().enumerate() {
            x.products_block(&table.table, l1, lo, &mut values);
            let first = b * BLOCK;
            let count = BLOCK.min(rows.len() - first);
            for c in 0..count {
                let column = &mut values[c * n..(c + 1) * n];
                let w = coef[first + c];
                if rounded {
                    let mut narrow = [0.0f32; EXPANSION_ROWS];
                    let narrow = &mut narrow[..n];
                    km.outer_f32(column, norms, qnorms[first + c], narrow);
                    for (o, &k) in chunk.iter_mut().zip(narrow.iter()) {
                        *o += w * f64::from(k);
                    }
                } else {
                    km.outer(column, norms, qnorms[first + c]);
                    for (o, &k) in chunk.iter_mut().zip(column.iter()) {
                        *o += w * k;
                    }
                }
            }
        }
    });
    true
}

/// Rows per task of [`add_expansion_blocked`] (as the single-query expansion).
const EXPANSION_ROWS: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{CsrView, DenseView};
    use crate::kernel::{Kernel, QueryScratch};
    use crate::random::SplitMix64;

    /// Block columns equal single columns bit for bit, for every kernel on every storage: sparse
    /// real-valued and wide dense data (the query table), narrow dense data (the feature-major
    /// register tile; 700 rows are not a multiple of its 16-row tile, so the tail is checked
    /// too) and indicator data (bit counting, one column at a time); full and partial blocks,
    /// with repeated queries.
    #[test]
    fn block_columns_equal_single_columns() {
        let mut rng = SplitMix64::new(7);
        let m = 700;
        let wide: Vec<f64> = (0..m * 90).map(|_| rng.normal()).collect();
        let (indptr, indices) = rng.sparse_pattern(m, 12, 300);
        let values: Vec<f64> = (0..indices.len()).map(|_| rng.normal()).collect();
        let ones = vec![1.0; indices.len()];
        let narrow: Vec<f64> = (0..m * 5).map(|_| rng.normal()).collect();
        let storages = [
            (
                "wide dense",
                Features::Dense(DenseView::new(&wide, m, 90).unwrap()),
            ),
            (
                "sparse",
                Features::Sparse(CsrView::new(&indptr, &indices, &values, 300).unwrap()),
            ),
            (
                "feature-major",
                Features::Dense(DenseView::new(&narrow, m, 5).unwrap()),
            ),
            (
                "bits",
                Features::Sparse(CsrView::new(&indptr, &indices, &ones, 300).unwrap()),
            ),
        ];
        let kernels = [
            Kernel::rbf(0.05),
            Kernel::Linear,
            Kernel::poly(0.1, 1.0, 3),
            Kernel::Sigmoid {
                gamma: 0.01,
                coef0: 0.2,
            },
            Kernel::Laplacian { gamma: 0.1 },
        ];
        for (storage, data) in storages {
            for kernel in kernels {
                let km = KernelMatrix::new(kernel, data);
                let laplacian = kernel == (Kernel::Laplacian { gamma: 0.1 });
                let expected = match storage {
                    "wide dense" | "sparse" => !laplacian,
                    "feature-major" => false,
                    _ => false,
                };
                assert_eq!(km.blocks_pay(), expected, "{storage} {kernel:?}");
                assert_eq!(
                    km.tiles_pay(),
                    storage == "feature-major",
                    "{storage} {kernel:?}"
                );
                // The blocked expansion adds the values of the one-query path (`query_row`: no
                // exact diagonal) in the same order.
                let rows: Vec<usize> = (0..m).step_by(37).collect();
                let coef: Vec<f64> = rows.iter().map(|&t| (t as f64 * 0.37).sin()).collect();
                let mut blocked = vec![0.25; m];
                km.add_expansion(Terms::new(&data, &rows, &coef), &mut blocked);
                let mut single = vec![0.25; m];
                let mut column = vec![0.0; m];
                for (&t, &w) in rows.iter().zip(&coef) {
                    km.query_row(&data, t, &mut column, &mut QueryScratch::new())
                        .unwrap();
                    for (o, &k) in single.iter_mut().zip(&column) {
                        *o += w * k;
                    }
                }
                assert_eq!(blocked, single, "{storage} {kernel:?}: blocked expansion");
                for js in [
                    vec![0, 5, 699, 17, 5, 300, 2, 1],
                    vec![3],
                    vec![640, 12, 99],
                ] {
                    let mut block = vec![vec![0.0; m]; js.len()];
                    let mut outs: Vec<&mut [f64]> =
                        block.iter_mut().map(|c| c.as_mut_slice()).collect();
                    let mut scratch = QueryScratch::new();
                    km.columns(&js, &mut outs, &mut scratch);
                    for (c, &j) in js.iter().enumerate() {
                        let mut single = vec![0.0; m];
                        km.column(j, &mut single, &mut scratch);
                        assert_eq!(block[c], single, "{storage} {kernel:?}, column {j}");
                    }
                }
            }
        }
    }
}
