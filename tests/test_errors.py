"""Bad input gives a clear ValueError naming the problem, never a crash or a silent answer."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fwsvm import SVC


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_features(data, bad) -> None:
    X, y = data
    X = X.copy()
    X[5, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        SVC().fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        SVC().fit(sp.csr_matrix(X), y)
    clf = SVC().fit(data[0], y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        clf.predict(X)


def test_empty_input() -> None:
    with pytest.raises(ValueError, match="0 sample"):
        SVC().fit(np.empty((0, 3)), np.empty(0))
    with pytest.raises(ValueError, match="0 feature"):
        SVC().fit(np.empty((4, 0)), np.array([0, 1, 0, 1]))


def test_single_class(data) -> None:
    X, _ = data
    with pytest.raises(ValueError, match="one"):
        SVC().fit(X, np.ones(len(X)))


def test_mismatched_lengths(data) -> None:
    X, y = data
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        SVC().fit(X, y[:-1])
    with pytest.raises(ValueError, match="sample_weight"):
        SVC().fit(X, y, sample_weight=np.ones(3))


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(C=-1.0), "'C'"),
        (dict(C=0.0), "'C'"),
        (dict(tol=-1e-3), "'tol'"),
        (dict(kernel="cubic"), "'kernel'"),
        (dict(algorithm="newton"), "'algorithm'"),
        (dict(gamma=-0.5), "'gamma'"),
        (dict(stopping="never"), "'stopping'"),
        (dict(init="zero"), "'init'"),
        (dict(cache_size=0), "'cache_size'"),
        (dict(max_iter=-5), "'max_iter'"),
    ],
)
def test_bad_parameters_name_the_parameter(data, params, match) -> None:
    X, y = data
    with pytest.raises(ValueError, match=match):
        SVC(**params).fit(X, y)


def test_meb_rule_refused_for_non_ball_problems(data) -> None:
    X, y = data
    with pytest.raises(ValueError, match="minimum enclosing ball"):
        SVC(loss="squared_hinge", kernel="linear", stopping="meb").fit(X, y)


def test_negative_sample_weight(data) -> None:
    X, y = data
    w = np.ones(len(y))
    w[3] = -1
    with pytest.raises(ValueError, match="non-negative"):
        SVC().fit(X, y, sample_weight=w)


def test_wrong_feature_count_at_predict(data) -> None:
    X, y = data
    clf = SVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :2])


def test_unsorted_sparse_indices_are_handled(data) -> None:
    X, y = data
    Xs = sp.csr_matrix(X)
    # Reverse the column order inside each row: scipy marks it non-canonical.
    for r in range(Xs.shape[0]):
        lo, hi = Xs.indptr[r], Xs.indptr[r + 1]
        Xs.indices[lo:hi] = Xs.indices[lo:hi][::-1].copy()
        Xs.data[lo:hi] = Xs.data[lo:hi][::-1].copy()
    Xs.has_sorted_indices = False
    a = SVC(random_state=0).fit(Xs, y)
    b = SVC(random_state=0).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9)


def test_corrupt_csr_indptr_raises_value_error_in_fit_and_predict() -> None:
    import scipy.sparse as sp

    X = sp.random(50, 10, density=0.3, format="csr", random_state=0)
    y = np.arange(50) % 2
    bad = X.copy()
    bad.indptr = bad.indptr.copy()
    bad.indptr[5] = 10**6
    bad.has_canonical_format = True  # scipy then trusts the structure
    with pytest.raises(ValueError, match="indptr"):
        SVC().fit(bad, y)
    model = SVC().fit(X, y)
    with pytest.raises(ValueError, match="indptr"):
        model.predict(bad)


def test_absurd_n_jobs_is_capped_at_the_cores() -> None:
    # 10,000 threads failed to start ("could not build the thread pool") after 9 s; the count
    # is capped at the cores, and the model does not depend on it.
    X, y = np.random.default_rng(0).normal(size=(40, 3)), np.arange(40) % 2
    model = SVC(n_jobs=10_000).fit(X, y)
    np.testing.assert_array_equal(model.dual_coef_, SVC(n_jobs=1).fit(X, y).dual_coef_)


def test_huge_but_valid_n_features_fit_in_memory_proportional_to_the_values(tmp_path) -> None:
    # A 4-line file with feature index 2³¹−1 asked for a 17 GB scatter buffer (an abort); in a
    # subprocess with a 3 GB address-space limit, fit and predict must work and match LIBSVM.
    import subprocess
    import sys
    import textwrap

    path = tmp_path / "huge.svm"
    path.write_text("1 1:1 2147483647:1\n-1 1:2\n1 2:1\n-1 3:1\n")
    script = textwrap.dedent(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        import numpy as np
        from sklearn.svm import SVC as SkSVC
        import fwsvm
        X, y = fwsvm.load_svmlight_file({str(path)!r})
        assert X.shape == (4, 2147483647), X.shape
        ours = fwsvm.SVC(gamma=0.5, tol=1e-8).fit(X, y)
        theirs = SkSVC(gamma=0.5, tol=1e-8).fit(X, y)
        np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-6)
        fwsvm.SVC(loss="squared_hinge", gamma=0.5).fit(X, y).predict(X)
        print("ok")
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_a_kernel_that_overflows_is_refused(loss: str) -> None:
    # (γ⟨x, x⟩ + 0)^10⁶ is infinite: NaN decision values or a constant predictor before.
    X = np.random.default_rng(0).normal(size=(100, 3)) * 3
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="overflows"):
        SVC(loss=loss, kernel="poly", degree=10**6, gamma=1.0).fit(X, y)


def test_svr_targets_too_large_to_standardise() -> None:
    from fwsvm import SVR

    X = np.random.default_rng(0).normal(size=(50, 2))
    y = X[:, 0] * 1e200
    with pytest.raises(ValueError, match="too large to standardise"):
        SVR(loss="squared_epsilon_insensitive").fit(X, y)



@pytest.mark.parametrize(
    "params",
    [
        {"loss": "hinge"},
        *({"loss": "squared_hinge", "algorithm": a} for a in ("swap", "swap2o", "mfw", "bc", "ky")),
    ],
    ids=lambda p: "-".join(str(v) for v in p.values()),
)
def test_a_tolerance_below_round_off_ends_with_a_warning_not_a_hang(params) -> None:
    # Before: the squared hinge at tol 1e-15 took 10⁶ tiny steps (106 s for 300 rows) with its
    # relative gap stuck at 4e-13, and with max_iter=-1 it never stopped.
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + 0.3 * rng.normal(size=300) > 0).astype(int)
    with pytest.warns(ConvergenceWarning, match="no progress"):
        clf = SVC(C=100.0, tol=1e-15, **params).fit(X, y)
    assert clf.convergence_["exit_reason"] == "no_progress"
    assert clf.convergence_["relative_gap"] < 1e-10
    assert clf.score(X, y) > 0.85


def test_a_cache_size_beyond_the_memory_is_capped_not_an_abort() -> None:
    # cache_size=10⁶ MB on 20,000 rows asked for the whole 3.2 GB matrix; under a 3 GB
    # address-space limit the cache filled the memory and the next small allocation aborted.
    # The cache now takes at most a quarter of the memory still available.
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        import numpy as np
        import fwsvm
        rng = np.random.default_rng(0)
        X = rng.normal(size=(20_000, 2))
        y = rng.integers(0, 2, 20_000)
        clf = fwsvm.SVC(cache_size=10**6, gamma=10.0).fit(X, y)
        assert clf.convergence_["exit_reason"] == "converged", clf.convergence_
        assert clf.convergence_["cache_capacity"] < 20_000, clf.convergence_
        print("ok")
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]


def test_a_csr_matrix_rewritten_by_another_thread_during_a_fit_cannot_reach_the_core() -> None:
    # Issue 33: the core checked indices/indptr once and indexed with them; a thread scribbling
    # over X.indices during the fit made it index out of range (PanicException). The fit now
    # works on its own copy of the index arrays: it finishes, whatever the other thread does.
    import threading
    import time

    import scipy.sparse as sp

    from fwsvm import SVC

    rng = np.random.default_rng(3)
    X = sp.random(4000, 50, density=0.3, format="csr", random_state=rng)
    y = np.where(rng.random(4000) < 0.5, 1, -1)  # noise: a long fit
    started = threading.Event()
    stop = threading.Event()

    def scribble() -> None:
        started.wait()
        time.sleep(0.3)  # the fit has checked the arrays and is solving
        while not stop.is_set():
            X.indices[:] = 10**6  # far beyond the 50 columns

    worker = threading.Thread(target=scribble, daemon=True)
    worker.start()
    started.set()
    try:
        SVC(C=100.0, tol=1e-9, n_jobs=1).fit(X, y)  # a PanicException is not a ValueError: it fails the test
    except ValueError as exc:
        assert "index" in str(exc) or "column" in str(exc), exc
    finally:
        stop.set()
        worker.join()
