//! Dense row-major feature matrices.

use crate::error::{FwsvmError, Result};

/// `Err` unless `len` values make `n_rows` × `n_cols` (row-major dense data).
pub(super) fn check_shape(len: usize, n_rows: usize, n_cols: usize) -> Result<()> {
    if n_rows.checked_mul(n_cols) != Some(len) {
        return Err(FwsvmError::InvalidInput(format!(
            "dense data of length {len} does not have shape ({n_rows}, {n_cols})"
        )));
    }
    Ok(())
}

/// A borrowed dense matrix in row-major (C) order.
#[derive(Clone, Copy, Debug)]
pub struct DenseView<'a> {
    data: &'a [f64],
    n_rows: usize,
    n_cols: usize,
}

impl<'a> DenseView<'a> {
    /// Wraps `data` (length `n_rows * n_cols`, row-major) without copying.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the length does not match the shape.
    pub fn new(data: &'a [f64], n_rows: usize, n_cols: usize) -> Result<Self> {
        check_shape(data.len(), n_rows, n_cols)?;
        Ok(DenseView {
            data,
            n_rows,
            n_cols,
        })
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of columns.
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// Row `i` as a slice.
    #[inline]
    pub fn row(&self, i: usize) -> &'a [f64] {
        &self.data[i * self.n_cols..(i + 1) * self.n_cols]
    }

    /// All entries, row-major.
    pub fn as_slice(&self) -> &'a [f64] {
        self.data
    }

    /// The matrix in CSR form, without its zeros.
    pub fn to_csr(&self) -> crate::data::CsrMatrix {
        let (mut indptr, mut indices, mut data) = (vec![0], Vec::new(), Vec::new());
        for i in 0..self.n_rows() {
            for (j, &v) in self.row(i).iter().enumerate() {
                if v != 0.0 {
                    indices.push(j as u32);
                    data.push(v);
                }
            }
            indptr.push(indices.len());
        }
        crate::data::CsrMatrix::new(indptr, indices, data, self.n_cols())
            .expect("a dense matrix's non-zeros are a valid CSR matrix")
    }

    /// Copies the given rows into an owned matrix.
    pub fn select_rows(&self, rows: &[usize]) -> DenseMatrix {
        let mut data = Vec::with_capacity(rows.len() * self.n_cols);
        for &r in rows {
            data.extend_from_slice(self.row(r));
        }
        DenseMatrix {
            data,
            n_rows: rows.len(),
            n_cols: self.n_cols,
        }
    }
}

/// An owned dense matrix in row-major order.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseMatrix {
    data: Vec<f64>,
    n_rows: usize,
    n_cols: usize,
}

impl DenseMatrix {
    /// Takes ownership of row-major `data` with the given shape.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the length does not match the shape.
    pub fn new(data: Vec<f64>, n_rows: usize, n_cols: usize) -> Result<Self> {
        DenseView::new(&data, n_rows, n_cols)?;
        Ok(DenseMatrix {
            data,
            n_rows,
            n_cols,
        })
    }

    /// Builds a matrix from equally long rows.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the rows differ in length.
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Result<Self> {
        let n_cols = rows.first().map_or(0, |r| r.as_ref().len());
        let mut data = Vec::with_capacity(rows.len() * n_cols);
        for (i, r) in rows.iter().enumerate() {
            let r = r.as_ref();
            if r.len() != n_cols {
                return Err(FwsvmError::InvalidInput(format!(
                    "row {i} has {} values, row 0 has {n_cols}",
                    r.len()
                )));
            }
            data.extend_from_slice(r);
        }
        Ok(DenseMatrix {
            data,
            n_rows: rows.len(),
            n_cols,
        })
    }

    /// A borrowed view.
    pub fn view(&self) -> DenseView<'_> {
        DenseView {
            data: &self.data,
            n_rows: self.n_rows,
            n_cols: self.n_cols,
        }
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of columns.
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// All entries, row-major.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// Consumes the matrix and returns its row-major entries.
    pub fn into_vec(self) -> Vec<f64> {
        self.data
    }
}
