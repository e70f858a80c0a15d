//! Feature storage: dense row-major matrices and CSR sparse matrices, borrowed ([`Features`])
//! or owned ([`FeatureMatrix`]).
//!
//! Everything downstream (kernels, problems, models) reads data through [`Features`], so a
//! solver never knows or cares whether its rows are dense or sparse, and sparse data is never
//! densified.

mod csr;
mod dense;
pub mod libsvm;
mod rows;
mod rows_f16;

pub use csr::{CsrMatrix, CsrView};
pub use dense::{DenseMatrix, DenseView};
pub use rows::{DenseF32View, DenseRowsView, LinearRows, RowElement};
pub use rows_f16::DenseF16View;

use crate::error::{FwsvmError, Result};

/// `Err` unless `y` holds one finite value per row of X's `m` (`what`: the values' name in the
/// message, e.g. "labels").
pub(crate) fn check_targets(y: &[f64], m: usize, what: Option<&str>) -> Result<()> {
    if y.len() != m {
        let what = what.map_or(String::new(), |w| format!(" {w}"));
        return Err(FwsvmError::InvalidInput(format!(
            "X has {m} rows but y has {}{what}",
            y.len()
        )));
    }
    match y.iter().position(|v| !v.is_finite()) {
        Some(row) => Err(FwsvmError::NonFinite { what: "y", row }),
        None => Ok(()),
    }
}

/// `Err` unless `sample_weight` holds one finite, non-negative weight per row of X's `m`.
pub(crate) fn check_sample_weight(sample_weight: &[f64], m: usize) -> Result<()> {
    if sample_weight.len() != m {
        return Err(FwsvmError::InvalidInput(format!(
            "sample_weight has {} entries but X has {m} rows",
            sample_weight.len()
        )));
    }
    match sample_weight
        .iter()
        .position(|v| !(v.is_finite() && *v >= 0.0))
    {
        Some(row) => Err(FwsvmError::InvalidInput(format!(
            "sample_weight must be finite and non-negative, got {} at row {row}",
            sample_weight[row]
        ))),
        None => Ok(()),
    }
}

/// A borrowed feature matrix, one sample per row.
#[derive(Clone, Copy, Debug)]
pub enum Features<'a> {
    /// Dense row-major storage.
    Dense(DenseView<'a>),
    /// Compressed sparse rows.
    Sparse(CsrView<'a>),
}

impl<'a> Features<'a> {
    /// Number of samples (rows).
    pub fn n_rows(&self) -> usize {
        match self {
            Features::Dense(d) => d.n_rows(),
            Features::Sparse(s) => s.n_rows(),
        }
    }

    /// Number of features (columns).
    pub fn n_cols(&self) -> usize {
        match self {
            Features::Dense(d) => d.n_cols(),
            Features::Sparse(s) => s.n_cols(),
        }
    }

    /// Whether rows are stored sparsely.
    pub fn is_sparse(&self) -> bool {
        matches!(self, Features::Sparse(_))
    }

    /// Returns an error naming the first row that holds a NaN or infinity.
    pub fn check_finite(&self, what: &'static str) -> Result<()> {
        let bad_row = match self {
            Features::Dense(d) => {
                (0..d.n_rows()).find(|&i| d.row(i).iter().any(|v| !v.is_finite()))
            }
            Features::Sparse(s) => {
                (0..s.n_rows()).find(|&i| s.row(i).1.iter().any(|v| !v.is_finite()))
            }
        };
        match bad_row {
            Some(row) => Err(FwsvmError::NonFinite { what, row }),
            None => Ok(()),
        }
    }

    /// Copies the given rows (in the given order) into an owned matrix of the same kind.
    pub fn select_rows(&self, rows: &[usize]) -> FeatureMatrix {
        match self {
            Features::Dense(d) => FeatureMatrix::Dense(d.select_rows(rows)),
            Features::Sparse(s) => FeatureMatrix::Sparse(s.select_rows(rows)),
        }
    }

    /// The matrix in CSR form (a sparse one copied, a dense one without its zeros).
    pub fn to_csr(&self) -> CsrMatrix {
        match self {
            Features::Dense(d) => d.to_csr(),
            Features::Sparse(s) => s.select_rows(&(0..s.n_rows()).collect::<Vec<_>>()),
        }
    }

    /// The sub-matrix of the given rows *and* columns (a Gram matrix restricted to a subset).
    pub fn select_square(&self, rows: &[usize]) -> FeatureMatrix {
        self.select_block(rows, rows)
    }

    /// The dense sub-matrix of the given rows and columns (a Gram matrix's test rows against
    /// a training subset).
    pub fn select_block(&self, rows: &[usize], cols: &[usize]) -> FeatureMatrix {
        let mut out = Vec::with_capacity(rows.len() * cols.len());
        for &r in rows {
            match self {
                Features::Dense(d) => out.extend(cols.iter().map(|&c| d.row(r)[c])),
                Features::Sparse(s) => {
                    let (idx, val) = s.row(r);
                    out.extend(
                        cols.iter()
                            .map(|&c| idx.binary_search(&(c as u32)).map_or(0.0, |p| val[p])),
                    );
                }
            }
        }
        FeatureMatrix::Dense(
            DenseMatrix::new(out, rows.len(), cols.len()).expect("rows·cols entries"),
        )
    }

    /// The variance of all entries (zeros included), as used by scikit-learn's `gamma="scale"`.
    pub fn variance(&self) -> f64 {
        let count = (self.n_rows() * self.n_cols()) as f64;
        if count == 0.0 {
            return 0.0;
        }
        let values: &[f64] = match self {
            Features::Dense(d) => d.as_slice(),
            Features::Sparse(s) => s.data(),
        };
        let mean = values.iter().sum::<f64>() / count;
        // Zeros not stored in a sparse matrix contribute mean² each.
        let stored = values.len() as f64;
        let sq: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
        (sq + (count - stored) * mean * mean) / count
    }
}

/// An owned feature matrix (support vectors of a model, rows read from a file).
#[derive(Clone, Debug, PartialEq)]
pub enum FeatureMatrix {
    /// Dense row-major storage.
    Dense(DenseMatrix),
    /// Compressed sparse rows.
    Sparse(CsrMatrix),
}

impl FeatureMatrix {
    /// A borrowed view of this matrix.
    pub fn view(&self) -> Features<'_> {
        match self {
            FeatureMatrix::Dense(d) => Features::Dense(d.view()),
            FeatureMatrix::Sparse(s) => Features::Sparse(s.view()),
        }
    }
}

impl<'a> From<DenseView<'a>> for Features<'a> {
    fn from(v: DenseView<'a>) -> Self {
        Features::Dense(v)
    }
}

impl<'a> From<CsrView<'a>> for Features<'a> {
    fn from(v: CsrView<'a>) -> Self {
        Features::Sparse(v)
    }
}

impl<'a> From<&'a DenseMatrix> for Features<'a> {
    fn from(m: &'a DenseMatrix) -> Self {
        Features::Dense(m.view())
    }
}

impl<'a> From<&'a CsrMatrix> for Features<'a> {
    fn from(m: &'a CsrMatrix) -> Self {
        Features::Sparse(m.view())
    }
}

impl<'a> From<&'a FeatureMatrix> for Features<'a> {
    fn from(m: &'a FeatureMatrix) -> Self {
        m.view()
    }
}

/// A borrowed `ndarray` matrix, one sample per row, without copying. It must be in standard
/// (C, row-major) layout: call `.as_standard_layout()` on a transposed or Fortran-ordered one.
#[cfg(feature = "ndarray")]
impl<'a> TryFrom<ndarray::ArrayView2<'a, f64>> for Features<'a> {
    type Error = FwsvmError;

    fn try_from(view: ndarray::ArrayView2<'a, f64>) -> Result<Self> {
        let (n_rows, n_cols) = view.dim();
        let data = view.to_slice().ok_or_else(|| {
            FwsvmError::InvalidInput(
                "the ndarray view is not in standard (row-major, contiguous) layout; \
                 call .as_standard_layout() first"
                    .into(),
            )
        })?;
        Ok(Features::Dense(DenseView::new(data, n_rows, n_cols)?))
    }
}

/// A borrowed `ndarray` matrix (see the `ArrayView2` conversion).
#[cfg(feature = "ndarray")]
impl<'a> TryFrom<&'a ndarray::Array2<f64>> for Features<'a> {
    type Error = FwsvmError;

    fn try_from(array: &'a ndarray::Array2<f64>) -> Result<Self> {
        Features::try_from(array.view())
    }
}
