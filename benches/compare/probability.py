"""Probabilities against scikit-learn: test log-loss and argmax/predict agreement of
SVC(probability=True) for fwsvm and sklearn.svm.SVC at the same C and gamma, on the shared
LIBSVM sets (BENCHMARKS.md, "Probabilities against scikit-learn").

    python3 benches/compare/probability.py [--gamma scale|inverse_features]
"""

import argparse
import os
import warnings
import numpy as np
from fwsvm import load_svmlight_file, load_svmlight_files
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC as SkSVC
from fwsvm import SVC
warnings.simplefilter("ignore")
D = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data")) + "/"
parser = argparse.ArgumentParser()
parser.add_argument("--gamma", default="scale", choices=["scale", "inverse_features"])
args = parser.parse_args()

def sets():
    X, y = load_svmlight_file(D + "heart_scale")
    a, b, c, d = train_test_split(X.toarray(), y, test_size=0.3, random_state=0, stratify=y)
    yield "heart_scale (70/30 split, seed 0)", a, b, c, d
    for tr, te in [("a1a", "a1a.t"), ("dna.scale", "dna.scale.t"), ("satimage.scale", "satimage.scale.t")]:
        Xa, ya, Xb, yb = load_svmlight_files([D + tr, D + te])
        yield f"{tr} → {te}", Xa, Xb, ya, yb
print("| data | log-loss fwsvm | log-loss scikit-learn | argmax = predict, fwsvm | argmax = predict, scikit-learn |")
print("|---|---|---|---|---|")
for name, Xa, Xb, ya, yb in sets():
    gamma = "scale" if args.gamma == "scale" else 1.0 / Xa.shape[1]
    ours = SVC(C=1, gamma=gamma, probability=True).fit(Xa, ya)
    theirs = SkSVC(C=1, gamma=gamma, probability=True, random_state=0).fit(Xa, ya)
    p, q = ours.predict_proba(Xb), theirs.predict_proba(Xb)
    agree = np.mean(ours.classes_[p.argmax(1)] == ours.predict(Xb))
    agree_sk = np.mean(theirs.classes_[q.argmax(1)] == theirs.predict(Xb))
    print(f"| {name} | {log_loss(yb, p, labels=ours.classes_):.4f} | {log_loss(yb, q, labels=theirs.classes_):.4f} | {100*agree:.1f}% | {100*agree_sk:.1f}% |")
