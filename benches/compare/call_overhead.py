"""Per-call overhead of the Python boundary on tiny problems, for before/after tables across
wheels: the best of 7 loops (microseconds per call) of constructing ``SVC(C=2.0)``, a one-row
``_core.decision_values`` against 10 support vectors, ``_core.fit_svc_model`` on
make_classification 200 × 10, whole ``SVC().fit`` on that data and on heart_scale, one-row and
200-row ``predict``, and ``_core.data_variance`` on w8a's CSR matrix (the conversion of
579,586 non-zeros dominates it).

    taskset -c 1 python benches/compare/call_overhead.py          # in each wheel's venv

Wheels that predate the bindings' own CSR conversion and Ctrl-C handling (before 27a78dc) are
measured through their ``fwsvm._native`` helpers, as their estimators called them. Needs
heart_scale and w8a in ../shared/data (or FWSVM_DATA).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from sklearn.datasets import make_classification

import fwsvm
from fwsvm import _core, load_svmlight_file

DATA = Path(os.environ.get("FWSVM_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))

try:  # wheels before 27a78dc: the estimators converted CSR and ran native calls through these
    from fwsvm._native import features_arg, run_interruptible  # type: ignore[import-not-found]
except ImportError:
    def features_arg(x: Any) -> Any:
        return x

    def run_interruptible(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)


def best(call: Callable[[], Any], n: int, loops: int = 7) -> float:
    """Microseconds per call: the best of ``loops`` loops of ``n`` calls."""
    times = []
    for _ in range(loops):
        start = time.perf_counter()
        for _ in range(n):
            call()
        times.append((time.perf_counter() - start) / n)
    return min(times) * 1e6


def main() -> None:
    X, y = make_classification(n_samples=200, n_features=10, random_state=0)
    y_pm = np.where(y == 1, 1.0, -1.0)
    params = dict(c=1.0, kernel="rbf", gamma=0.1, degree=3, coef0=0.0, algorithm="swap", tol=1e-3, stopping="gap",
                  max_iter=-1, cache_size=200.0, init="random", seed=0, loss="hinge")
    rng = np.random.default_rng(0)
    row, sv, coef = rng.normal(size=(1, 5)), rng.normal(size=(10, 5)), np.ones(10)
    Xh, yh = load_svmlight_file(str(DATA / "heart_scale"))
    Xw, _ = load_svmlight_file(str(DATA / "w8a"), n_features=300)
    model = fwsvm.SVC().fit(X, y)
    rows = {
        "SVC(C=2.0)": best(lambda: fwsvm.SVC(C=2.0), 20000),
        "decision_values, 1 row": best(lambda: run_interruptible(_core.decision_values, row, sv, coef, 0.0,
                                                                 dict(kernel="rbf", gamma=0.1)), 5000),
        "fit_svc_model 200 x 10": best(lambda: run_interruptible(_core.fit_svc_model, (X, y_pm), params), 300),
        "SVC().fit 200 x 10": best(lambda: fwsvm.SVC().fit(X, y), 300),
        "SVC().fit heart_scale": best(lambda: fwsvm.SVC().fit(Xh, yh), 300),
        "predict 1 row": best(lambda: model.predict(X[:1]), 2000),
        "predict 200 rows": best(lambda: model.predict(X), 1000),
        "data_variance w8a CSR": best(lambda: _core.data_variance(features_arg(Xw)), 20),
    }
    for name, micros in rows.items():
        print(f"{name}\t{micros:.1f} us")


if __name__ == "__main__":
    main()
