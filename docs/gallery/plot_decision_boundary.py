"""
=====================================================
Decision boundaries of the hinge and squared hinge
=====================================================

:class:`fwsvm.SVC` fits two models (``loss=``). The default, ``"hinge"``, is LIBSVM's model:
the same ``C`` gives the same support vectors and decision values as
:class:`sklearn.svm.SVC`. ``"squared_hinge"`` is the L2-SVM of the Core Vector Machine, whose
``C`` penalises *squared* slacks and is on another scale (see :doc:`/guide/formulation`).

On two interleaved half-moons we draw the decision function of both models at the same ``C``,
their margins (decision value ±1) and their support vectors, next to scikit-learn's SVC.
"""

# %%
# Data and models
# ---------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SklearnSVC

from fwsvm import SVC

X, y = make_moons(n_samples=300, noise=0.25, random_state=0)
X = StandardScaler().fit_transform(X)

C, gamma = 1.0, 1.0
models = {
    "fwsvm, hinge (default)": SVC(C=C, gamma=gamma, random_state=0),
    "fwsvm, squared_hinge": SVC(C=C, gamma=gamma, loss="squared_hinge",
                                random_state=0),
    "sklearn.svm.SVC (LIBSVM)": SklearnSVC(C=C, gamma=gamma),
}
for model in models.values():
    model.fit(X, y)

# %%
# The hinge loss is LIBSVM's model: the decision values agree with scikit-learn's to the
# solvers' tolerance, and the support vectors are the same points.
hinge = models["fwsvm, hinge (default)"]
libsvm = models["sklearn.svm.SVC (LIBSVM)"]
diff = hinge.decision_function(X) - libsvm.decision_function(X)
print(f"largest difference of decision values: {np.abs(diff).max():.2e}")
same = np.array_equal(np.sort(hinge.support_), np.sort(libsvm.support_))
print("same support vectors:", same)
for name, model in models.items():
    print(f"{name:26s} {len(model.support_):4d} support vectors, "
          f"training accuracy {model.score(X, y):.3f}")

# %%
# Decision functions
# ------------------
# Filled contours: the decision value; solid line: the boundary; dashed: the margins at ±1;
# circles: the support vectors. The squared hinge keeps more support vectors at the same C
# (every margin violator is one, and its slacks are priced quadratically).
axis = np.linspace(-2.5, 2.5, 200)
xx, yy = np.meshgrid(axis, axis)
grid = np.c_[xx.ravel(), yy.ravel()]

fig, axes = plt.subplots(1, 3, figsize=(10, 3.7), sharey=True)
for ax, (name, model) in zip(axes, models.items()):
    z = model.decision_function(grid).reshape(xx.shape)
    ax.contourf(xx, yy, z, levels=20, cmap="RdBu", alpha=0.6)
    ax.contour(xx, yy, z, levels=[-1, 0, 1], colors="k",
               linestyles=["--", "-", "--"], linewidths=1)
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu", edgecolors="k", s=14)
    sv = X[model.support_]
    ax.scatter(sv[:, 0], sv[:, 1], s=50, facecolors="none",
               edgecolors="k", linewidths=0.7)
    ax.set_title(f"{name}\n{len(model.support_)} support vectors")
    ax.set_xlabel("feature 1")
axes[0].set_ylabel("feature 2")
fig.tight_layout()
plt.show()
