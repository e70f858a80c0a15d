"""Explicit feature maps that approximate a kernel, to feed the linear solvers when the exact
kernel SVM is too large: :class:`Nystroem` (landmarks drawn uniformly or taken from the
Frank-Wolfe coreset) and :class:`RandomFourierFeatures`.

Both are scikit-learn transformers; chain one with a linear model, e.g. ::

    make_pipeline(Nystroem(n_components=500), SVC(kernel="linear", loss="squared_hinge",
                                                  algorithm="dcd"))

The maps (derived, seed 004 §8 has the heading only; notes ``seeds_000_004.md`` §A.11):

* Nyström with landmarks S: z(x) = K_SS^{−1/2} k_S(x), so that z(x)ᵀz(x′) =
  k_S(x)ᵀ K_SS⁺ k_S(x′), the kernel projected on the span of the landmarks.
* Random Fourier features (Rahimi & Recht 2007) for k(x, x′) = exp(−γ‖x − x′‖²):
  z(x) = √(2/D) cos(Wx + b), W_ij ~ N(0, 2γ), b_j ~ U[0, 2π]; for the Laplacian kernel
  exp(−γ‖x − x′‖₁), W_ij ~ Cauchy(0, γ). E[z(x)ᵀz(x′)] = k(x, x′).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from fwsvm import _core
from fwsvm._parameters import parameters
from fwsvm.persistence import SaveMixin
from fwsvm.svm import SparseInputMixin, resolve_gamma


def coreset_indices(X: Any, y: np.ndarray, k: int, size: int, svc_params: dict[str, Any],
                    rng: np.random.RandomState) -> np.ndarray:
    """``k`` rows of X (sorted indices) chosen as :class:`Nystroem`'s ``landmarks="coreset"``
    does: the support vectors of a Frank-Wolfe fit (:class:`fwsvm.SVC`, squared hinge,
    ``svc_params``) on a uniform subsample of ``size`` rows, the ``k`` with the largest weights,
    topped up uniformly when the coreset is smaller. Also the per-block pass and the in-driver
    selection of :class:`fwsvm.dask.DaskApproxSVC`.

    Raises ValueError when the subsample holds a single class. The selection and the fit run in
    Rust (``fwsvm::model::feature_maps::coreset_landmarks``) on ``rng``'s stream."""
    labels = np.unique(y, return_inverse=True)[1].astype(np.float64)
    params = dict(svc_params, n_threads=svc_params.get("n_jobs"), k=int(k), size=int(size))
    chosen = _drawing(rng, _core.coreset_rows, (X, labels), params)
    if chosen is None:
        raise ValueError("the coreset subsample holds a single class; use landmarks='uniform'")
    return chosen


def inverse_sqrt(K: np.ndarray) -> np.ndarray:
    """K^{−1/2} of the landmarks' kernel matrix (symmetrised; eigenvalues below 1e-12 of the
    largest dropped: a pseudo-inverse) — :class:`Nystroem`'s ``normalization_``. NumPy's
    ``eigh`` (LAPACK): the crate's own eigensolver (``fwsvm::model::feature_maps::inverse_sqrt``,
    for Rust users) took 2.1 s against 0.24 s at 1,000 landmarks and 62 s against 2.1 s at 2,000."""
    values, vectors = _leading_eigenpairs(K, K.shape[0])
    return (vectors / np.sqrt(values)) @ vectors.T


def top_inverse_sqrt(K: np.ndarray, rank: int) -> np.ndarray:
    """U_r Λ_r^{−1/2} (m × r) of the ``rank`` largest eigenpairs of K (at most those above 1e-12
    of the largest): the rank-r Nyström map's normalization, z(x)ᵀz(x′) = k_S(x)ᵀ U_r Λ_r^{−1}
    U_rᵀ k_S(x′) — the best rank-r approximation of K⁺ — at r/m of the full map's product."""
    values, vectors = _leading_eigenpairs(K, rank)
    return np.ascontiguousarray(vectors / np.sqrt(values))


def triangular_inverse(K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(kept, N) for the landmarks' kernel matrix K: their pivoted Cholesky factorisation
    (LAPACK's ``dpstrf``) keeps the landmarks ``kept`` (positions in pivot order; it stops where
    the rest's Schur complement falls below 1e-12 of K's largest diagonal: those lie in the kept
    ones' span), K_kk = L Lᵀ, and N = L⁻ᵀ is upper triangular. z(x) = k_kept(x) N gives
    z(x)ᵀz(x′) = k(x)ᵀ K_kk⁻¹ k(x′): :func:`inverse_sqrt`'s map up to a rotation, so a linear
    SVM on it fits the same model, and the map's product (which skips N's zeros) costs half."""
    from scipy.linalg import lapack, solve_triangular

    K = np.ascontiguousarray(0.5 * (K + K.T))
    top = float(np.max(np.diag(K))) if K.size else 0.0
    if top <= 0.0:
        return np.zeros(0, dtype=np.intp), np.zeros((0, 0))
    c, piv, rank, info = lapack.dpstrf(K, lower=1, tol=1e-12 * top)
    if info < 0:
        raise ValueError(f"the landmarks' kernel matrix could not be factorised (dpstrf info {info})")
    L = np.tril(c[:rank, :rank])
    N = np.triu(solve_triangular(L, np.eye(rank), lower=True).T)
    return np.asarray(piv[:rank], dtype=np.intp) - 1, np.ascontiguousarray(N)


def _leading_eigenpairs(K: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``rank`` largest eigenpairs of the symmetrised K above 1e-12 of the largest (none
    when no eigenvalue is positive), largest first."""
    values, vectors = np.linalg.eigh(0.5 * (K + K.T))
    top = values.max() if values.size else 0.0
    order = np.argsort(values)[::-1][:rank]
    order = order[values[order] > 1e-12 * top] if top > 0 else order[:0]
    return values[order], vectors[:, order]


def _start_fit(transformer: Any, X: Any) -> tuple[Any, np.random.RandomState]:
    """A map's fit begins: parameters and X checked, ``gamma_`` resolved; X and the generator."""
    transformer._validate_params()
    X = validate_data(transformer, X, accept_sparse="csr", dtype=np.float64, order="C")
    transformer.gamma_ = resolve_gamma(transformer.gamma, X)
    return X, check_random_state(transformer.random_state)


def _drawing(rng: np.random.RandomState, draw: Any, *args: Any, **kwargs: Any) -> Any:
    """``draw(*args, rng's state, **kwargs)`` in Rust, which draws as ``rng`` would and returns
    (its result, the advanced state); ``rng`` is moved on to that state."""
    result, state = draw(*args, rng.get_state(), **kwargs)
    rng.set_state(state)
    return result


@parameters()
class Nystroem(SaveMixin, SparseInputMixin, TransformerMixin, BaseEstimator):
    """Nyström approximation of a kernel: z(x) = K_SS^{−1/2} k(S, x) for landmarks S.

    Parameters
    ----------
    kernel : {"rbf", "laplacian", "linear", "poly", "sigmoid"}, default="rbf"
        The kernel, with :class:`fwsvm.SVC`'s conventions.
    gamma : {"scale", "auto"} or float, default="scale"
        As in :class:`fwsvm.SVC` (``"scale"``: 1/(n_features · X.var())).
    degree, coef0 : int, float, default=3, 0.0
        Of the polynomial and sigmoid kernels.
    n_components : int, default=100
        Number of landmarks, hence of output features (fewer if X has fewer rows).
    landmarks : {"uniform", "coreset"}, default="uniform"
        ``"uniform"``: rows drawn uniformly without replacement. ``"coreset"``: the support
        vectors of a Frank-Wolfe fit (:class:`fwsvm.SVC`, squared hinge, the given ``C``) on a
        uniform subsample of ``coreset_sample`` rows — the points the solver found the decision
        function needs — the ``n_components`` with the largest weights, topped up uniformly if
        the coreset is smaller. Needs ``y`` in ``fit``.
    C : float, default=1.0
        Penalty of the coreset fit.
    coreset_sample : int or None, default=None
        Rows of the coreset fit's subsample (None: 10 × ``n_components``).
    random_state : int, RandomState instance or None, default=None
    n_jobs : int or None, default=None
        Threads for the kernel values.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The landmarks.
    component_indices_ : ndarray of shape (n_components,)
        Their rows in the training data.
    normalization_ : ndarray of shape (n_components, n_components)
        K_SS^{−1/2} (eigenvalues below 1e-12 of the largest are dropped: a pseudo-inverse).
    gamma_ : float
        The resolved γ.
    """

    def fit(self, X: Any, y: Any = None) -> Nystroem:
        """Choose the landmarks and compute K_SS^{−1/2}.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples; the landmarks are chosen among them.
        y : array-like of shape (n_samples,), default=None
            Class labels; required by ``landmarks="coreset"``.

        Returns
        -------
        self : Nystroem
        """
        X, rng = _start_fit(self, X)
        k = min(self.n_components, X.shape[0])
        landmarks = self._coreset(X, y, k, rng) if self.landmarks == "coreset" else None
        # The uniform landmarks drawn in Rust (NumPy's stream), K_SS^{-1/2} by LAPACK.
        self.component_indices_ = _drawing(rng, _core.fit_nystroem, X, n_components=k,
                                           landmarks=landmarks)
        self.components_ = X[self.component_indices_]
        self.normalization_ = inverse_sqrt(self._kernel(self.components_, self.components_))
        return self

    def _coreset(self, X: Any, y: Any, k: int, rng: np.random.RandomState) -> np.ndarray:
        if y is None:
            raise ValueError(
                "landmarks='coreset' takes the support vectors of an SVM fit and needs y; "
                "pass y to fit (a Pipeline does) or use landmarks='uniform'"
            )
        y = np.asarray(y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
        size = min(X.shape[0], self.coreset_sample or 10 * k)
        return coreset_indices(X, y, k, size, dict(self._kernel_args(), C=self.C, n_jobs=self.n_jobs), rng)

    def _kernel_args(self) -> dict[str, Any]:
        """The kernel (resolved γ) and threads as the native calls take them."""
        return dict(kernel=self.kernel, gamma=self.gamma_, degree=int(self.degree), coef0=float(self.coef0),
                    n_threads=self.n_jobs)

    def _kernel(self, X: Any, S: Any) -> np.ndarray:
        return _core.kernel_values(X, S, self._kernel_args())

    def transform(self, X: Any) -> np.ndarray:
        """The features z(x) = K_SS^{−1/2} k(S, x), one row per sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples to map, with the training data's features.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            Inner products of rows approximate the kernel: ⟨z(x), z(x′)⟩ ≈ k(x, x′).
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, order="C", reset=False)
        return self._map(X, "float64")

    def _map(self, X: Any, dtype: str) -> np.ndarray:
        """z(X) for checked rows, as ``dtype`` ("float32": multiplied in single precision)."""
        return _core.transform_features(X, dict(
            kernel_args=self._kernel_args(), components_=self.components_,
            normalization_=self.normalization_), dtype=dtype)


@parameters()
class RandomFourierFeatures(SaveMixin, SparseInputMixin, TransformerMixin, BaseEstimator):
    """Random Fourier features (Rahimi & Recht 2007) of a shift-invariant kernel:
    z(x) = √(2/D) cos(Wx + b).

    Parameters
    ----------
    kernel : {"rbf", "laplacian"}, default="rbf"
        exp(−γ‖x − x′‖²) (W ~ N(0, 2γ)) or exp(−γ‖x − x′‖₁) (W ~ Cauchy(0, γ)).
    gamma : {"scale", "auto"} or float, default="scale"
    n_components : int, default=100
        D, the number of features.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features, n_components)
    random_offset_ : ndarray of shape (n_components,)
    gamma_ : float
    """

    def fit(self, X: Any, y: Any = None) -> RandomFourierFeatures:
        """Draw W and b (only the shape of X and, for ``gamma="scale"``, its variance are used).

        Returns
        -------
        self : RandomFourierFeatures
        """
        X, rng = _start_fit(self, X)
        self.random_weights_, self.random_offset_ = _drawing(rng, _core.fit_random_fourier, dict(
            kernel=self.kernel, gamma=self.gamma_, n_features=X.shape[1], n_components=self.n_components))
        return self

    def transform(self, X: Any) -> np.ndarray:
        """z(x) for each row of X.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return _core.transform_features(X, vars(self))
