//! Borrowing NumPy and SciPy data as [`Features`] and building a [`Kernel`] from Python's
//! (name, gamma, degree, coef0).

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::data::{CsrView, DenseView, Features};
use crate::error::FwsvmError;
use crate::kernel::Kernel;

/// Feature data passed from Python: a C-contiguous float64 matrix, or the CSR tuple
/// `(data: float64, indices: uint32, indptr: uintp, n_features)` prepared by
/// `fwsvm._validation`.
pub(crate) enum FeaturesArg<'py> {
    Dense(PyReadonlyArray2<'py, f64>),
    Sparse {
        data: PyReadonlyArray1<'py, f64>,
        indices: PyReadonlyArray1<'py, u32>,
        indptr: PyReadonlyArray1<'py, usize>,
        n_cols: usize,
    },
}

impl<'py> FromPyObject<'_, 'py> for FeaturesArg<'py> {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(t) = ob.cast::<PyTuple>() {
            if t.len() != 4 {
                return Err(PyValueError::new_err(
                    "sparse features must be (data, indices, indptr, n_features)",
                ));
            }
            return Ok(FeaturesArg::Sparse {
                data: t.get_item(0)?.extract()?,
                indices: t.get_item(1)?.extract()?,
                indptr: t.get_item(2)?.extract()?,
                n_cols: t.get_item(3)?.extract()?,
            });
        }
        Ok(FeaturesArg::Dense(ob.extract()?))
    }
}

impl FeaturesArg<'_> {
    /// A borrowed view (no copy); fails on non-contiguous arrays.
    pub(crate) fn view(&self) -> PyResult<Features<'_>> {
        match self {
            FeaturesArg::Dense(a) => {
                let shape = a.shape();
                let slice = a
                    .as_slice()
                    .map_err(|_| PyValueError::new_err("X must be a C-contiguous float64 array"))?;
                Ok(Features::Dense(DenseView::new(slice, shape[0], shape[1])?))
            }
            FeaturesArg::Sparse {
                data,
                indices,
                indptr,
                n_cols,
            } => {
                let err = |_| PyValueError::new_err("CSR arrays must be contiguous");
                Ok(Features::Sparse(CsrView::new(
                    indptr.as_slice().map_err(err)?,
                    indices.as_slice().map_err(err)?,
                    data.as_slice().map_err(err)?,
                    *n_cols,
                )?))
            }
        }
    }
}

/// The kernel named `name` with scikit-learn's parameters.
pub(crate) fn kernel_from(
    name: &str,
    gamma: f64,
    degree: i64,
    coef0: f64,
) -> Result<Kernel, FwsvmError> {
    Kernel::from_name(name, gamma, degree, coef0)
}

/// A kernel as Python passes it for prediction: one dict `{kernel, gamma, degree, coef0}`
/// (scikit-learn's names), optionally with `n_threads`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct KernelArgs {
    kernel: String,
    #[pyo3(default)]
    gamma: f64,
    #[pyo3(default)]
    degree: Option<i64>,
    #[pyo3(default)]
    coef0: f64,
    #[pyo3(default)]
    pub(crate) n_threads: Option<usize>,
}

impl KernelArgs {
    /// The kernel, checked.
    pub(crate) fn kernel(&self) -> Result<Kernel, FwsvmError> {
        kernel_from(
            &self.kernel,
            self.gamma,
            self.degree.unwrap_or(3),
            self.coef0,
        )
    }
}
