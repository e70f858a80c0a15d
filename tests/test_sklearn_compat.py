"""scikit-learn's estimator checks, with each expected failure and its reason."""

from __future__ import annotations

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from fwsvm import SGDSVC, SVC, SVR, NuSVC, NuSVR, Nystroem, OneClassSVM, RandomFourierFeatures

EXPECTED_FAILURES = {
    # Sample weights scale each point's penalty (C_i = C·w_i), which *is* equivalent to
    # repeating points at the optimum of the L2-SVM, but the check compares decision values to
    # rtol 1e-7 while the default stopping tolerance (relative gap 1e-3) certifies less.
    "check_sample_weight_equivalence_on_dense_data": "equivalent at the optimum only; default tol=1e-3",
    "check_sample_weight_equivalence_on_sparse_data": "equivalent at the optimum only; default tol=1e-3",
}


# Some checks cap max_iter (check_class_weight_classifiers: 1000 steps on a problem whose class
# weights differ by 10^7); stopping there is correct behaviour and warns, which is not a failure.
SGD_FAILURES = {
    # Class weights 1000 vs 0.0001 on noisy blobs: per-sample penalties 10^7 apart make the
    # subgradient steps ill-conditioned; 200 epochs at the best η₀ reach 92% of class 0, not 87% in
    # the check's budget (SVC with the same weights passes: an exact solver).
    "check_class_weight_classifiers": "penalties 10^7 apart: SGD needs far more epochs",
}


# scikit-learn's own NuSVC fails these too (the same model; sklearn's instance_generator).
NU_SVC_FAILURES = {
    **EXPECTED_FAILURES,
    # Class weights 1000 vs 0.0001 scale the bounds: ν = 0.5 is then infeasible for the
    # light class (LIBSVM's "specified nu is infeasible"); scikit-learn ignores class_weight.
    "check_class_weight_classifiers": "nu infeasible for bounds scaled 10^7 apart",
}

# The L2 models take no sample weights (fit has the parameter for LIBSVM's losses).
L2_FAILURES = {
    **EXPECTED_FAILURES,
    **{check: "sample_weight applies to LIBSVM's loss, not to the L2 model" for check in (
        "check_sample_weights_pandas_series", "check_sample_weights_not_an_array", "check_sample_weights_list",
        "check_all_zero_sample_weights_error", "check_sample_weights_shape", "check_sample_weights_not_overwritten",
    )},
}


def _expected(est) -> dict[str, str]:
    if isinstance(est, NuSVC):
        return NU_SVC_FAILURES
    if getattr(est, "loss", None) in ("squared_hinge", "squared_epsilon_insensitive") and not isinstance(est, SVC):
        return L2_FAILURES
    if isinstance(est, SGDSVC):
        return SGD_FAILURES
    if isinstance(est, (Nystroem, RandomFourierFeatures)):
        return {}
    return EXPECTED_FAILURES


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [
        SVC(random_state=0),
        SVC(kernel="linear", loss="squared_hinge", algorithm="dcd", random_state=0),
        OneClassSVM(random_state=0),
        OneClassSVM(loss="squared_hinge", random_state=0),
        SVR(random_state=0),
        SVR(loss="squared_epsilon_insensitive", random_state=0),
        NuSVC(random_state=0),
        NuSVR(random_state=0),
        SGDSVC(random_state=0),
        Nystroem(n_components=20, random_state=0),
        RandomFourierFeatures(n_components=20, random_state=0),
    ],
    expected_failed_checks=_expected,
)
def test_sklearn_compatible(estimator, check) -> None:
    check(estimator)
