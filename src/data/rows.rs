//! Row-at-a-time linear algebra against a dense vector: what the linear solvers (dual
//! coordinate descent, SGD, CoCoA's shards) need from the data, O(nnz of the row) per call for
//! sparse rows; [`LinearRows`] also over dense `f32` rows ([`DenseF32View`]: a float32 feature
//! map, half the memory and half the bytes a sweep streams).

use super::Features;
use crate::error::{FwsvmError, Result};
use crate::kernel::dot::{dense_dot, dense_dot_f32, sparse_dense_dot, sq_norm, sq_norm_f32};

/// Rows a linear solver reads one at a time against `f64` vectors (all arithmetic in `f64`).
pub trait LinearRows: Sync {
    /// Number of rows.
    fn n_rows(&self) -> usize;
    /// Number of features per row.
    fn n_cols(&self) -> usize;
    /// ⟨x_i, w⟩ with `w` at least `n_cols` long (longer entries are ignored).
    fn row_dot(&self, i: usize, w: &[f64]) -> f64;
    /// w ← w + a·x_i.
    fn row_axpy(&self, i: usize, a: f64, w: &mut [f64]);
    /// ‖x_i‖².
    fn row_sq_norm(&self, i: usize) -> f64;
}

impl LinearRows for Features<'_> {
    fn n_rows(&self) -> usize {
        Features::n_rows(self)
    }
    fn n_cols(&self) -> usize {
        Features::n_cols(self)
    }
    #[inline]
    fn row_dot(&self, i: usize, w: &[f64]) -> f64 {
        Features::row_dot(self, i, w)
    }
    #[inline]
    fn row_axpy(&self, i: usize, a: f64, w: &mut [f64]) {
        Features::row_axpy(self, i, a, w);
    }
    #[inline]
    fn row_sq_norm(&self, i: usize) -> f64 {
        Features::row_sq_norm(self, i)
    }
}

/// A borrowed dense row-major matrix of `f32` values (a float32 feature map's block).
#[derive(Clone, Copy, Debug)]
pub struct DenseF32View<'a> {
    data: &'a [f32],
    n_rows: usize,
    n_cols: usize,
}

impl<'a> DenseF32View<'a> {
    /// `n_rows` × `n_cols` values, row-major.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the length differs from `n_rows · n_cols`,
    /// [`FwsvmError::NonFinite`] for a NaN or infinite value (naming its row).
    pub fn new(data: &'a [f32], n_rows: usize, n_cols: usize) -> Result<Self> {
        if n_rows.checked_mul(n_cols) != Some(data.len()) {
            return Err(FwsvmError::InvalidInput(format!(
                "{} values are not {n_rows} rows × {n_cols} columns",
                data.len()
            )));
        }
        if let Some(k) = data.iter().position(|v| !v.is_finite()) {
            return Err(FwsvmError::NonFinite {
                what: "X",
                row: k / n_cols.max(1),
            });
        }
        Ok(DenseF32View {
            data,
            n_rows,
            n_cols,
        })
    }

    /// Row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &'a [f32] {
        &self.data[i * self.n_cols..(i + 1) * self.n_cols]
    }
}

impl LinearRows for DenseF32View<'_> {
    fn n_rows(&self) -> usize {
        self.n_rows
    }
    fn n_cols(&self) -> usize {
        self.n_cols
    }
    #[inline]
    fn row_dot(&self, i: usize, w: &[f64]) -> f64 {
        dense_dot_f32(self.row(i), &w[..self.n_cols])
    }
    #[inline]
    fn row_axpy(&self, i: usize, a: f64, w: &mut [f64]) {
        for (wj, &xj) in w.iter_mut().zip(self.row(i)) {
            *wj += a * f64::from(xj);
        }
    }
    #[inline]
    fn row_sq_norm(&self, i: usize) -> f64 {
        sq_norm_f32(self.row(i))
    }
}

impl Features<'_> {
    /// ⟨x_i, w⟩ with `w` at least `n_cols` long (longer entries are ignored).
    #[inline]
    pub(crate) fn row_dot(&self, i: usize, w: &[f64]) -> f64 {
        match self {
            Features::Dense(d) => {
                let row = d.row(i);
                dense_dot(row, &w[..row.len()])
            }
            Features::Sparse(s) => {
                let (idx, val) = s.row(i);
                sparse_dense_dot(idx, val, w)
            }
        }
    }

    /// w ← w + a·x_i.
    #[inline]
    pub(crate) fn row_axpy(&self, i: usize, a: f64, w: &mut [f64]) {
        match self {
            Features::Dense(d) => {
                for (wj, &xj) in w.iter_mut().zip(d.row(i)) {
                    *wj += a * xj;
                }
            }
            Features::Sparse(s) => {
                let (idx, val) = s.row(i);
                for (&j, &v) in idx.iter().zip(val) {
                    w[j as usize] += a * v;
                }
            }
        }
    }

    /// ‖x_i‖².
    #[inline]
    pub(crate) fn row_sq_norm(&self, i: usize) -> f64 {
        match self {
            Features::Dense(d) => sq_norm(d.row(i)),
            Features::Sparse(s) => sq_norm(s.row(i).1),
        }
    }
}
