//! Class labels of any ordered type — integers, `bool`, `char`, `String`, an enum deriving
//! `Ord` — for [`Svc`](crate::Svc): [`SvcValidParams::fit_labels`] takes them from a slice,
//! a `Vec`, an `ndarray::ArrayView1` or any iterator of references, fits the `f64`-labelled
//! [`SvcModel`] on their codes and predicts labels of the same type.
//!
//! ```
//! use fwsvm::{DenseMatrix, Kernel, Svc};
//!
//! let x = DenseMatrix::from_rows(&[[0.0, 0.0], [0.1, 0.2], [1.0, 1.0], [0.9, 1.1], [2.0, 0.0], [2.1, 0.1]])?;
//! let y = ["ham", "ham", "spam", "spam", "eggs", "eggs"].map(String::from);
//! let model = Svc::params().c(10.0).kernel(Kernel::rbf(1.0)).fit_labels(&x, &y)?;
//! assert_eq!(model.classes(), ["eggs", "ham", "spam"]); // sorted
//! assert_eq!(model.predict(&x)?, y);
//!
//! // Booleans, and integers from an ndarray view (with the `ndarray` feature, on by default).
//! let flags = [false, false, true, true, true, true];
//! assert_eq!(Svc::params().kernel(Kernel::rbf(1.0)).fit_labels(&x, &flags)?.predict(&x)?, flags);
//! let codes = ndarray::array![7_i64, 7, 3, 3, 3, 3];
//! let model = Svc::params().kernel(Kernel::rbf(1.0)).fit_labels(&x, codes.view())?;
//! assert_eq!(model.predict(&x)?, codes.to_vec());
//! # Ok::<(), fwsvm::FwsvmError>(())
//! ```
//!
//! The order is `T`'s: the sorted classes are coded 0, 1, … as the fitted model's
//! [`SvcModel::classes`], so decision values are positive for the second class of two (as for
//! `f64` labels) and probability columns follow [`LabeledSvcModel::classes`]. Ties of the
//! one-vs-one vote go to the class seen first in the training labels, as with `f64` labels.

use crate::data::Features;
use crate::error::{FwsvmError, Result};
use crate::model::SvcModel;
use crate::params::{SvcParams, SvcValidParams};

/// The sorted classes of a set of labels and the map between the labels and the `f64` codes a
/// model is fitted on (class `i` is `i as f64`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classes<T> {
    sorted: Vec<T>,
}

impl<T: Ord + Clone> Classes<T> {
    /// The distinct labels, sorted.
    pub fn new<'y>(labels: impl IntoIterator<Item = &'y T>) -> Self
    where
        T: 'y,
    {
        let mut sorted: Vec<T> = labels.into_iter().cloned().collect();
        sorted.sort_unstable();
        sorted.dedup();
        Classes { sorted }
    }

    /// The classes, sorted.
    pub fn as_slice(&self) -> &[T] {
        &self.sorted
    }

    /// The code of each label.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] naming the first label that is not one of the classes.
    pub fn encode<'y>(&self, labels: impl IntoIterator<Item = &'y T>) -> Result<Vec<f64>>
    where
        T: 'y,
    {
        labels
            .into_iter()
            .enumerate()
            .map(|(row, label)| {
                self.sorted
                    .binary_search(label)
                    .map(|c| c as f64)
                    .map_err(|_| {
                        FwsvmError::InvalidInput(format!(
                            "the label at row {row} is not one of the {} classes",
                            self.sorted.len()
                        ))
                    })
            })
            .collect()
    }

    /// The label of each code.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for a value that is not a class's code.
    pub fn decode(&self, codes: &[f64]) -> Result<Vec<T>> {
        codes
            .iter()
            .map(|&v| {
                let class = (v >= 0.0 && v.fract() == 0.0)
                    .then(|| self.sorted.get(v as usize))
                    .flatten();
                class.cloned().ok_or_else(|| {
                    FwsvmError::InvalidInput(format!(
                        "{v} is not the code of one of the {} classes",
                        self.sorted.len()
                    ))
                })
            })
            .collect()
    }
}

/// An [`SvcModel`] fitted by [`SvcValidParams::fit_labels`]: the model of the labels' codes and
/// the labels' classes; predicts labels of type `T`.
#[derive(Debug, Clone)]
pub struct LabeledSvcModel<T> {
    model: SvcModel,
    classes: Classes<T>,
}

impl<T: Ord + Clone> LabeledSvcModel<T> {
    /// A model fitted on codes of `classes` (as [`Classes::encode`] gives them).
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the model's classes are not the codes of `classes`.
    pub fn new(model: SvcModel, classes: Classes<T>) -> Result<Self> {
        let codes = model.classes();
        if codes.len() != classes.as_slice().len()
            || codes.iter().enumerate().any(|(i, &c)| c != i as f64)
        {
            return Err(FwsvmError::InvalidInput(format!(
                "the model's classes {codes:?} are not the codes 0..{} of the labels",
                classes.as_slice().len()
            )));
        }
        Ok(LabeledSvcModel { model, classes })
    }

    /// The classes, sorted (the columns of [`SvcModel::predict_proba`] are in this order).
    pub fn classes(&self) -> &[T] {
        self.classes.as_slice()
    }

    /// The fitted model of the codes: decision values, probabilities, support vectors, stats,
    /// files.
    pub fn model(&self) -> &SvcModel {
        &self.model
    }

    /// The model of the codes and the classes.
    pub fn into_parts(self) -> (SvcModel, Classes<T>) {
        (self.model, self.classes)
    }

    /// Predicted labels.
    ///
    /// # Errors
    /// As [`SvcModel::predict`].
    pub fn predict<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<T>> {
        self.classes.decode(&self.model.predict(x)?)
    }
}

impl SvcValidParams {
    /// Fits on `x` with labels of any ordered type `T` (a slice, a `Vec`, an
    /// `ndarray::ArrayView1<T>` or any iterator of `&T`); see the [module](self).
    ///
    /// # Errors
    /// As [`Self::fit`].
    pub fn fit_labels<'x, 'y, T: Ord + Clone + 'y>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
        y: impl IntoIterator<Item = &'y T>,
    ) -> Result<LabeledSvcModel<T>> {
        let y: Vec<&T> = y.into_iter().collect();
        let classes = Classes::new(y.iter().copied());
        let codes = classes.encode(y.iter().copied())?;
        LabeledSvcModel::new(self.fit(x, &codes)?, classes)
    }
}

impl SvcParams {
    super::checked_calls! {
        /// Checks the parameters and fits; see [`SvcValidParams::fit_labels`].
        ///
        /// # Errors
        /// As [`Self::check`] and [`SvcValidParams::fit`].
        fn fit_labels['x, 'y, T: Ord + Clone + 'y](
            x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
            y: impl IntoIterator<Item = &'y T>
        ) -> LabeledSvcModel<T>;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DenseMatrix, Kernel, Svc};

    fn three_blobs() -> DenseMatrix {
        let rows: Vec<[f64; 2]> = (0..30)
            .map(|i| {
                let (cx, cy) = [(0.0, 0.0), (3.0, 0.0), (0.0, 3.0)][i % 3];
                let jitter = (i as f64 * 0.37).sin() * 0.3;
                [cx + jitter, cy - jitter]
            })
            .collect();
        DenseMatrix::from_rows(&rows).unwrap()
    }

    /// Labels of any type give the model the `f64` labels give, predictions mapped back.
    #[test]
    fn typed_labels_fit_the_model_of_their_codes() {
        let x = three_blobs();
        let names = ["b", "c", "a"];
        let y: Vec<String> = (0..30).map(|i| names[i % 3].to_string()).collect();
        let codes: Vec<f64> = (0..30).map(|i| [1.0, 2.0, 0.0][i % 3]).collect();
        let params = Svc::params().c(4.0).kernel(Kernel::rbf(0.5));
        let typed = params.fit_labels(&x, &y).unwrap();
        let plain = params.fit(&x, &codes).unwrap();
        assert_eq!(typed.classes(), ["a", "b", "c"]);
        assert_eq!(
            typed.model().decision_function(&x).unwrap(),
            plain.decision_function(&x).unwrap()
        );
        assert_eq!(typed.predict(&x).unwrap(), y);
        let ints: Vec<u8> = (0..30).map(|i| [20, 10, 30][i % 3]).collect();
        assert_eq!(
            params.fit_labels(&x, &ints).unwrap().predict(&x).unwrap(),
            ints
        );
    }

    #[cfg(feature = "ndarray")]
    #[test]
    fn labels_from_an_ndarray_view() {
        let x = three_blobs();
        let y = ndarray::Array1::from_iter((0..30).map(|i| i % 3 == 0));
        let model = Svc::params()
            .kernel(Kernel::rbf(0.5))
            .fit_labels(&x, y.view())
            .unwrap();
        assert_eq!(model.predict(&x).unwrap(), y.to_vec());
    }

    #[test]
    fn problems_are_errors() {
        let classes = Classes::new(&[3, 1, 3, 2]);
        assert_eq!(classes.as_slice(), [1, 2, 3]);
        assert_eq!(classes.encode(&[2, 3, 1]).unwrap(), [1.0, 2.0, 0.0]);
        assert_eq!(classes.decode(&[2.0, 0.0]).unwrap(), [3, 1]);
        let e = classes.encode(&[1, 5]).unwrap_err().to_string();
        assert!(e.contains("row 1 is not one of the 3 classes"), "{e}");
        for bad in [3.0, -1.0, 0.5, f64::NAN] {
            assert!(classes.decode(&[bad]).is_err());
        }
        let x = three_blobs();
        let one = vec!["only"; 30];
        assert!(Svc::params().fit_labels(&x, &one).is_err());
        let short = vec![1_i32; 3];
        assert!(Svc::params().fit_labels(&x, &short).is_err());
    }
}
