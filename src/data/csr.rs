//! Compressed sparse row (CSR) feature matrices, scipy.sparse's layout.

use crate::error::{FwsvmError, Result};

/// A borrowed CSR matrix. Column indices within a row are strictly increasing (canonical form),
/// which the kernels rely on for norms and L1 distances.
#[derive(Clone, Copy, Debug)]
pub struct CsrView<'a> {
    indptr: &'a [usize],
    indices: &'a [u32],
    data: &'a [f64],
    n_cols: usize,
}

impl<'a> CsrView<'a> {
    /// Wraps scipy-style CSR arrays without copying, after checking them in O(nnz).
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] naming the first inconsistency: `indptr` not starting at 0 or
    /// decreasing, lengths that disagree, a column index `>= n_cols`, or indices within a row
    /// that are not strictly increasing (unsorted or duplicated).
    pub fn new(
        indptr: &'a [usize],
        indices: &'a [u32],
        data: &'a [f64],
        n_cols: usize,
    ) -> Result<Self> {
        let bad = |msg: String| Err(FwsvmError::InvalidInput(format!("CSR matrix: {msg}")));
        if indptr.is_empty() {
            return bad("indptr is empty (it needs n_rows + 1 entries)".into());
        }
        if indptr[0] != 0 {
            return bad(format!("indptr[0] is {}, expected 0", indptr[0]));
        }
        if indices.len() != data.len() {
            return bad(format!(
                "indices has {} entries but data has {}",
                indices.len(),
                data.len()
            ));
        }
        let nnz = indptr[indptr.len() - 1];
        if nnz != data.len() {
            return bad(format!(
                "indptr ends at {nnz} but data has {} entries",
                data.len()
            ));
        }
        for (r, w) in indptr.windows(2).enumerate() {
            if w[1] < w[0] {
                return bad(format!("indptr decreases at row {r}"));
            }
            // Checked before slicing: an intermediate entry beyond the stored values (with a
            // valid last entry) would otherwise index out of range.
            if w[1] > indices.len() {
                return bad(format!(
                    "indptr[{}] is {} but there are only {} stored values",
                    r + 1,
                    w[1],
                    indices.len()
                ));
            }
            let row = &indices[w[0]..w[1]];
            for (k, &c) in row.iter().enumerate() {
                if c as usize >= n_cols {
                    return bad(format!(
                        "row {r} has column index {c} but n_features is {n_cols}"
                    ));
                }
                if k > 0 && row[k - 1] >= c {
                    return bad(format!(
                        "row {r} has unsorted or duplicate column indices ({} then {c}); call sum_duplicates()/sort_indices() first",
                        row[k - 1]
                    ));
                }
            }
        }
        Ok(CsrView {
            indptr,
            indices,
            data,
            n_cols,
        })
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Number of columns.
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.data.len()
    }

    /// Row `i` as (column indices, values).
    #[inline]
    pub fn row(&self, i: usize) -> (&'a [u32], &'a [f64]) {
        let (lo, hi) = (self.indptr[i], self.indptr[i + 1]);
        (&self.indices[lo..hi], &self.data[lo..hi])
    }

    /// The stored values.
    pub fn data(&self) -> &'a [f64] {
        self.data
    }

    /// The row pointer array.
    pub fn indptr(&self) -> &'a [usize] {
        self.indptr
    }

    /// The column index array.
    pub fn indices(&self) -> &'a [u32] {
        self.indices
    }

    /// Copies the given rows into an owned CSR matrix.
    pub fn select_rows(&self, rows: &[usize]) -> CsrMatrix {
        let mut indptr = Vec::with_capacity(rows.len() + 1);
        indptr.push(0);
        let mut indices = Vec::new();
        let mut data = Vec::new();
        for &r in rows {
            let (idx, val) = self.row(r);
            indices.extend_from_slice(idx);
            data.extend_from_slice(val);
            indptr.push(data.len());
        }
        CsrMatrix {
            indptr,
            indices,
            data,
            n_cols: self.n_cols,
        }
    }
}

/// An owned CSR matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct CsrMatrix {
    indptr: Vec<usize>,
    indices: Vec<u32>,
    data: Vec<f64>,
    n_cols: usize,
}

impl CsrMatrix {
    /// Takes ownership of CSR arrays after the checks of [`CsrView::new`].
    ///
    /// # Errors
    /// As [`CsrView::new`].
    pub fn new(
        indptr: Vec<usize>,
        indices: Vec<u32>,
        data: Vec<f64>,
        n_cols: usize,
    ) -> Result<Self> {
        CsrView::new(&indptr, &indices, &data, n_cols)?;
        Ok(CsrMatrix {
            indptr,
            indices,
            data,
            n_cols,
        })
    }

    /// A borrowed view.
    pub fn view(&self) -> CsrView<'_> {
        CsrView {
            indptr: &self.indptr,
            indices: &self.indices,
            data: &self.data,
            n_cols: self.n_cols,
        }
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Number of columns.
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// Consumes the matrix and returns `(indptr, indices, data)`.
    pub fn into_parts(self) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
        (self.indptr, self.indices, self.data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_indptr_is_an_error_not_a_panic() {
        let (indices, data) = (vec![0u32, 1, 2], vec![1.0; 3]);
        // A middle entry beyond the stored values with a valid last entry.
        let err = CsrView::new(&[0, 1, 1_000_000, 3], &indices, &data, 5).unwrap_err();
        assert!(err.to_string().contains("only 3 stored values"), "{err}");
        assert!(CsrView::new(&[0, 2, 1, 3], &indices, &data, 5).is_err());
        assert!(CsrView::new(&[0, 1, 2, 4], &indices, &data, 5).is_err());
        assert!(CsrView::new(&[0, 1, 2, 3], &indices, &data, 2).is_err());
        assert!(CsrView::new(&[0, 1, 2, 3], &indices, &data, 3).is_ok());
    }
}
