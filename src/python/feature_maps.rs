//! `fwsvm.Nystroem` and `fwsvm.RandomFourierFeatures` ([`crate::model::feature_maps`]): their
//! random draws run on the caller's NumPy `RandomState` (its `get_state()` in, the advanced
//! state out, for `set_state`), so Python's `random_state` gives the maps it always gave.

use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use super::convert::{FeaturesArg, KernelArgs, SamplesArg};
use crate::Samples;
use crate::Svc;
use crate::error::FwsvmError;
use crate::model::feature_maps::{
    FourierKernel, RandomFourierMap, coreset_landmarks, nystroem_features, random_fourier_features,
    uniform_landmarks,
};
use crate::parallel::with_threads;
use crate::random::legacy::LegacyRandomState;

/// `RandomState.get_state()`: ("MT19937", key, pos, has_gauss, cached_gaussian).
type NumpyState<'py> = (String, PyReadonlyArray1<'py, u32>, usize, i64, f64);

/// The generator of a NumPy state.
fn generator(state: &NumpyState<'_>) -> PyResult<LegacyRandomState> {
    if state.0 != "MT19937" {
        return Err(
            FwsvmError::InvalidInput(format!("not an MT19937 state: {:?}", state.0)).into(),
        );
    }
    let gauss = (state.3 != 0).then_some(state.4);
    Ok(LegacyRandomState::from_parts(
        state.1.as_slice()?,
        state.2,
        gauss,
    )?)
}

/// The NumPy state of a generator.
fn numpy_state<'py>(
    py: Python<'py>,
    rng: &LegacyRandomState,
) -> (&'static str, Bound<'py, PyArray1<u32>>, usize, i64, f64) {
    let (key, pos, gauss) = rng.parts();
    let key = key.to_vec().into_pyarray(py);
    (
        "MT19937",
        key,
        pos,
        i64::from(gauss.is_some()),
        gauss.unwrap_or(0.0),
    )
}

/// A row-major rows × cols result as a 2-D array.
fn matrix<'py, T: numpy::Element>(
    py: Python<'py>,
    values: Vec<T>,
    rows: usize,
    cols: usize,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    values.into_pyarray(py).reshape([rows, cols])
}

/// The Nyström map's landmark rows, checked, and the generator's state: the landmarks given,
/// or `n_components` rows drawn uniformly from `state` (all when X has fewer), ascending.
/// (Python computes K_SS^{−1/2} with LAPACK's `eigh`: at 1,000–2,000 landmarks 10–30× faster
/// than the crate's own [`crate::model::feature_maps::inverse_sqrt`].)
#[pyfunction]
#[pyo3(signature = (x, state, n_components, *, landmarks=None))]
#[allow(clippy::type_complexity)]
pub(crate) fn fit_nystroem<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    state: NumpyState<'py>,
    n_components: usize,
    landmarks: Option<PyReadonlyArray1<'py, i64>>,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    (&'static str, Bound<'py, PyArray1<u32>>, usize, i64, f64),
)> {
    let x = x.view()?;
    x.check_finite("X")?;
    let mut rng = generator(&state)?;
    let rows: Vec<usize> = match &landmarks {
        Some(given) => given.as_slice()?.iter().map(|&i| i as usize).collect(),
        None => uniform_landmarks(x.n_rows(), n_components, &mut rng),
    };
    if let Some(&bad) = rows.iter().find(|&&i| i >= x.n_rows()) {
        return Err(FwsvmError::InvalidInput(format!("landmark {bad} is not a row of X")).into());
    }
    let indices: Vec<i64> = rows.iter().map(|&i| i as i64).collect();
    Ok((indices.into_pyarray(py), numpy_state(py, &rng)))
}

/// The random Fourier map's settings: `kernel` ("rbf" or "laplacian"), the resolved `gamma`,
/// `n_features` and `n_components`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct FourierArgs {
    kernel: String,
    gamma: f64,
    n_features: usize,
    n_components: usize,
}

/// W and b of random Fourier features drawn from `state`, and the generator's state.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn fit_random_fourier<'py>(
    py: Python<'py>,
    params: FourierArgs,
    state: NumpyState<'py>,
) -> PyResult<(
    (Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<f64>>),
    (&'static str, Bound<'py, PyArray1<u32>>, usize, i64, f64),
)> {
    let kernel = match params.kernel.as_str() {
        "rbf" => FourierKernel::Rbf,
        "laplacian" => FourierKernel::Laplacian,
        other => {
            return Err(FwsvmError::param(
                "kernel",
                format!("random Fourier features approximate rbf or laplacian, not {other:?}"),
            )
            .into());
        }
    };
    let mut rng = generator(&state)?;
    let map = RandomFourierMap::draw(
        kernel,
        params.gamma,
        params.n_features,
        params.n_components,
        &mut rng,
    )?;
    let weights = matrix(
        py,
        map.weights().to_vec(),
        params.n_features,
        params.n_components,
    )?;
    let offset = map.offset().to_vec().into_pyarray(py);
    Ok(((weights, offset), numpy_state(py, &rng)))
}

/// The coreset fit's settings besides its kernel: `C`, the landmarks `k` and the subsample's
/// `size`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct CoresetArgs {
    #[pyo3(item("C"))]
    c: f64,
    k: usize,
    size: usize,
}

/// The Frank-Wolfe coreset's landmarks (see [`coreset_landmarks`]; `None`: the subsample held
/// a single class) for `samples` `(x, y)`, `y` class indices, `params` the kernel's and
/// [`CoresetArgs`]' entries, and the generator's state.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn coreset_rows<'py>(
    samples: SamplesArg<'py>,
    params: Bound<'py, PyAny>,
    state: NumpyState<'py>,
) -> PyResult<(
    Option<Bound<'py, PyArray1<i64>>>,
    (&'static str, Bound<'py, PyArray1<u32>>, usize, i64, f64),
)> {
    let py = samples.py();
    let (kernel, args): (KernelArgs, CoresetArgs) = (params.extract()?, params.extract()?);
    let n_threads = kernel.n_threads;
    let svc = Svc::params()
        .kernel(kernel.kernel()?)
        .c(args.c)
        .n_threads(n_threads);
    let Samples { x, y, .. } = samples.view()?;
    let mut rng = generator(&state)?;
    let rows = py.detach(|| {
        with_threads(n_threads, || {
            coreset_landmarks(svc, x, y, args.k, args.size, &mut rng)
        })
    })??;
    let rows = rows.map(|r| {
        r.iter()
            .map(|&i| i as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py)
    });
    Ok((rows, numpy_state(py, &rng)))
}

/// A fitted feature map's parts by their Python names: a Nyström map's `kernel_args`,
/// landmarks `components_` and K_SS^{−1/2} `normalization_`, or random Fourier features' W
/// `random_weights_` and b `random_offset_`.
#[derive(FromPyObject)]
pub(crate) enum FittedMap<'py> {
    #[pyo3(from_item_all)]
    Nystroem {
        kernel_args: KernelArgs,
        components_: FeaturesArg<'py>,
        normalization_: PyReadonlyArray2<'py, f64>,
    },
    #[pyo3(from_item_all)]
    Fourier {
        random_weights_: PyReadonlyArray2<'py, f64>,
        random_offset_: PyReadonlyArray1<'py, f64>,
    },
}

/// z(x) for every row of `x` (see [`nystroem_features`] and [`random_fourier_features`]), as
/// `dtype` `"float64"`, `"float32"` (a Nyström map then multiplies in single precision:
/// [`nystroem_features`]) or `"float16"` (the `float32` values rounded to half precision: a
/// linear solver's rows in two bytes a value).
#[pyfunction]
#[pyo3(signature = (x, map, *, dtype="float64"))]
pub(crate) fn transform_features<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    map: FittedMap<'py>,
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let (single, half) = match dtype {
        "float64" => (false, false),
        "float32" => (true, false),
        "float16" => (true, true),
        other => {
            return Err(crate::FwsvmError::param(
                "dtype",
                format!("must be 'float64', 'float32' or 'float16', got {other:?}"),
            )
            .into());
        }
    };
    // The f32 values as `dtype` (rounded to nearest when half).
    let single_matrix = |z: Vec<f32>, rows: usize, width: usize| -> PyResult<Bound<'py, PyAny>> {
        if half {
            use half::slice::HalfFloatSliceExt;
            let mut h = vec![half::f16::ZERO; z.len()];
            h.convert_from_f32_slice(&z);
            if let Some(k) = h.iter().position(|v| v.is_infinite()) {
                return Err(crate::FwsvmError::InvalidInput(format!(
                    "feature {} of row {} is {}: beyond float16's ±65504; use float32",
                    k % width.max(1),
                    k / width.max(1),
                    z[k]
                ))
                .into());
            }
            return Ok(matrix(py, h, rows, width)?.into_any());
        }
        Ok(matrix(py, z, rows, width)?.into_any())
    };
    let x = x.view()?;
    let (z, width) = match map {
        FittedMap::Nystroem {
            kernel_args,
            components_,
            normalization_,
        } => {
            let (n_threads, kernel) = (kernel_args.n_threads, kernel_args.kernel()?);
            let components = components_.view()?;
            let width = normalization_.shape()[1];
            let normalization: Vec<f64> = normalization_.as_array().iter().copied().collect();
            if single {
                let z = py.detach(|| {
                    with_threads(n_threads, || {
                        nystroem_features::<f32>(kernel, x, components, &normalization, width)
                    })
                })??;
                return single_matrix(z, x.n_rows(), width);
            }
            let z = py.detach(|| {
                with_threads(n_threads, || {
                    nystroem_features(kernel, x, components, &normalization, width)
                })
            })??;
            (z, width)
        }
        FittedMap::Fourier {
            random_weights_,
            random_offset_,
        } => {
            let weights: Vec<f64> = random_weights_.as_array().iter().copied().collect();
            let offset: Vec<f64> = random_offset_.as_array().iter().copied().collect();
            let z = py.detach(|| random_fourier_features(x, &weights, &offset))?;
            (z, offset.len())
        }
    };
    if single {
        let z: Vec<f32> = z.iter().map(|&v| v as f32).collect();
        return single_matrix(z, x.n_rows(), width);
    }
    Ok(matrix(py, z, x.n_rows(), width)?.into_any())
}
