//! [linfa](https://docs.rs/linfa)'s traits (feature `linfa`): the C-SVC and ν-SVC ([`Svc`])
//! and LIBSVM's ε-SVR, ν-SVR and one-class ν-SVM ([`EpsilonSvr`], [`NuSvr`], [`NuOneClass`])
//! implement [`Fit`] on linfa's datasets, and their models [`PredictInplace`], so they take
//! part in linfa's splits, cross-validation and metrics.
//!
//! linfa 0.8 is built on ndarray 0.16: records are its `ArrayBase<_, Ix2>` of `f64` (borrowed
//! when in standard layout, copied once otherwise), classification targets any linfa
//! [`Label`] (`bool`, integers, `String`, …; the model keeps them, see [`LabeledSvcModel`]),
//! regression targets `f64`.
//!
//! ```
//! # use ndarray016 as ndarray; // linfa's ndarray (0.16)
//! use fwsvm::{EpsilonSvr, Kernel, Svc};
//! use linfa::prelude::*;
//! use ndarray::{array, Array2};
//!
//! let x: Array2<f64> = array![[0.0, 0.1], [0.2, 0.0], [0.1, 0.2], [0.3, 0.1],
//!                              [2.0, 2.1], [2.2, 1.9], [1.9, 2.2], [2.1, 2.0]];
//! let labels = array![false, false, false, false, true, true, true, true];
//! let train = Dataset::new(x.clone(), labels.clone());
//! // The builders' and models' own `fit` and `predict` take fwsvm's matrices: call linfa's
//! // traits by name.
//! let model = Fit::fit(&Svc::params().c(10.0).kernel(Kernel::rbf(0.5)), &train)?;
//! let predicted = Predict::predict(&model, &x);
//! assert_eq!(predicted, labels);
//! assert_eq!(predicted.confusion_matrix(&train)?.accuracy(), 1.0);
//!
//! // Regression: targets are f64.
//! let y = x.column(0).to_owned() + x.column(1);
//! let params = EpsilonSvr::params().c(10.0).epsilon(0.01).kernel(Kernel::Linear);
//! let svr = Fit::fit(&params, &Dataset::new(x.clone(), y.clone()))?;
//! let fitted: ndarray::Array1<f64> = Predict::predict(&svr, &x);
//! assert!((fitted - &y).iter().all(|e| e.abs() < 0.05));
//! # Ok::<(), fwsvm::FwsvmError>(())
//! ```
//!
//! `PredictInplace` has no error channel: a prediction on rows with another number of
//! features than the training rows, or with NaN or infinity, panics with the message the
//! model's own `predict` returns as an error (call that one to handle it).

use std::borrow::Cow;

use linfa::Label;
use linfa::dataset::{AsSingleTargets, DatasetBase};
use linfa::traits::{Fit, PredictInplace};
use ndarray016::{Array1, ArrayBase, Data, Ix2};

use crate::data::{DenseView, Features};
use crate::error::{FwsvmError, Result};
use crate::estimators::labels::LabeledSvcModel;
use crate::estimators::libsvm_models::{DualParams, DualValidParams};
use crate::model::DualModel;
use crate::params::{SvcParams, SvcValidParams};
#[cfg(doc)]
use crate::{EpsilonSvr, NuOneClass, NuSvr, Svc};

impl From<linfa::Error> for FwsvmError {
    fn from(error: linfa::Error) -> Self {
        FwsvmError::InvalidInput(format!("linfa: {error}"))
    }
}

/// `work` on the rows of `x` as [`Features`] (borrowed in standard layout, else copied).
fn with_rows<D: Data<Elem = f64>, R>(
    x: &ArrayBase<D, Ix2>,
    work: impl FnOnce(Features<'_>) -> Result<R>,
) -> Result<R> {
    let (n_rows, n_cols) = x.dim();
    let data: Cow<'_, [f64]> = match x.as_slice() {
        Some(data) => Cow::Borrowed(data),
        None => Cow::Owned(x.iter().copied().collect()),
    };
    work(Features::Dense(DenseView::new(&data, n_rows, n_cols)?))
}

/// `values` written into `targets` (one per row); panics with the prediction's error, as
/// `PredictInplace` cannot return one.
fn fill<T>(targets: &mut Array1<T>, values: Result<Vec<T>>) {
    let values = values.unwrap_or_else(|e| panic!("fwsvm prediction failed: {e}"));
    assert_eq!(
        targets.len(),
        values.len(),
        "the targets must have one entry per row of the records"
    );
    for (target, value) in targets.iter_mut().zip(values) {
        *target = value;
    }
}

/// `Fit` for unchecked parameters: [`check`](SvcParams::check), then fit as the checked ones do.
macro_rules! fit_after_check {
    ($unchecked:ty => $object:ty; <$($generic:ident),+> where $($bounds:tt)+) => {
        impl<D, $($generic),+> Fit<ArrayBase<D, Ix2>, T, FwsvmError> for $unchecked
        where
            D: Data<Elem = f64>,
            $($bounds)+
        {
            type Object = $object;

            fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<$object> {
                Fit::fit(&self.check()?, dataset)
            }
        }
    };
}

fit_after_check!(SvcParams => LabeledSvcModel<L>; <T, L> where T: AsSingleTargets<Elem = L>, L: Label);
fit_after_check!(DualParams => DualModel; <T> where T: AsSingleTargets<Elem = f64>);

impl<D, T, L> Fit<ArrayBase<D, Ix2>, T, FwsvmError> for SvcValidParams
where
    D: Data<Elem = f64>,
    T: AsSingleTargets<Elem = L>,
    L: Label,
{
    type Object = LabeledSvcModel<L>;

    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<LabeledSvcModel<L>> {
        let labels = dataset.as_single_targets();
        with_rows(&dataset.records, |x| self.fit_labels(x, labels.iter()))
    }
}

impl<D: Data<Elem = f64>, L: Label> PredictInplace<ArrayBase<D, Ix2>, Array1<L>>
    for LabeledSvcModel<L>
{
    fn predict_inplace<'a>(&'a self, x: &'a ArrayBase<D, Ix2>, targets: &mut Array1<L>) {
        fill(targets, with_rows(x, |rows| self.predict(rows)));
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<L> {
        Array1::default(x.nrows())
    }
}

impl<D, T> Fit<ArrayBase<D, Ix2>, T, FwsvmError> for DualValidParams
where
    D: Data<Elem = f64>,
    T: AsSingleTargets<Elem = f64>,
{
    type Object = DualModel;

    /// Fits on the records and, for the regressions, the targets (one-class ignores them).
    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<DualModel> {
        let targets = dataset.as_single_targets();
        let y: Cow<'_, [f64]> = match targets.as_slice() {
            Some(y) => Cow::Borrowed(y),
            None => Cow::Owned(targets.to_vec()),
        };
        with_rows(&dataset.records, |x| self.fit(x, &y))
    }
}

impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array1<f64>> for DualModel {
    /// The regressions' f(x); one-class: +1 inside, −1 outside (see [`DualModel::predict`]).
    fn predict_inplace<'a>(&'a self, x: &'a ArrayBase<D, Ix2>, targets: &mut Array1<f64>) {
        fill(targets, with_rows(x, |rows| self.predict(rows)));
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<f64> {
        Array1::zeros(x.nrows())
    }
}
