"""
=================================================
Convergence of the six algorithms
=================================================

Every fit of the squared hinge (the L2-SVM on the unit simplex) stops on a certificate: the
Frank-Wolfe **duality gap**, an upper bound on how far the objective is from the optimum. With
``record_history=True`` the estimator keeps one record per step in ``history_`` (objective,
gap, kind of step, coreset size, seconds), and :func:`fwsvm.plot_convergence` draws the gap
against iterations and against time.

We fit the six algorithms (``fw``, ``mfw``, ``swap``, ``swap2o``, ``bc``, ``ky``) on the
breast-cancer data bundled with scikit-learn, to a relative gap of 1e-4. Which to use when is
discussed in :doc:`/guide/solvers`; the comparison on the LIBSVM data sets is in
:doc:`/solver_comparison`.
"""

# %%
# Fits with a recorded history
# ----------------------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from fwsvm import SVC, plot_convergence

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)

models = {}
for algorithm in ["fw", "mfw", "swap", "swap2o", "bc", "ky"]:
    clf = SVC(loss="squared_hinge", algorithm=algorithm, tol=1e-4,
              max_iter=20_000, record_history=True, random_state=0)
    with warnings.catch_warnings():
        # Plain Frank-Wolfe converges sublinearly: it is expected to stop
        # at max_iter, which warns and says so in convergence_.
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    models[algorithm] = clf
    c = clf.convergence_
    print(f"{algorithm:7s} {c['exit_reason']:10s} {c['n_iter']:6d} steps, "
          f"relative gap {c['relative_gap']:.1e}, "
          f"{len(clf.support_)} support vectors")

# %%
# ``ky`` solves the variant with an unregularised bias and stops on its own test, so its
# curve is on a slightly different scale; ``mfw``, ``swap``, ``swap2o`` and ``bc`` solve the
# same problem to the same certificate and end with the same support vectors, while ``fw`` is
# still in its slow O(1/k) tail when it reaches ``max_iter``.
fig = plot_convergence(models, title="squared hinge, breast cancer (569 rows), C = 1")
plt.show()

# %%
# The hinge loss
# --------------
# The default model (LIBSVM's) is solved by pairwise steps with second-order partners (SMO).
# Its ``history_`` has the same fields; its ``gap`` column is the maximal violation of the
# optimality conditions, which the fit drives below ``tol`` (1e-3, LIBSVM's ``-e``); the last
# entry (kind ``"final"``) is the state the fit ended in. ``convergence_["gap"]`` is the
# duality gap of the final model.
hinge = SVC(record_history=True, random_state=0).fit(X, y)
h, c = hinge.history_, hinge.convergence_
print(f"hinge: {c['n_iter']} steps, exit {c['exit_reason']!r}, "
      f"duality gap {c['gap']:.2e}")

fig, ax = plt.subplots(figsize=(6, 3.8))
violation = np.where(h["gap"] > 0, h["gap"], np.nan)
ax.semilogy(h["iteration"] + 1, violation)
ax.axhline(c["tol"], color="k", linestyle="--", linewidth=1, label="tol")
ax.set_xlabel("iteration")
ax.set_ylabel("maximal violation")
ax.set_title("hinge loss (SMO), breast cancer, C = 1")
ax.legend()
fig.tight_layout()
plt.show()
