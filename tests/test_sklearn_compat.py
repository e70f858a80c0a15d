"""scikit-learn's estimator checks, with each expected failure and its reason."""

from __future__ import annotations

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from fwsvm import SVC, SVR, OneClassSVM

EXPECTED_FAILURES = {
    # Sample weights scale each point's penalty (C_i = C·w_i), which *is* equivalent to
    # repeating points at the optimum of the L2-SVM, but the check compares decision values to
    # rtol 1e-7 while the default stopping tolerance (relative gap 1e-3) certifies less.
    "check_sample_weight_equivalence_on_dense_data": "equivalent at the optimum only; default tol=1e-3",
    "check_sample_weight_equivalence_on_sparse_data": "equivalent at the optimum only; default tol=1e-3",
}


# Some checks cap max_iter (check_class_weight_classifiers: 1000 steps on a problem whose class
# weights differ by 10^7); stopping there is correct behaviour and warns, which is not a failure.
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [SVC(random_state=0), OneClassSVM(random_state=0), SVR(random_state=0)], expected_failed_checks=lambda est: EXPECTED_FAILURES
)
def test_sklearn_compatible(estimator, check) -> None:
    check(estimator)
