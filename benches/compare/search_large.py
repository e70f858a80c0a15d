"""The (C, γ) search on the issue's large sets against GridSearchCV(LIBSVM), resumable (issue 18's
target table; BENCHMARKS.md, "The search on the large sets").

    taskset -c 1 python3 benches/compare/search_large.py run w8a mnist-0 --out results/search_large.jsonl
    python3 benches/compare/search_large.py report --out results/search_large.jsonl

GridSearchCV(sklearn.svm.SVC) on a 7 × 5 grid with 5-fold CV takes hours to days per set on
this machine, so it is not run whole. ``run`` does, per set and in this order, writing one JSON
line per finished piece (a run cut short resumes where it stopped):

1. ``halving-rounds-only``: ``fwsvm.SVCSearch(SVC(n_jobs=1), halving=True)`` (the default: the
   rounds only), and ``halving``: the same with ``local_search=True``: seconds, choice, test
   accuracy;
2. ``grid-test``: every grid point fitted by fwsvm on the whole training set and scored on the
   test set: the best test accuracy any grid point reaches (the two tools reach the same
   hinge-loss optimum up to tol: their validation accuracies agree at every point measured);
3. ``fold0``: grid points on fold 0 in a fixed random order, each fitted by fwsvm and by LIBSVM
   (``sklearn.svm.SVC``, the same C) and scored on the fold's validation part, until
   ``--libsvm-budget`` seconds of LIBSVM time are spent; a LIBSVM fit running longer than
   ``--libsvm-cap`` is stopped (it runs in a child process) and counted at the cap. Five times
   the sum over the points measured is a **lower bound** on GridSearchCV(LIBSVM)'s time (the
   other points and the refit cost more than nothing; censored fits cost more than the cap);
   5 × 35 × their mean is an estimate (low when fits were censored);
4. ``exhaustive``: ``fwsvm.SVCSearch(SVC(n_jobs=1))``, no halving.

The folds are ``StratifiedKFold(5, shuffle=True, random_state=0)`` for every tool and stage
(unshuffled folds follow a file's order: on w8a they score 0.969 where shuffled folds and the
test set give 0.988–0.991, and every search then picks a near-trivial model), the grid
SVCSearch's default (C = 2⁻³, 2⁻¹, …, 2⁹; γ = scale · 2⁻⁴, 2⁻², 1, 2², 2⁴).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC as LibsvmSVC

from fwsvm import SVC, SVCSearch
from fwsvm.search import DEFAULT_GAMMA_FACTORS
from fwsvm.tuning import DEFAULT_CS

sys.path.insert(0, str(Path(__file__).parent))
from peers import for_peers, load_dataset  # noqa: E402

DATA = os.environ.get("FWSVM_DATA", str(Path(__file__).resolve().parents[3] / "shared" / "data"))
SETS = {
    "a9a": ("a9a", "a9a.t"),
    "w8a": ("w8a", "w8a.t"),
    "shuttle-1": ("shuttle.scale#1", "shuttle.scale.t#1"),
    "mnist-0": ("mnist.scale.bz2#0", "mnist.scale.t.bz2#0"),
    "make_classification": ("gen:make_classification", None),
}
STAGES = ("halving", "halving-rounds-only", "grid-test", "fold0", "exhaustive")
FOLDS = StratifiedKFold(5, shuffle=True, random_state=0)


def grid(X) -> list[dict[str, float]]:
    scale = SVC()._resolve_gamma(X)
    return [{"C": float(C), "gamma": float(scale * f)} for C in DEFAULT_CS for f in DEFAULT_GAMMA_FACTORS]


def _libsvm_child(conn, X, y, train, valid, params) -> None:
    warnings.simplefilter("ignore")
    t = time.perf_counter()
    model = LibsvmSVC(**params).fit(X[train], y[train])
    fit = time.perf_counter() - t
    t = time.perf_counter()
    accuracy = model.score(X[valid], y[valid])
    conn.send((fit, time.perf_counter() - t, float(accuracy), int(sum(model.n_support_))))


def libsvm_point(X, y, train, valid, params, cap: float) -> dict:
    """One LIBSVM fit + score in a forked child, stopped after ``cap`` seconds."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    start = time.perf_counter()
    proc = ctx.Process(target=_libsvm_child, args=(child, X, y, train, valid, params))
    proc.start()
    child.close()
    if parent.poll(cap):
        fit, score, accuracy, n_sv = parent.recv()
        proc.join()
        return {"fit_s": fit, "score_s": score, "valid_accuracy": accuracy, "n_sv": n_sv, "censored": False}
    proc.kill()
    proc.join()
    return {"fit_s": time.perf_counter() - start, "score_s": 0.0, "valid_accuracy": None, "n_sv": None,
            "censored": True}


def fwsvm_point(X, y, train, valid, params) -> dict:
    t = time.perf_counter()
    model = SVC(n_jobs=1, **params).fit(X[train], y[train])
    fit = time.perf_counter() - t
    t = time.perf_counter()
    accuracy = model.score(X[valid], y[valid])
    return {"fit_s": fit, "score_s": time.perf_counter() - t, "valid_accuracy": float(accuracy),
            "n_sv": int(sum(model.n_support_))}


def load(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def wait_while(path: str | None) -> None:
    """Between two measured pieces: wait while ``path`` exists (frees the core for another
    measurement without disturbing a timed fit)."""
    while path and os.path.exists(path):
        time.sleep(5)


def run(args) -> None:
    warnings.simplefilter("ignore")
    done = load(args.out)
    out = open(args.out, "a")

    def emit(record: dict) -> None:
        out.write(json.dumps(record) + "\n")
        out.flush()
        print(json.dumps(record), flush=True)

    for name in args.sets:
        have = [d for d in done if d["set"] == name]
        stages_done = {d["stage"] for d in have if d.get("complete")}
        X, Xt, y, yt = load_dataset(DATA, *SETS[name])
        points = grid(X)
        print(f"# {name}: {X.shape[0]} × {X.shape[1]}, test {Xt.shape[0]}", flush=True)
        for stage in args.stages:
            if stage in stages_done:
                continue
            wait_while(args.pause_file)
            if stage in ("halving", "halving-rounds-only", "exhaustive"):
                t = time.perf_counter()
                s = SVCSearch(SVC(n_jobs=1), cv=FOLDS, halving=stage.startswith("halving"),
                              local_search=stage == "halving").fit(X, y)
                emit({"set": name, "stage": stage, "complete": True, "seconds": time.perf_counter() - t,
                      "search_seconds": s.search_seconds_, "refit_seconds": s.refit_time_,
                      "best_params": s.best_params_, "cv_score": s.best_score_,
                      "test_accuracy": float(s.score(Xt, yt)),
                      "mean_test_score": [float(v) for v in s.cv_results_["mean_test_score"]],
                      "params": [dict(p) for p in s.cv_results_["params"]],
                      "n_iter": [int(v) for v in s.cv_results_["n_iter"]]})
            elif stage == "grid-test":
                seen = {(d["C"], d["gamma"]) for d in have if d["stage"] == stage and "C" in d}
                for p in points:
                    if (p["C"], p["gamma"]) in seen:
                        continue
                    wait_while(args.pause_file)
                    t = time.perf_counter()
                    model = SVC(n_jobs=1, **p).fit(X, y)
                    fit = time.perf_counter() - t
                    emit({"set": name, "stage": stage, **p, "fit_s": fit,
                          "test_accuracy": float(model.score(Xt, yt)), "n_sv": int(sum(model.n_support_))})
                emit({"set": name, "stage": stage, "complete": True})
            elif stage == "fold0":
                train, valid = next(FOLDS.split(X, y))
                Xp = for_peers(X)
                measured = [d for d in have if d["stage"] == stage and "C" in d]
                spent = sum(d["libsvm"]["fit_s"] + d["libsvm"]["score_s"] for d in measured)
                seen = {(d["C"], d["gamma"]) for d in measured}
                order = [points[k] for k in np.random.default_rng(0).permutation(len(points))]
                for p in order:
                    if spent >= args.libsvm_budget:
                        break
                    if (p["C"], p["gamma"]) in seen:
                        continue
                    wait_while(args.pause_file)
                    fw = fwsvm_point(X, y, train, valid, p)
                    lib = libsvm_point(Xp, y, train, valid, p, args.libsvm_cap)
                    spent += lib["fit_s"] + lib["score_s"]
                    emit({"set": name, "stage": stage, **p, "fwsvm": fw, "libsvm": lib})
                emit({"set": name, "stage": stage, "complete": True, "budget": args.libsvm_budget,
                      "cap": args.libsvm_cap})


def report(args) -> None:
    records = load(args.out)
    names = [n for n in SETS if any(d["set"] == n for d in records)]
    print("| data | search | seconds | vs GridSearchCV(LIBSVM): lower bound / estimate | chosen C, γ | test accuracy "
          "| best grid point's test accuracy |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        rs = [d for d in records if d["set"] == name]
        tests = [d["test_accuracy"] for d in rs if d["stage"] == "grid-test" and "C" in d]
        best = f"{max(tests):.4f}" + ("" if len(tests) == 35 else f" ({len(tests)} of 35 points)") if tests else "—"
        fold = [d for d in rs if d["stage"] == "fold0" and "C" in d]
        lib = [d["libsvm"]["fit_s"] + d["libsvm"]["score_s"] for d in fold]
        lower = 5 * sum(lib) if lib else None
        estimate = 5 * 35 * float(np.mean(lib)) if lib else None
        labels = {"exhaustive": "SVCSearch", "halving-rounds-only": "SVCSearch(halving=True)",
                  "halving": "SVCSearch(halving=True, local_search=True)"}
        for stage, label in labels.items():
            s = next((d for d in rs if d["stage"] == stage and d.get("complete")), None)
            if s is None:
                continue
            ratio = f"≥ {lower / s['seconds']:.1f}× / ≈ {estimate / s['seconds']:.1f}×" if lib else "—"
            p = s["best_params"]
            print(f"| {name} | {label} | {s['seconds']:.1f} | "
                  f"{ratio} | {p['C']:g}, {p['gamma']:.3g} | {s['test_accuracy']:.4f} | {best} |")
        if fold:
            fw = [d["fwsvm"]["fit_s"] + d["fwsvm"]["score_s"] for d in fold]
            censored = sum(d["libsvm"]["censored"] for d in fold)
            agree = [abs(d["fwsvm"]["valid_accuracy"] - d["libsvm"]["valid_accuracy"]) for d in fold
                     if not d["libsvm"]["censored"]]
            print(f"| {name} | fold 0, {len(fold)} of 35 points | LIBSVM {sum(lib):.0f} s"
                  f"{f' ({censored} stopped at the cap)' if censored else ''}, fwsvm {sum(fw):.0f} s | "
                  f"{sum(lib) / sum(fw):.1f}× on these points | validation accuracies differ by ≤ "
                  f"{max(agree) if agree else float('nan'):.4f} | | |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("sets", nargs="+", choices=sorted(SETS))
    r.add_argument("--stages", nargs="+", default=list(STAGES), choices=STAGES)
    r.add_argument("--libsvm-budget", type=float, default=2400.0, help="LIBSVM seconds per set on fold 0")
    r.add_argument("--libsvm-cap", type=float, default=900.0, help="seconds before one LIBSVM fit is stopped")
    r.add_argument("--out", default=str(Path(__file__).parent / "results" / "search_large.jsonl"))
    r.add_argument("--pause-file", default=None, help="wait between fits while this file exists")
    p = sub.add_parser("report")
    p.add_argument("--out", default=str(Path(__file__).parent / "results" / "search_large.jsonl"))
    args = parser.parse_args()
    run(args) if args.command == "run" else report(args)


if __name__ == "__main__":
    main()
