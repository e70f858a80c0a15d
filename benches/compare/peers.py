"""fwsvm against its peers, following ../shared/docs/BENCH_PROTOCOL.md.

    python benches/compare/peers.py [--data ../shared/data] [--datasets a1a w1a ...]
        [--tools fwsvm sklearn onedal libsvm thundersvm linearsvc] [--kernel rbf|linear]
        [--threads 1 2] [--repeats 3] [--grid-budget 900] [--fit-timeout 900]
        [--write BENCHMARKS.md] [--json benches/compare/results/peers.json]

For every dataset (the shared LIBSVM files that are present, scikit-learn's bundled ``digits``
and ``breast_cancer``, and the dense suite of issue 15: mnist as one digit against the rest,
the 4×4 checkerboard of the CVM papers at 10⁵ and 10⁶ rows, and ``make_classification(
n_samples=100_000, n_features=20, n_informative=10, random_state=0)``, generated with fixed
seeds) and every tool (oneDAL is scikit-learn-intelex's ``sklearnex.svm.SVC``):

1. the RBF kernel with the protocol's γ, passed explicitly to every tool (``--kernel linear``:
   the linear kernel, and scikit-learn's ``LinearSVC`` (liblinear, squared hinge) joins the
   default tools; its "#SV" column is empty);
2. C from {2⁻³, 2⁻¹, 2¹, 2³, 2⁵, 2⁷, 2⁹} by accuracy on a fixed validation split (the last 20%
   of the training file after a shuffle with seed 0; ties → the smaller C). Each tool's grid
   runs in its own process, in ascending C, within ``--grid-budget`` seconds: C values not
   reached in time are reported as skipped. fwsvm tunes with :func:`fwsvm.svc_path` (each C
   warm-started from the previous one), the peers with independent fits;
3. the final fit on the whole training file with the chosen C, in a fresh process per tool and
   thread count: wall time (median of ``--repeats`` (3) when a fit takes under 60 s), predict
   time and accuracy on the ``.t`` file (or a seeded 30% split; the checkerboards get a
   generated test set of 20,000 rows), support vectors and peak resident memory (VmHWM of the
   process, and its growth over the process's size before the fit);
4. one thread and all cores for the tools with threads (fwsvm ``n_jobs``, ThunderSVM
   ``n_jobs``; ``--threads 1`` for one only); LIBSVM (scikit-learn and libsvm-official) is
   single-threaded, and oneDAL uses the cores the process may run on: for a one-thread table
   run the whole harness under ``taskset -c 1``.

The tables (Markdown, one per dataset) are printed and, with ``--write``, replace the section
between ``<!-- peers-tuned:begin -->`` and ``<!-- peers-tuned:end -->`` of that file
(``peers-untuned`` with ``--no-tune``, which skips the search and uses C = 1 (``--C``) for every tool:
for the largest files; ``peers-linear-tuned``/``peers-linear-untuned`` with ``--kernel linear``);
``--json`` keeps the raw results.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shlex
import queue
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import describe

GRID = tuple(2.0**k for k in (-3, -1, 1, 3, 5, 7, 9))
# (name, train file, test file or None, gamma or None for "scale")
DATASETS = [
    ("heart_scale", "heart_scale", None, None),
    ("breast-cancer_scale", "breast-cancer_scale", None, None),
    ("australian_scale", "australian_scale", None, None),
    ("diabetes_scale", "diabetes_scale", None, None),
    ("sonar_scale", "sonar_scale", None, None),
    ("svmguide1", "svmguide1", "svmguide1.t", 2.0),
    ("svmguide3", "svmguide3", "svmguide3.t", None),
    ("mushrooms", "mushrooms", None, 0.05),
    *[(f"a{k}a", f"a{k}a", f"a{k}a.t", 0.05) for k in range(1, 10)],
    *[(f"w{k}a", f"w{k}a", f"w{k}a.t", 0.05) for k in range(1, 9)],
    ("dna", "dna.scale", "dna.scale.t", 0.01),
    ("satimage", "satimage.scale", "satimage.scale.t", None),
    ("shuttle", "shuttle.scale", "shuttle.scale.t", None),
    ("vowel", "vowel.scale", "vowel.scale.t", None),
    ("vehicle", "vehicle.scale", None, None),
    ("glass", "glass.scale", None, None),
    ("mnist", "mnist.scale.bz2", "mnist.scale.t.bz2", 0.05),
    ("mnist (0 vs rest)", "mnist.scale.bz2#0", "mnist.scale.t.bz2#0", 0.05),
    ("checkerboard 100k", "gen:checkerboard:100000", None, 1.0),
    ("checkerboard 1M", "gen:checkerboard:1000000", None, 1.0),
    ("make_classification 100k", "gen:make_classification", None, None),
    ("digits (sklearn)", "sklearn:digits", None, None),
    ("breast_cancer (sklearn)", "sklearn:breast_cancer", None, None),
]
TOOLS = ("fwsvm", "fwsvm-hinge", "sklearn", "onedal", "libsvm", "thundersvm")
LINEAR_TOOLS = ("fwsvm", "sklearn", "linearsvc")
THREADED = {"fwsvm", "fwsvm-hinge", "thundersvm"}


# --------------------------------------------------------------------------- data


def generated(spec: str):
    """(X, X_test, y, y_test), dense, for ``gen:checkerboard:N`` (the 4×4 board on [0, 4)², a
    20,000-row test set from the same seeded stream) and ``gen:make_classification``."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    kind, *args = spec[4:].split(":")
    if kind == "checkerboard":
        n = int(args[0])
        X = np.random.default_rng(0).uniform(0.0, 4.0, size=(n + 20_000, 2))
        y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1.0, -1.0)
        return X[:n], X[n:], y[:n], y[n:]
    if kind == "make_classification":
        from sklearn.datasets import make_classification

        X, y = make_classification(n_samples=100_000, n_features=20, n_informative=10, random_state=0)
        return train_test_split(X, 2.0 * y - 1.0, test_size=0.3, random_state=0, stratify=y)
    raise ValueError(spec)


def one_vs_rest(name: str):
    """``file#k`` → (file, k): the file's labels become +1 for class k, −1 for the rest."""
    if "#" in name:
        file, label = name.split("#")
        return file, float(label)
    return name, None


def load_dataset(data_dir: str, train: str, test: str | None):
    """(X, y, X_test, y_test) as float64 CSR (or dense for sklearn's bundled and generated data)."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    if train.startswith("gen:"):
        return generated(train)
    train, positive = one_vs_rest(train)
    test = test and one_vs_rest(test)[0]
    if positive is not None:
        X, Xt, y, yt = load_dataset(data_dir, train, test)
        return X, Xt, np.where(y == positive, 1.0, -1.0), np.where(yt == positive, 1.0, -1.0)

    if train.startswith("sklearn:"):
        from sklearn import datasets

        loader = {"digits": datasets.load_digits, "breast_cancer": datasets.load_breast_cancer}[train[8:]]
        X, y = loader(return_X_y=True)
        X = (X - X.min(axis=0)) / np.maximum(X.max(axis=0) - X.min(axis=0), 1e-12)
        return train_test_split(X, y.astype(np.float64), test_size=0.3, random_state=0, stratify=y)
    import fwsvm

    files = [Path(data_dir) / train] + ([Path(data_dir) / test] if test else [])
    parts = fwsvm.load_svmlight_files(files)
    if test:
        X, y, Xt, yt = parts
    else:
        X, y = parts
        X, Xt, y, yt = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    return X, Xt, y, yt


def reorder(split):
    X, Xt, y, yt = split
    return X, y, Xt, yt


def validation_split(n: int):
    import numpy as np

    perm = np.random.default_rng(0).permutation(n)
    cut = int(round(0.8 * n))
    return perm[:cut], perm[cut:]


def resolve_gamma(X, gamma):
    if gamma is not None:
        return float(gamma)
    import scipy.sparse as sp

    if sp.issparse(X):
        mean = X.mean()
        var = X.multiply(X).mean() - mean**2
    else:
        var = X.var()
    return 1.0 / (X.shape[1] * var) if var > 0 else 1.0


def for_peers(X):
    """int32 CSR indices (LIBSVM wrappers reject int64) or dense as is."""
    import scipy.sparse as sp

    if sp.issparse(X):
        X = X.tocsr()
        X.indices = X.indices.astype("int32")
        X.indptr = X.indptr.astype("int32")
    return X


# --------------------------------------------------------------------------- tools


def make_fit(tool: str, gamma: float, threads: int, kernel: str = "rbf"):
    """``fit(X, y, C) → (model, n_sv)``, ``score(model, X, y) → accuracy`` and
    ``prepare(X, y)``, which does a tool's input conversion ahead of the timed fits."""
    import numpy as np

    if tool in ("fwsvm", "fwsvm-hinge"):
        import fwsvm

        # fwsvm-hinge: LIBSVM's model (hinge loss, same C scale, tol 1e-3 as LIBSVM's -e).
        loss = "hinge" if tool == "fwsvm-hinge" else "squared_hinge"

        def fit(X, y, C):
            m = fwsvm.SVC(C=C, loss=loss, kernel=kernel, gamma=gamma, n_jobs=threads, random_state=0).fit(X, y)
            return m, len(m.support_)

        return fit, lambda m, X, y: float(m.score(X, y)), _nothing
    if tool == "sklearn":
        from sklearn.svm import SVC

        def fit(X, y, C):
            m = SVC(C=C, kernel=kernel, gamma=gamma).fit(for_peers(X), y)
            return m, len(m.support_)

        return fit, lambda m, X, y: float(m.score(for_peers(X), y)), _nothing
    if tool == "onedal":
        from sklearnex.svm import SVC as OneDalSVC

        # oneDAL's dense path is its fast one (GEMM blocks of kernel rows; CSR input took 8x
        # longer on satimage): dense arrays, converted once per matrix outside the timed fit.
        dense = _converted(lambda X: np.ascontiguousarray(X.toarray() if hasattr(X, "toarray") else X))

        def fit(X, y, C):
            m = OneDalSVC(C=C, kernel=kernel, gamma=gamma).fit(dense(X), y)
            return m, len(m.support_)

        return fit, lambda m, X, y: float(m.score(dense(X), y)), lambda X, y: dense(X)
    if tool == "thundersvm":
        from thundersvm import SVC

        # thundersvm-cpu 0.3.3 predicts garbage (0 / -2³¹) for scipy sparse input: give it dense
        # arrays (converted once per matrix, outside the timed fit).
        dense = _converted(lambda X: np.ascontiguousarray(X.toarray() if hasattr(X, "toarray") else X))

        def fit(X, y, C):
            m = SVC(C=C, kernel=kernel, gamma=gamma, n_jobs=threads).fit(dense(X), y)
            return m, int(np.sum(m.n_sv)) if hasattr(m, "n_sv") else len(m.support_)

        return fit, lambda m, X, y: float(np.mean(m.predict(dense(X)) == y)), lambda X, y: dense(X)
    if tool == "libsvm":
        from libsvm import svmutil

        # libsvm-official builds its C structures in Python: do that once per matrix, outside
        # the timed fit (what svm-train's file reading is to the CLI).
        problem = _converted(lambda X: for_peers(X))
        cache: dict[int, object] = {}

        def prepare(X, y):
            if id(X) not in cache:
                cache[id(X)] = svmutil.svm_problem(y, problem(X))

        def fit(X, y, C):
            prepare(X, y)
            t = 0 if kernel == "linear" else 2
            m = svmutil.svm_train(cache[id(X)], svmutil.svm_parameter(f"-s 0 -t {t} -c {C} -g {gamma} -q"))
            return m, int(m.get_nr_sv())

        def score(m, X, y):
            pred, _, _ = svmutil.svm_predict(y, problem(X), m, "-q")
            return float(np.mean(np.asarray(pred) == y))

        return fit, score, prepare
    if tool == "linearsvc":
        from sklearn.svm import LinearSVC

        def fit(X, y, C):
            # The squared hinge with a (regularised) bias: fwsvm's loss, solved in the primal.
            return LinearSVC(C=C, loss="squared_hinge", max_iter=10_000, random_state=0).fit(X, y), None

        return fit, lambda m, X, y: float(m.score(X, y)), _nothing
    raise ValueError(tool)


def _nothing(X, y) -> None:
    return None


def _converted(convert):
    """Memoises a per-matrix conversion by object identity (matrices live for the whole run)."""
    memo: dict[int, object] = {}

    def get(X):
        key = id(X)
        if key not in memo:
            memo[key] = (X, convert(X))
        return memo[key][1]

    return get


def rss_mb() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process in MB."""
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS", "VmHWM")):
                out[line.split(":")[0]] = int(line.split()[1]) / 1024
    return out.get("VmRSS", 0.0), out.get("VmHWM", 0.0)


# --------------------------------------------------------------------------- workers


def grid_worker(args, results: mp.Queue) -> None:
    """Fits the C grid on the validation split, posting (C, accuracy, seconds) as it goes."""
    data_dir, train, test, gamma, tool, kernel = args
    X, y, _, _ = reorder(load_dataset(data_dir, train, test))
    gamma = resolve_gamma(X, gamma)
    tr, va = validation_split(X.shape[0])
    Xtr, ytr, Xva, yva = X[tr], y[tr], X[va], y[va]
    threads = os.cpu_count() or 1
    if tool == "fwsvm":
        import fwsvm

        model = fwsvm.SVC(loss="squared_hinge", kernel=kernel, gamma=gamma, n_jobs=threads, random_state=0, warm_start=True)
        for C in sorted(GRID):
            start = time.perf_counter()
            model.set_params(C=C).fit(Xtr, ytr)
            acc = float(model.score(Xva, yva))
            results.put((C, acc, time.perf_counter() - start))
        return
    fit, score, prepare = make_fit(tool, gamma, threads, kernel)
    prepare(Xtr, ytr)
    prepare(Xva, yva)
    for C in sorted(GRID):
        start = time.perf_counter()
        model, _ = fit(Xtr, ytr, C)
        acc = score(model, Xva, yva)
        results.put((C, acc, time.perf_counter() - start))


def final_worker(args, results: mp.Queue) -> None:
    """Final fits (median of ``repeats`` under 60 s): fit and predict seconds, test accuracy,
    #SV, memory."""
    data_dir, train, test, gamma, tool, C, threads, kernel, repeats = args
    X, y, Xt, yt = reorder(load_dataset(data_dir, train, test))
    gamma = resolve_gamma(X, gamma)
    fit, score, prepare = make_fit(tool, gamma, threads, kernel)
    prepare(X, y)
    base, _ = rss_mb()
    times = []
    while True:
        start = time.perf_counter()
        model, n_sv = fit(X, y, C)
        times.append(time.perf_counter() - start)
        if len(times) == repeats or times[0] >= 60:
            break
    _, peak = rss_mb()
    start = time.perf_counter()
    acc = score(model, Xt, yt)
    predict_s = time.perf_counter() - start
    results.put(dict(fit_s=statistics.median(times), predict_s=predict_s, acc=acc, n_sv=n_sv, peak_mb=peak,
                     grew_mb=peak - base))


def run(target, args, timeout: float):
    """Runs a worker in a fresh (spawned) process; returns everything it posted and whether it finished."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=(args, q))
    p.start()
    deadline = time.monotonic() + timeout
    out = []
    while True:
        try:
            out.append(q.get(timeout=max(0.1, min(1.0, deadline - time.monotonic()))))
            continue
        except queue.Empty:
            pass
        if not p.is_alive():
            while True:
                try:
                    out.append(q.get(timeout=0.5))
                except queue.Empty:
                    break
            p.join()
            return out, p.exitcode == 0
        if time.monotonic() > deadline:
            p.terminate()
            p.join()
            return out, False


# --------------------------------------------------------------------------- report


def table(name: str, rows: list[dict]) -> str:
    ref = next((r for r in rows if r["tool"] == "sklearn" and r.get("fit_s")), None)
    lines = [
        f"**{name}** (m = {rows[0]['m']:,}, "
        + ("linear kernel)" if rows[0].get("kernel") == "linear" else f"γ = {rows[0]['gamma']:.4g})"),
        "",
        "| tool | threads | C | fit s | LIBSVM time ÷ this | predict s | test acc | Δacc vs LIBSVM | #SV | tuning s | peak RSS MB (+fit) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r.get("fit_s") is None:
            lines.append(f"| {r['tool']} | {r['threads']} | {r.get('C', '—')} | {r.get('note', 'failed')} | | | | | | {r.get('tuning_s', 0):.1f} | |")
            continue
        ratio = f"{ref['fit_s'] / r['fit_s']:.2f}x" if ref else "—"
        dacc = f"{100 * (r['acc'] - ref['acc']):+.2f}" if ref else "—"
        tuning = f"{r['tuning_s']:.1f}" + ("*" if r.get("grid_incomplete") else "")
        lines.append(
            f"| {r['tool']} | {r['threads']} | {r['C']:g} | {r['fit_s']:.3f} | {ratio} | {r.get('predict_s', float('nan')):.3f} | "
            f"{r['acc']:.4f} | {dacc} | "
            f"{'—' if r['n_sv'] is None else format(r['n_sv'], ',')} | {tuning} | {r['peak_mb']:.0f} (+{r['grew_mb']:.0f}) |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    parser.add_argument("--datasets", nargs="*", help="names from the list (default: all present)")
    parser.add_argument("--tools", nargs="*", help=f"default: {' '.join(TOOLS)} (rbf), {' '.join(LINEAR_TOOLS)} (linear)")
    parser.add_argument("--kernel", choices=("rbf", "linear"), default="rbf")
    parser.add_argument("--threads", type=int, nargs="*", help="thread counts for fwsvm/ThunderSVM (default: 1 and all cores)")
    parser.add_argument("--repeats", type=int, default=3, help="final fits per tool (the median is reported)")
    parser.add_argument("--grid-budget", type=float, default=900.0, help="seconds per tool for the C search")
    parser.add_argument("--fit-timeout", type=float, default=900.0, help="seconds per final fit process")
    parser.add_argument("--no-tune", action="store_true", help="skip the C search: C = 1 (or --C) for every tool (large data)")
    parser.add_argument("--C", type=float, default=1.0, help="with --no-tune: the C of every tool (default 1)")
    parser.add_argument("--gamma", type=float, help="γ for every dataset instead of the list's (e.g. 2 for the checkerboard)")
    parser.add_argument("--write", help="Markdown file whose peers section is replaced")
    parser.add_argument("--json", help="write the raw results here")
    args = parser.parse_args()
    tools = args.tools or list(LINEAR_TOOLS if args.kernel == "linear" else TOOLS)
    all_rows: dict[str, list[dict]] = {}
    chosen = [d for d in DATASETS if not args.datasets or d[0] in args.datasets]
    for name, train, test, gamma in chosen:
        gamma = args.gamma if args.gamma is not None else gamma
        if not train.startswith(("sklearn:", "gen:")):
            missing = [f for f in (train, test) if f and not (Path(args.data) / one_vs_rest(f)[0]).exists()]
            if missing:
                print(f"{name}: {', '.join(missing)} absent in {args.data}, skipped", flush=True)
                continue
        X, y, _, _ = reorder(load_dataset(args.data, train, test))
        g = resolve_gamma(X, gamma)
        rows = []
        for tool in tools:
            if args.no_tune:
                grid, finished = [(args.C, 0.0, 0.0)], True
            else:
                grid, finished = run(grid_worker, (args.data, train, test, gamma, tool, args.kernel), args.grid_budget)
            tuning_s = sum(t for _, _, t in grid)
            if not grid:
                rows.append(dict(tool=tool, threads="-", m=X.shape[0], gamma=g, kernel=args.kernel, tuning_s=tuning_s,
                                 note="no C finished in the grid budget"))
                continue
            best = max(acc for _, acc, _ in grid)
            C = min(c for c, acc, _ in grid if acc == best)
            counts = sorted(set(args.threads or {1, os.cpu_count() or 1}))
            for threads in counts if tool in THREADED else [1]:
                final = (args.data, train, test, gamma, tool, C, threads, args.kernel, args.repeats)
                out, ok = run(final_worker, final, args.fit_timeout)
                row = dict(tool=tool, threads=threads, C=C, m=X.shape[0], gamma=g, kernel=args.kernel, tuning_s=tuning_s,
                           grid=[(c, a) for c, a, _ in grid], grid_incomplete=not finished)
                if out:
                    row.update(out[0])
                else:
                    row["note"] = "timeout" if not ok else "failed"
                rows.append(row)
                print(f"{name:24s} {tool:10s} threads {threads} C {C:g}: "
                      + (f"fit {row['fit_s']:.3f}s acc {row['acc']:.4f} SV {row['n_sv']} tuning {tuning_s:.1f}s peak {row['peak_mb']:.0f}MB"
                         if "fit_s" in row else row["note"]), flush=True)
        all_rows[name] = rows
    text = "\n\n".join(table(n, r) for n, r in all_rows.items())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    header = (
        f"Command: `python benches/compare/peers.py {shlex.join(sys.argv[1:])}` at commit {commit}, "
        f"{time.strftime('%Y-%m-%d')}. Machine: {describe()}.\n"
        "LIBSVM time ÷ this: scikit-learn SVC (LIBSVM, single-threaded) fit time divided by the row's. "
        "Tuning: the C search on the validation split (* = budget ran out, larger C values skipped). "
        "C is each tool's own scale (L1-SVM for LIBSVM/ThunderSVM, L2-SVM for fwsvm and LinearSVC).\n\n"
    )
    print(header + text)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(all_rows, indent=1, default=float))
    if args.write:
        path = Path(args.write)
        doc = path.read_text()
        section = ("linear-" if args.kernel == "linear" else "") + ("untuned" if args.no_tune else "tuned")
        begin, end = f"<!-- peers-{section}:begin -->", f"<!-- peers-{section}:end -->"
        if begin not in doc:
            doc += f"\n{begin}\n{end}\n"
        head, rest = doc.split(begin, 1)
        tail = rest.split(end, 1)[1]
        path.write_text(f"{head}{begin}\n{header}{text}\n{end}{tail}")


if __name__ == "__main__":
    main()
