//! Kernel columns of low-dimensional data, vectorised across rows.
//!
//! A column k(X, x_j) of data with few features (shuttle: 9, satimage: 36, digits: 64) costs
//! one short inner product per row, too short to vectorise along the features, and on sparse
//! storage a gather per stored value. Stored feature by feature (the transpose: all rows'
//! values of feature 0, then feature 1, …) the same products are an axpy per feature over a
//! block of rows — out[i] += x_f[i]·q_f — which the compiler vectorises across rows. The sum
//! over features is taken in feature order, the same for every row, block and thread, so the
//! columns do not depend on the thread count or the instruction set.

use super::block::BLOCK;
use crate::data::Features;

/// Feature-major storage is used up to this many features.
pub(crate) const MAX_FEATURES: usize = 64;

/// ... and when at least this fraction of the m × n_features values is non-zero (sparse
/// storage of sparser data reads fewer values than the full transpose).
const MIN_DENSITY: f64 = 0.5;

/// The data transposed: `values[f·m + i]` is feature f of row i.
#[derive(Debug, Clone)]
pub(crate) struct FeatureMajor {
    m: usize,
    n_features: usize,
    values: Vec<f64>,
}

/// Writes row `i` of `data` into column `c` of the feature-major `out`: `out[f·stride + c]` =
/// x_{i,f} for each feature f the row stores (the others are left as they are).
#[inline]
pub(crate) fn transpose_row(
    data: &Features<'_>,
    i: usize,
    out: &mut [f64],
    stride: usize,
    c: usize,
) {
    match data {
        Features::Dense(x) => {
            for (f, &v) in x.row(i).iter().enumerate() {
                out[f * stride + c] = v;
            }
        }
        Features::Sparse(s) => {
            let (idx, val) = s.row(i);
            for (&f, &v) in idx.iter().zip(val) {
                out[f as usize * stride + c] = v;
            }
        }
    }
}

impl FeatureMajor {
    /// The transpose of `data` when it has at most [`MAX_FEATURES`] features and is dense
    /// enough (the same decision for dense and sparse storage of the same values).
    pub(crate) fn pack(data: &Features<'_>) -> Option<FeatureMajor> {
        let (m, d) = (data.n_rows(), data.n_cols());
        if d == 0 || d > MAX_FEATURES || m == 0 {
            return None;
        }
        let nonzero = match data {
            Features::Dense(x) => x.as_slice().iter().filter(|&&v| v != 0.0).count(),
            Features::Sparse(s) => s.data().iter().filter(|&&v| v != 0.0).count(),
        };
        if (nonzero as f64) < MIN_DENSITY * (m * d) as f64 {
            return None;
        }
        let mut values = vec![0.0; m * d];
        for i in 0..m {
            transpose_row(data, i, &mut values, m, i);
        }
        Some(FeatureMajor {
            m,
            n_features: d,
            values,
        })
    }

    /// Row j as a dense vector, into `q` (cleared and resized).
    pub(crate) fn row_into(&self, j: usize, q: &mut Vec<f64>) {
        q.clear();
        q.extend((0..self.n_features).map(|f| self.values[f * self.m + j]));
    }

    /// out[r] = ⟨x_{lo+r}, q⟩ (`l1 == false`) or ‖x_{lo+r} − q‖₁ (`l1 == true`), for a dense
    /// query q with one value per feature.
    pub(crate) fn products(&self, q: &[f64], l1: bool, lo: usize, out: &mut [f64]) {
        debug_assert_eq!(q.len(), self.n_features);
        products_dispatch(self, q, l1, lo, out);
    }
}

/// Rows per register tile of [`FeatureMajor::products`]: the tile's partial sums stay in
/// registers (4 AVX-512 or 8 AVX2 registers) while every feature is added, so each product
/// costs one load instead of a load, a load and a store of the running sum.
const TILE: usize = 32;

crate::simd::multiversion! {
    avx512;
    /// [`FeatureMajor::products`], in the AVX-512 or AVX2 build when the CPU has it (no FMA:
    /// every tier adds the products of a row in feature order from 0.0, the same values).
    fn products_dispatch(x: &FeatureMajor, q: &[f64], l1: bool, lo: usize, out: &mut [f64]) {
        let m = x.m;
        let n = out.len();
        let mut r = 0;
        while r + TILE <= n {
            let mut acc = [0.0f64; TILE];
            for (f, &qf) in q.iter().enumerate() {
                let start = f * m + lo + r;
                let xf: &[f64; TILE] = x.values[start..start + TILE]
                    .try_into()
                    .expect("a tile of TILE values");
                if l1 {
                    for t in 0..TILE {
                        acc[t] += (xf[t] - qf).abs();
                    }
                } else {
                    for t in 0..TILE {
                        acc[t] += xf[t] * qf;
                    }
                }
            }
            out[r..r + TILE].copy_from_slice(&acc);
            r += TILE;
        }
        for (t, o) in out.iter_mut().enumerate().skip(r) {
            let mut acc = 0.0;
            for (f, &qf) in q.iter().enumerate() {
                let v = x.values[f * m + lo + t];
                acc += if l1 { (v - qf).abs() } else { v * qf };
            }
            *o = acc;
        }
    }
}

/// Rows per register tile of [`FeatureMajor::products_block`]: the tile's `TILE_ROWS` ×
/// [`BLOCK`] partial sums (16 AVX-512 registers) stay in registers while every feature is
/// added, so each row value is read once for all the block's queries.
const TILE_ROWS: usize = 16;

impl FeatureMajor {
    /// The tile product of the `n` rows lo.. with up to [`BLOCK`] queries: `out[c·n + r]` =
    /// ⟨x_{lo+r}, q_c⟩ (`l1 == false`) or ‖x_{lo+r} − q_c‖₁ (`l1 == true`), where `table[f·BLOCK
    /// + c]` is feature f of query c (`out` holds [`BLOCK`] runs of n values, one per query).
    /// One pass over the rows' values serves every query of the block (a GEMM-shaped register
    /// tile), and each sum adds the features in order from 0.0 — the values of
    /// [`FeatureMajor::products`] for each query, bit for bit.
    pub(crate) fn products_block(&self, table: &[f64], l1: bool, lo: usize, out: &mut [f64]) {
        debug_assert_eq!(table.len(), self.n_features * BLOCK);
        debug_assert_eq!(out.len() % BLOCK, 0);
        if l1 {
            block_l1(self, table, lo, out);
        } else {
            block_dot(self, table, lo, out);
        }
    }
}

crate::simd::multiversion! {
    avx512;
    /// [`FeatureMajor::products_block`] of inner products, in the AVX-512 or AVX2 build when
    /// the CPU has it (no FMA: a multiply then an add, as the single-query path).
    fn block_dot(x: &FeatureMajor, table: &[f64], lo: usize, out: &mut [f64]) {
        tile(x, table, lo, out, false, |v, q| v * q)
    }
}

crate::simd::multiversion! {
    avx512;
    /// [`FeatureMajor::products_block`] of L1 distances (same tiers as [`block_dot`]).
    fn block_l1(x: &FeatureMajor, table: &[f64], lo: usize, out: &mut [f64]) {
        tile(x, table, lo, out, true, |v, q| (v - q).abs())
    }
}

/// The register tile of [`FeatureMajor::products_block`]: [`TILE_ROWS`] rows (contiguous in
/// the transpose, so one vector load per feature) × [`BLOCK`] queries (one broadcast each),
/// `term(x, q)` (the product, or |x − q| when `l1`) added per feature in order; whole tiles by
/// [`super::tile_avx512`] where the CPU has AVX-512.
#[inline(always)]
fn tile(
    x: &FeatureMajor,
    table: &[f64],
    lo: usize,
    out: &mut [f64],
    l1: bool,
    term: impl Fn(f64, f64) -> f64,
) {
    let m = x.m;
    let n = out.len() / BLOCK;
    let d = x.n_features;
    let mut r = 0;
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx512() {
        // SAFETY: the CPU has AVX-512F (`simd::avx512` detected it).
        #[allow(unsafe_code)]
        {
            r = unsafe { super::tile_avx512::tiles(&x.values, m, d, table, lo, n, l1, out) };
        }
    }
    while r + TILE_ROWS <= n {
        let mut acc = [[0.0f64; TILE_ROWS]; BLOCK];
        for f in 0..d {
            let q: &[f64; BLOCK] = table[f * BLOCK..(f + 1) * BLOCK]
                .try_into()
                .expect("a block of the table");
            let start = f * m + lo + r;
            let xf: &[f64; TILE_ROWS] = x.values[start..start + TILE_ROWS]
                .try_into()
                .expect("a tile of rows");
            for c in 0..BLOCK {
                let qc = q[c];
                for t in 0..TILE_ROWS {
                    acc[c][t] += term(xf[t], qc);
                }
            }
        }
        for c in 0..BLOCK {
            out[c * n + r..c * n + r + TILE_ROWS].copy_from_slice(&acc[c]);
        }
        r += TILE_ROWS;
    }
    for t in r..n {
        let mut acc = [0.0f64; BLOCK];
        for f in 0..d {
            let v = x.values[f * m + lo + t];
            for c in 0..BLOCK {
                acc[c] += term(v, table[f * BLOCK + c]);
            }
        }
        for c in 0..BLOCK {
            out[c * n + t] = acc[c];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{CsrMatrix, DenseMatrix};

    #[test]
    fn products_match_row_by_row_sums_for_dense_and_sparse_storage() {
        let (m, d) = (2500, 5);
        let values: Vec<f64> = (0..m * d)
            .map(|k| {
                if k % 7 == 3 {
                    0.0
                } else {
                    ((k * 37 % 101) as f64 - 50.0) / 17.0
                }
            })
            .collect();
        let dense = DenseMatrix::new(values.clone(), m, d).expect("shape");
        let (mut indptr, mut indices, mut data) = (vec![0], Vec::new(), Vec::new());
        for i in 0..m {
            for f in 0..d {
                if values[i * d + f] != 0.0 {
                    indices.push(f as u32);
                    data.push(values[i * d + f]);
                }
            }
            indptr.push(indices.len());
        }
        let sparse = CsrMatrix::new(indptr, indices, data, d).expect("valid");
        let a = FeatureMajor::pack(&Features::Dense(dense.view())).expect("dense enough");
        let b = FeatureMajor::pack(&Features::Sparse(sparse.view())).expect("dense enough");
        assert_eq!(a.values, b.values);
        let mut q = Vec::new();
        a.row_into(17, &mut q);
        assert_eq!(q, values[17 * d..18 * d]);
        for l1 in [false, true] {
            let mut out = vec![0.0; m - 3];
            a.products(&q, l1, 3, &mut out);
            for (r, &o) in out.iter().enumerate() {
                let row = &values[(r + 3) * d..(r + 4) * d];
                let expected = row.iter().zip(&q).fold(0.0, |acc, (x, y)| {
                    acc + if l1 { (x - y).abs() } else { x * y }
                });
                assert_eq!(o, expected, "row {}, l1 = {l1}", r + 3);
            }
        }
    }

    #[test]
    fn wide_or_sparse_data_is_not_transposed() {
        let wide = DenseMatrix::new(vec![1.0; 2 * 65], 2, 65).expect("shape");
        assert!(FeatureMajor::pack(&Features::Dense(wide.view())).is_none());
        let mut sparse_values = vec![0.0; 10 * 8];
        sparse_values[3] = 1.0;
        let sparse = DenseMatrix::new(sparse_values, 10, 8).expect("shape");
        assert!(FeatureMajor::pack(&Features::Dense(sparse.view())).is_none());
    }
}
