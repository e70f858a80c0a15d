//! Platt's sigmoid and pairwise coupling ([`crate::model::probability`]) for Python's
//! `fwsvm.probability`.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::model::probability;

/// Platt's (A, B) for decision values `dec` labelled `positive` (LIBSVM's `sigmoid_train`).
#[pyfunction]
pub(crate) fn sigmoid_train(
    dec: PyReadonlyArray1<'_, f64>,
    positive: PyReadonlyArray1<'_, bool>,
) -> PyResult<(f64, f64)> {
    let (dec, positive) = (dec.as_array(), positive.as_array());
    if dec.len() != positive.len() {
        return Err(PyValueError::new_err(format!(
            "{} decision values but {} labels",
            dec.len(),
            positive.len()
        )));
    }
    let dec: Vec<f64> = dec.iter().copied().collect();
    let positive: Vec<bool> = positive.iter().copied().collect();
    Ok(probability::sigmoid_train(&dec, &positive))
}

/// `1 / (1 + exp(A f + B))` elementwise over equally long `f`, `a`, `b`.
#[pyfunction]
pub(crate) fn sigmoid_predict<'py>(
    py: Python<'py>,
    f: PyReadonlyArray1<'py, f64>,
    a: PyReadonlyArray1<'py, f64>,
    b: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (f, a, b) = (f.as_array(), a.as_array(), b.as_array());
    if f.len() != a.len() || f.len() != b.len() {
        return Err(PyValueError::new_err(
            "f, a and b must have the same length",
        ));
    }
    Ok(PyArray1::from_iter(
        py,
        (0..f.len()).map(|i| probability::sigmoid_predict(f[i], a[i], b[i])),
    ))
}

/// Class probabilities (n × k) from pairwise ones (n × k(k−1)/2, LIBSVM's pair order),
/// coupled in `order` (a LIBSVM file's label order; empty: sorted).
#[pyfunction]
#[pyo3(signature = (pairwise, n_classes, order=Vec::new()))]
pub(crate) fn couple<'py>(
    py: Python<'py>,
    pairwise: PyReadonlyArray2<'py, f64>,
    n_classes: usize,
    order: Vec<usize>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let k = n_classes;
    let pairwise = pairwise.as_array();
    if k < 2 || pairwise.ncols() != k * (k - 1) / 2 {
        return Err(PyValueError::new_err(format!(
            "{} pairwise columns for {k} classes",
            pairwise.ncols()
        )));
    }
    let mut seen = vec![false; k];
    if !order.is_empty()
        && (order.len() != k
            || !order
                .iter()
                .all(|&c| c < k && !std::mem::replace(&mut seen[c], true)))
    {
        return Err(PyValueError::new_err(format!(
            "order {order:?} is not an order of {k} classes"
        )));
    }
    let n = pairwise.nrows();
    let mut out = vec![0.0; n * k];
    let mut row = vec![0.0; pairwise.ncols()];
    for (r, probs) in out.chunks_mut(k).enumerate() {
        row.iter_mut()
            .zip(pairwise.row(r))
            .for_each(|(d, s)| *d = *s);
        probability::couple(&row, k, &order, probs);
    }
    PyArray1::from_vec(py, out).reshape([n, k])
}
