"""The same model as LIBSVM: fwsvm's four LIBSVM-family models against scikit-learn's at
tol 1e-6 (the issue-32 target: decision values within 1e-6 relative, support vectors ±1%).

    python benches/compare/libsvm_family_exact.py
    python benches/compare/libsvm_family_exact.py --tol 1e-8 --only heart_scale

Prints, per (model, data): the largest |Δf| over the training rows relative to the largest
|f|, and the support-vector counts.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from sklearn import svm
from sklearn.datasets import load_svmlight_file, make_friedman1, make_regression

import fwsvm

DATA = Path(os.environ.get("FWSVM_DATA", Path(__file__).resolve().parents[2] / ".." / "shared" / "data"))


def _libsvm(name: str):
    X, y = load_svmlight_file(str(DATA / name))
    X = X.tocsr()
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    return X, y


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--only", nargs="*", help="data sets to run (default: all)")
    args = ap.parse_args()
    sets = {}
    for name in ("heart_scale", "a1a", "dna.scale"):
        if (DATA / name).exists():
            sets[name] = _libsvm(name)
    sets["friedman1 20k"] = make_friedman1(20000, noise=1.0, random_state=0)
    Xr, yr = make_regression(10000, 20, noise=10.0, random_state=0)
    sets["make_regression 10k"] = (Xr, yr / np.std(yr))
    cases = [("NuSVC", dict(nu=0.3), ["heart_scale", "a1a", "dna.scale"]),
             ("SVR", dict(C=1.0, epsilon=0.1), ["heart_scale", "friedman1 20k", "make_regression 10k"]),
             ("NuSVR", dict(C=1.0, nu=0.3), ["heart_scale", "friedman1 20k", "make_regression 10k"]),
             ("OneClassSVM", dict(nu=0.3), ["heart_scale", "a1a", "friedman1 20k"])]
    print(f"{'model':<12} {'data':<20} {'max rel df':>10} {'nSV':>14}")
    for name, params, names in cases:
        for data in names:
            if data not in sets or (args.only and data not in args.only):
                continue
            X, y = sets[data]
            one = name == "OneClassSVM"
            ours = getattr(fwsvm, name)(tol=args.tol, **params)
            ref = getattr(svm, name)(tol=args.tol, **params)
            (ours.fit(X) if one else ours.fit(X, y)), (ref.fit(X) if one else ref.fit(X, y))
            f = np.ravel(ours.decision_function(X) if hasattr(ref, "decision_function") else ours.predict(X))
            g = np.ravel(ref.decision_function(X) if hasattr(ref, "decision_function") else ref.predict(X))
            rel = np.max(np.abs(f - g)) / np.max(np.abs(g))
            print(f"{name:<12} {data:<20} {rel:10.1e} {len(ours.support_):>6}/{len(ref.support_):<6}", flush=True)


if __name__ == "__main__":
    main()
