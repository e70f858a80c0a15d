//! Row-at-a-time linear algebra against a dense vector: what the linear solvers (dual
//! coordinate descent, SGD) need from the data, O(nnz of the row) per call for sparse rows.

use super::Features;
use crate::kernel::dot::{dense_dot, sparse_dense_dot, sq_norm};

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
