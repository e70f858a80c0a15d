//! Fitted models: kernel expansions f(x) = Σ_s coef_s k(x_s, x) + intercept over support
//! vectors, plus what each model type adds (classes and one-vs-one votes, the SVR's target
//! scale, the one-class ball's threshold, statistics).

/// Getters of fields, each with its doc comment: `name: &Type = field;` returns a reference,
/// `name: Type = field;` a copy (`field` may be a path, `0.settings.kernel`), and
/// `name: Type = field.method();` the method's value.
macro_rules! getters {
    () => {};
    ($(#[$doc:meta])* $name:ident: $ty:ty = $($call:tt).+(); $($rest:tt)*) => {
        $(#[$doc])*
        pub fn $name(&self) -> $ty {
            self.$($call).+()
        }
        $crate::model::getters!($($rest)*);
    };
    ($(#[$doc:meta])* $name:ident: &$ty:ty = $($field:tt).+; $($rest:tt)*) => {
        $(#[$doc])*
        pub fn $name(&self) -> &$ty {
            &self.$($field).+
        }
        $crate::model::getters!($($rest)*);
    };
    ($(#[$doc:meta])* $name:ident: $ty:ty = $($field:tt).+; $($rest:tt)*) => {
        $(#[$doc])*
        pub fn $name(&self) -> $ty {
            self.$($field).+
        }
        $crate::model::getters!($($rest)*);
    };
}
pub(crate) use getters;

/// What a model fitted by one solve (SVR, one-class, LIBSVM's [`DualModel`]) holds besides its
/// coefficients: the kernel, the support vectors and how the solver ran.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SingleFit {
    pub(crate) kernel: crate::kernel::Kernel,
    pub(crate) vectors: crate::data::FeatureMatrix,
    /// Training indices of the support vectors (ascending).
    pub(crate) support: Vec<usize>,
    /// `None` for a model read from a file.
    pub(crate) stats: Option<crate::solver::SolverStats>,
    pub(crate) history: Vec<crate::solver::HistoryEntry>,
}

impl SingleFit {
    /// Σ_s coef_s k(x_s, x) + intercept over the support vectors, for every row of `x`.
    pub(crate) fn expansion(
        &self,
        coef: &[f64],
        intercept: f64,
        x: crate::data::Features<'_>,
    ) -> crate::error::Result<Vec<f64>> {
        decision_values(self.kernel, self.vectors.view(), coef, intercept, x)
    }
}

/// The getters of a model with a field `fit: SingleFit`.
macro_rules! single_fit_getters {
    () => {
        $crate::model::getters! {
            /// The kernel.
            kernel: Kernel = fit.kernel;
            /// Training indices of the support vectors (ascending).
            support: &[usize] = fit.support;
            /// The support vectors, one per row.
            support_vectors: &FeatureMatrix = fit.vectors;
            /// How the solver ran and stopped (`None` for a model read from a file).
            stats: Option<&SolverStats> = fit.stats.as_ref();
            /// Per-step history, if it was requested.
            history: &[HistoryEntry] = fit.history;
        }
    };
}
pub(crate) use single_fit_getters;

mod dual;
mod expansion;
pub mod feature_maps;
mod one_class;
mod ovo;
pub mod probability;
mod row_blocks;
mod svc;
mod svr;

pub use dual::DualModel;
pub(crate) use expansion::check_query_features;
pub use expansion::{KernelExpansion, decision_values};
pub use feature_maps::{FourierKernel, NystroemMap, RandomFourierMap};
pub use one_class::OneClassModel;
pub use ovo::{ovo_decision_values, ovo_votes};
pub use row_blocks::{TARGET_BLOCK_SECONDS, by_row_blocks, row_cost};
pub use svc::SvcModel;
#[cfg(feature = "python")]
pub(crate) use svc::{Pass, Query};
pub use svr::SvrModel;

/// A query matrix for prediction: converted (an `ndarray` view must be row-major) and checked
/// for NaN and infinity.
pub(crate) fn query<'x>(
    x: impl TryInto<crate::data::Features<'x>, Error: Into<crate::error::FwsvmError>>,
) -> crate::error::Result<crate::data::Features<'x>> {
    let x = x.try_into().map_err(Into::into)?;
    x.check_finite("X")?;
    Ok(x)
}

/// The unit vectors e_{support[s]} of dimension `n_cols`, one row per support vector: under the
/// linear kernel their products with a row of kernel values pick that row's entries exactly
/// (how a precomputed-kernel model evaluates its queries).
pub(crate) fn unit_vectors(
    support: &[usize],
    n_cols: usize,
) -> crate::error::Result<crate::data::CsrMatrix> {
    if let Some(&s) = support.iter().find(|&&s| s >= n_cols) {
        return Err(crate::error::FwsvmError::InvalidInput(format!(
            "X holds kernel values against {n_cols} training rows, but the model has a support \
             vector at training row {s}"
        )));
    }
    let indices = support.iter().map(|&s| s as u32).collect();
    crate::data::CsrMatrix::new(
        (0..=support.len()).collect(),
        indices,
        vec![1.0; support.len()],
        n_cols,
    )
}

/// Sparse support vectors as wide as a query with more columns (LIBSVM's files end at the
/// support vectors' last feature; a test row's later features still count, in ‖x‖² of the rbf
/// kernel, as in `svm-predict`). Borrowed: no entry is copied. Dense vectors stay as they are.
pub(crate) fn widened(
    vectors: crate::data::Features<'_>,
    n_cols: usize,
) -> crate::error::Result<crate::data::Features<'_>> {
    Ok(match vectors {
        crate::data::Features::Sparse(v) if v.n_cols() < n_cols => crate::data::Features::Sparse(
            crate::data::CsrView::new(v.indptr(), v.indices(), v.data(), n_cols)?,
        ),
        other => other,
    })
}
