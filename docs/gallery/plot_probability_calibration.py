"""
==========================================
Probability calibration (Platt scaling)
==========================================

``SVC(probability=True)`` adds :meth:`~fwsvm.SVC.predict_proba`, computed as LIBSVM's
``-b 1``: after the fit, 5-fold cross-validation gives out-of-fold decision values, a sigmoid
``1 / (1 + exp(A f + B))`` is fitted to them (Platt scaling with Lin, Lin & Weng's Newton
method) and, with more than two classes, pairwise probabilities are coupled into class
probabilities (Wu, Lin & Weng). The fitted sigmoids are ``probA_`` and ``probB_``.

We check the probabilities of a held-out set with a calibration curve (the fraction of
positives among the rows given a probability near p should be near p), next to scikit-learn's
``CalibratedClassifierCV(SVC(), method="sigmoid", ensemble=False)``, which scikit-learn 1.9
recommends in place of its deprecated ``SVC(probability=True)``: also a sigmoid fitted to
out-of-fold decision values of the same hinge-loss model, by scikit-learn's own code.
"""

# %%
# Fits
# ----
import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import CalibratedClassifierCV, calibration_curve
from sklearn.datasets import make_classification
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC as SklearnSVC

from fwsvm import SVC

X, y = make_classification(n_samples=3000, n_features=20, n_informative=4,
                           n_redundant=4, flip_y=0.05, class_sep=0.8,
                           random_state=0)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.5, random_state=0)

models = {
    "fwsvm SVC, hinge": SVC(probability=True, random_state=0),
    "fwsvm SVC, squared_hinge": SVC(loss="squared_hinge", probability=True,
                                    random_state=0),
    "sklearn CalibratedClassifierCV(SVC())": CalibratedClassifierCV(
        SklearnSVC(), method="sigmoid", ensemble=False, cv=5),
}
proba = {}
for name, model in models.items():
    model.fit(X_train, y_train)
    p = proba[name] = model.predict_proba(X_test)[:, 1]
    print(f"{name:38s} Brier {brier_score_loss(y_test, p):.4f}, "
          f"log-loss {log_loss(y_test, p):.4f}, "
          f"accuracy {model.score(X_test, y_test):.4f}")

fw = models["fwsvm SVC, hinge"]
print(f"fitted sigmoid: probA_ = {fw.probA_[0]:.4f}, "
      f"probB_ = {fw.probB_[0]:.4f}")

# %%
# The folds and the sigmoid fits differ between the two libraries, so the probabilities differ
# a little between fwsvm's hinge model and scikit-learn's even though the decision functions
# are the same model.
diff = np.abs(proba["fwsvm SVC, hinge"]
              - proba["sklearn CalibratedClassifierCV(SVC())"])
print(f"probabilities, fwsvm hinge vs scikit-learn: median difference "
      f"{np.median(diff):.4f}, largest {diff.max():.4f}")

# %%
# Calibration curves
# ------------------
# Top: the reliability diagram (10 bins of equal width); the diagonal is perfect calibration.
# Bottom: how many test rows fall in each bin of predicted probability.
fig, (ax, hist) = plt.subplots(2, 1, figsize=(6.5, 6.5), sharex=True,
                               height_ratios=[2, 1])
ax.plot([0, 1], [0, 1], "k:", label="perfectly calibrated")
for (name, p), marker in zip(proba.items(), "os^"):
    frac, mean_pred = calibration_curve(y_test, p, n_bins=10)
    ax.plot(mean_pred, frac, marker + "-", label=name)
    hist.hist(p, bins=10, range=(0, 1), histtype="step", linewidth=1.5,
              label=name)
ax.set_ylabel("fraction of positives")
ax.set_title("calibration on 1,500 held-out rows")
ax.legend(fontsize="small", loc="upper left")
hist.set_xlabel("predicted probability of class 1")
hist.set_ylabel("rows")
fig.tight_layout()
plt.show()

# %%
# ``predict`` follows the decision values, not the probabilities, so on a few rows near the
# boundary it can disagree with the argmax of ``predict_proba`` (as in scikit-learn).
argmax = fw.classes_[np.argmax(fw.predict_proba(X_test), axis=1)]
disagree = np.mean(fw.predict(X_test) != argmax)
print(f"rows where predict differs from argmax(predict_proba): "
      f"{100 * disagree:.2f}%")
