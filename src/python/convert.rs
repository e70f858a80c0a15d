//! Borrowing NumPy and SciPy data as [`Features`] and building a [`Kernel`] from Python's
//! (name, gamma, degree, coef0).

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::data::{CsrView, DenseView, Features};
use crate::error::FwsvmError;
use crate::kernel::Kernel;

/// Feature data passed from Python: a dense matrix (made float64, C-contiguous and aligned,
/// copied only when it is not), a SciPy sparse matrix or array (read as CSR in canonical
/// format: duplicates summed on a copy), or the CSR parts `(data, indices, indptr,
/// n_features)` of a model's support vectors. The float64 data is borrowed without a copy;
/// the indices and row pointers are always copied: the core checks them once and then indexes
/// with them, so a thread that rewrites the caller's arrays during a fit must not reach them.
pub(crate) enum FeaturesArg<'py> {
    Dense(PyReadonlyArray2<'py, f64>),
    Sparse {
        data: PyReadonlyArray1<'py, f64>,
        indices: Vec<u32>,
        indptr: Vec<usize>,
        n_cols: usize,
    },
}

/// Training samples as Python passes them: the tuple `(x, y)` or `(x, y, sample_weight)`
/// (`sample_weight` may be `None`): rows as [`FeaturesArg`], one float64 target per row.
pub(crate) struct SamplesArg<'py> {
    pub(crate) x: FeaturesArg<'py>,
    y: PyReadonlyArray1<'py, f64>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
}

impl<'py> FromPyObject<'_, 'py> for SamplesArg<'py> {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let t = ob
            .cast::<PyTuple>()
            .ok()
            .filter(|t| matches!(t.len(), 2 | 3));
        let Some(t) = t else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "samples must be a tuple (x, y) or (x, y, sample_weight)",
            ));
        };
        Ok(SamplesArg {
            x: t.get_item(0)?.extract()?,
            y: t.get_item(1)?.extract()?,
            weights: match t.len() {
                3 => t.get_item(2)?.extract()?,
                _ => None,
            },
        })
    }
}

impl<'py> SamplesArg<'py> {
    /// The interpreter the samples came from.
    pub(crate) fn py(&self) -> Python<'py> {
        self.y.py()
    }

    /// The borrowed rows, targets and weights.
    pub(crate) fn view(&self) -> PyResult<crate::Samples<'_>> {
        let weights = self.weights.as_ref().map(|w| w.as_slice()).transpose()?;
        Ok(crate::Samples::new(self.x.view()?, self.y.as_slice()?).weighted(weights))
    }
}

impl<'py> FromPyObject<'_, 'py> for FeaturesArg<'py> {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let py = ob.py();
        // Arrays on unaligned buffers (e.g. unpickled from a network stream, as Dask's workers
        // receive them) are copied too: the core reads aligned float64.
        let require = |array: Bound<'py, PyAny>| -> PyResult<Bound<'py, PyAny>> {
            py.import("numpy")?
                .call_method1("require", (array, "float64", "CA"))
        };
        if let Ok(t) = ob.cast::<PyTuple>() {
            if t.len() != 4 {
                return Err(PyValueError::new_err(
                    "sparse features must be (data, indices, indptr, n_features)",
                ));
            }
            return Ok(FeaturesArg::Sparse {
                data: require(t.get_item(0)?)?.extract()?,
                indices: indices_of(&t.get_item(1)?)?,
                indptr: row_pointers_of(&t.get_item(2)?)?,
                n_cols: t.get_item(3)?.extract()?,
            });
        }
        if ob.hasattr("tocsr")? {
            let mut csr = ob.call_method0("tocsr")?;
            if !csr.getattr("has_canonical_format")?.extract::<bool>()? {
                csr = csr.call_method0("copy")?;
                csr.call_method0("sum_duplicates")?;
            }
            let (_, n_cols): (usize, usize) = csr.getattr("shape")?.extract()?;
            return Ok(FeaturesArg::Sparse {
                data: require(csr.getattr("data")?)?.extract()?,
                indices: indices_of(&csr.getattr("indices")?)?,
                indptr: row_pointers_of(&csr.getattr("indptr")?)?,
                n_cols,
            });
        }
        Ok(FeaturesArg::Dense(require(ob.to_owned())?.extract()?))
    }
}

/// A copy of sparse column indices as u32.
fn indices_of(array: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    copy_integers(
        array,
        u64::from(u32::MAX),
        |v| v as u32,
        |v| format!("sparse column index {v} is out of range (0 to 2**32 - 1)"),
    )
}

/// A copy of CSR row pointers.
fn row_pointers_of(array: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    copy_integers(
        array,
        usize::MAX as u64,
        |v| v as usize,
        |v| format!("CSR row pointer {v} is out of range"),
    )
}

/// The entries of a one-dimensional integer array (int32, int64, uint32 or uint64), each
/// checked to lie in `0..=max` (`message` names the first that does not) and cast by `cast`:
/// one pass that checks and one that converts, both of which vectorise.
fn copy_integers<T>(
    array: &Bound<'_, PyAny>,
    max: u64,
    cast: impl Fn(u64) -> T,
    message: impl Fn(i128) -> String,
) -> PyResult<Vec<T>> {
    macro_rules! copy_as {
        ($($t:ty),+) => {$(
            if let Ok(a) = array.extract::<PyReadonlyArray1<'_, $t>>() {
                let owned;
                let values: &[$t] = match a.as_slice() {
                    Ok(values) => values,
                    Err(_) => {
                        owned = a.as_array().to_vec();
                        &owned
                    }
                };
                let (low, high) = values
                    .iter()
                    .fold((<$t>::MAX, <$t>::MIN), |(l, h), &v| (l.min(v), h.max(v)));
                if !values.is_empty() && (i128::from(low) < 0 || i128::from(high) > i128::from(max)) {
                    let fits = |v: $t| i128::from(v) >= 0 && i128::from(v) <= i128::from(max);
                    let bad = values.iter().copied().find(|&v| !fits(v)).unwrap_or(low);
                    return Err(PyValueError::new_err(message(i128::from(bad))));
                }
                return Ok(values.iter().map(|&v| cast(v as u64)).collect());
            }
        )+};
    }
    copy_as!(i32, i64, u32, u64);
    Err(PyValueError::new_err(
        "sparse indices must be an integer array (int32, int64, uint32 or uint64)",
    ))
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
                let data = data
                    .as_slice()
                    .map_err(|_| PyValueError::new_err("CSR data must be contiguous"))?;
                Ok(Features::Sparse(CsrView::new(
                    indptr, indices, data, *n_cols,
                )?))
            }
        }
    }
}

/// A thread count given as scikit-learn's `n_jobs`: `None` (the core's default:
/// `FWSVM_NUM_THREADS` or all cores), a positive count, or -1 for all the cores this process
/// may use, -2 for all but one, and so on. 0 stays 0, which the work refuses
/// ([`with_threads`](crate::parallel::with_threads): a `ValueError` naming `n_jobs`; an error
/// here would reach Python as pyo3's `TypeError` about the field).
pub(crate) fn n_jobs(ob: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    let Some(n_jobs) = ob.extract::<Option<i64>>()? else {
        return Ok(None);
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from) as i64;
    Ok(Some(if n_jobs < 0 {
        (cores + 1 + n_jobs).max(1) as usize
    } else {
        n_jobs as usize
    }))
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
    #[pyo3(default, from_py_with = super::convert::n_jobs)]
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
