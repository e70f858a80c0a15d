"""
=============================================
The C path: warm starts and SVCCV
=============================================

:func:`fwsvm.svc_path` fits a grid of ``C`` values in ascending order, each fit starting from
the previous solution (``warm_start=True``). For the squared hinge a simplex point stays
feasible whatever ``C`` is; for the hinge loss the weights are scaled by the ratio of the new
``C`` to the old and made feasible. :class:`fwsvm.SVCCV` picks ``C`` by cross-validation with
one warm-started path per fold.

Here, on scikit-learn's digits (odd against even, 1,797 rows), we draw the validation
accuracy and the number of support vectors along the path, and count the solver steps of the
warm path against cold fits at the same ``C`` values, for both losses.
"""

# %%
# A path on a validation split
# ----------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from fwsvm import SVC, SVCCV, svc_path

X, digit = load_digits(return_X_y=True)
y = digit % 2  # odd against even: binary, so the path is warm-started
X_train, X_val, y_train, y_val = train_test_split(
    X, y, test_size=0.3, random_state=0, stratify=y)
scaler = StandardScaler().fit(X_train)
X_train, X_val = scaler.transform(X_train), scaler.transform(X_val)

Cs = np.logspace(-2, 3, 11)
paths, steps = {}, {}
for loss in ["squared_hinge", "hinge"]:
    models, scores = svc_path(X_train, y_train, Cs,
                              estimator=SVC(loss=loss, random_state=0),
                              X_val=X_val, y_val=y_val)
    paths[loss] = (models, scores)
    warm = np.array([m.n_iter_.sum() for m in models])
    cold = np.array([SVC(loss=loss, C=C, random_state=0)
                     .fit(X_train, y_train).n_iter_.sum() for C in Cs])
    steps[loss] = (warm, cold)
    best = np.argmax(scores)
    print(f"{loss:14s} steps over the grid: warm path {warm.sum():6d}, "
          f"cold fits {cold.sum():6d}; best validation accuracy "
          f"{scores[best]:.4f} at C = {Cs[best]:g}")

# %%
# Validation accuracy rises and then flattens as ``C`` grows. The two losses put ``C`` on
# different scales (the squared hinge prices squared slacks), so their curves are shifted
# against each other; the squared hinge keeps at least as many support vectors at every ``C``
# (many more in the middle of the grid).
#
# The step counts are measured, not assumed: whether a warm start pays depends on the loss
# and the data. The printout above and the right-hand panel show it for this data set;
# BENCHMARKS.md ("Tuning: the warm-started C path") has a larger measurement on a3a.
fig, axes = plt.subplots(1, 3, figsize=(11, 3.6))
for loss, color in (("squared_hinge", "C0"), ("hinge", "C1")):
    models, scores = paths[loss]
    warm, cold = steps[loss]
    n_sv = [len(m.support_) for m in models]
    axes[0].semilogx(Cs, scores, "o-", color=color, label=loss)
    axes[1].semilogx(Cs, n_sv, "o-", color=color, label=loss)
    axes[2].loglog(Cs, warm, "o-", color=color, label=f"{loss}, warm")
    axes[2].loglog(Cs, cold, "x:", color=color, label=f"{loss}, cold")
axes[0].set_ylabel("validation accuracy")
axes[1].set_ylabel("support vectors")
axes[2].set_ylabel("solver steps")
for ax in axes:
    ax.set_xlabel("C")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="x-small")
fig.suptitle("rbf kernel, digits (odd vs even)")
fig.tight_layout()
plt.show()

# %%
# Choosing C by cross-validation
# ------------------------------
# ``SVCCV`` runs one path per fold and refits on all the training data with the best ``C``
# (ties go to the smaller ``C``). ``scores_`` holds the accuracy of every ``C`` on every fold.
search = SVCCV(SVC(loss="squared_hinge", random_state=0), Cs=Cs, cv=3)
search.fit(X_train, y_train)
print(f"chosen C = {search.C_:g}, search {search.search_seconds_:.2f} s, "
      f"validation accuracy {search.score(X_val, y_val):.4f}")

fig, ax = plt.subplots(figsize=(6, 3.8))
mean, std = search.scores_.mean(axis=0), search.scores_.std(axis=0)
ax.semilogx(Cs, mean, "o-", label="mean over 3 folds")
ax.fill_between(Cs, mean - std, mean + std, alpha=0.2)
ax.axvline(search.C_, color="k", linestyle="--", linewidth=1,
           label=f"C_ = {search.C_:g}")
ax.set_xlabel("C")
ax.set_ylabel("cross-validated accuracy")
ax.set_title("SVCCV(SVC(loss='squared_hinge'), cv=3)")
ax.legend()
fig.tight_layout()
plt.show()
