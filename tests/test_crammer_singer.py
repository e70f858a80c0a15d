"""CrammerSingerSVC against an independent reference: the dual solved by a generic QP solver
(SciPy's SLSQP) on small problems; the duality-gap certificate recomputed from the model; and
accuracy next to one-vs-one on the shared multiclass sets."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import rbf_kernel

from conftest import shared_file
from fwsvm import SVC, CrammerSingerSVC, load_svmlight_files


def _reference_dual(K: np.ndarray, y: np.ndarray, n_classes: int, C: float) -> tuple[float, np.ndarray]:
    """max −½ Σ_k β_kᵀ K β_k + C Σ_i Σ_k α_ik L_ik over α_i ∈ simplex, β_k = C(δ(k, y) − α_k)."""
    m = len(y)
    onehot = np.eye(n_classes)[y]
    L = 1.0 - onehot

    def negative_dual(a: np.ndarray) -> float:
        A = a.reshape(m, n_classes)
        B = C * (onehot - A)
        return 0.5 * np.einsum("ik,ij,jk->", B, K, B) - C * np.sum(A * L)

    def gradient(a: np.ndarray) -> np.ndarray:
        A = a.reshape(m, n_classes)
        B = C * (onehot - A)
        return (-C * (K @ B) - C * L).ravel()

    constraints = [{"type": "eq", "fun": lambda a, i=i: a.reshape(m, n_classes)[i].sum() - 1.0,
                    "jac": lambda a, i=i: np.eye(m)[i].repeat(n_classes)} for i in range(m)]
    result = minimize(negative_dual, onehot.ravel(), jac=gradient, bounds=[(0, 1)] * (m * n_classes),
                      constraints=constraints, method="SLSQP", options={"maxiter": 2000, "ftol": 1e-14})
    assert result.success, result.message
    A = result.x.reshape(m, n_classes)
    return -result.fun, C * (onehot - A)


@pytest.mark.parametrize("C", [0.3, 3.0])
def test_equals_a_generic_qp_solution(C) -> None:
    X, y = make_blobs(n_samples=30, centers=3, cluster_std=2.0, random_state=1)
    gamma = 0.2
    clf = CrammerSingerSVC(C=C, gamma=gamma, tol=1e-9).fit(X, y)
    dual, B = _reference_dual(rbf_kernel(X, X, gamma=gamma), y, 3, C)
    assert clf.convergence_["objective"] == pytest.approx(dual, rel=1e-6)
    ours = clf.decision_function(X)
    reference = rbf_kernel(X, X, gamma=gamma) @ B
    np.testing.assert_allclose(ours, reference, atol=1e-4 * np.abs(reference).max())


def test_the_reported_gap_is_primal_minus_dual() -> None:
    X, y = make_blobs(n_samples=200, centers=4, cluster_std=2.5, random_state=2)
    clf = CrammerSingerSVC(C=2.0, gamma=0.1, tol=1e-3).fit(X, y)
    scores = clf.decision_function(X)  # s_k(x_i) = ⟨w_k, φ(x_i)⟩
    B = np.zeros((4, len(y)))
    B[:, clf.support_] = clf.dual_coef_
    norm_w2 = float(np.sum(B.T * scores))  # Σ_k β_kᵀ K β_k = Σ_i Σ_k β_ki s_k(x_i)
    margins = scores + (1.0 - np.eye(4)[y]) - scores[np.arange(len(y)), y][:, None]
    primal = 0.5 * norm_w2 + 2.0 * np.sum(margins.max(axis=1))
    conv = clf.convergence_
    assert conv["exit_reason"] == "converged"
    assert primal - conv["objective"] == pytest.approx(conv["gap"], rel=1e-6, abs=1e-9)
    assert conv["gap"] <= 1e-3 * primal * (1 + 1e-9)


def test_reproducible_and_thread_independent_with_string_labels() -> None:
    X, y = make_blobs(n_samples=150, centers=3, random_state=3)
    labels = np.array(["a", "b", "c"])[y]
    fits = [CrammerSingerSVC(n_jobs=j).fit(X, labels) for j in (1, 2, 1)]
    for other in fits[1:]:
        np.testing.assert_array_equal(fits[0].dual_coef_, other.dual_coef_)
    assert set(fits[0].predict(X)) <= {"a", "b", "c"}
    assert fits[0].score(X, labels) > 0.9


def test_errors() -> None:
    X, y = make_blobs(n_samples=20, centers=2, random_state=0)
    with pytest.raises(ValueError, match="greater than one"):
        CrammerSingerSVC().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="NaN|infinity"):
        CrammerSingerSVC().fit(np.full((4, 2), np.nan), [0, 1, 0, 1])
    clf = CrammerSingerSVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.zeros((3, 5)))
    with pytest.warns(Warning, match="terminated early"):
        CrammerSingerSVC(max_iter=5).fit(X, y)


@pytest.mark.parametrize("name", ["dna.scale", "satimage.scale"])
def test_accuracy_next_to_one_vs_one(name) -> None:
    train, test = shared_file(name), shared_file(name + ".t")
    X, y, Xt, yt = load_svmlight_files([str(train), str(test)])
    joint = CrammerSingerSVC(C=1.0).fit(X, y).score(Xt, yt)
    ovo = SVC(C=1.0).fit(X, y).score(Xt, yt)
    assert joint >= ovo - 0.005, (joint, ovo)
