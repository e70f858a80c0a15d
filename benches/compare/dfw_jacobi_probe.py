"""A probe for issue 19 (BENCHMARKS.md, "Distributed Frank-Wolfe on Dask"): block-Jacobi rounds on
the support problem — p blocks of the working set each solved against the others' fixed
contribution, the 2p old and new block vectors recombined optimally (a 2p-dimensional simplex
QP) — counting rounds to a relative gap of 1e-2 from the local start, in one process (NumPy,
the whole Q of the working set).

    python3 benches/compare/dfw_jacobi_probe.py 6000 2 4 8
"""
import sys, time, numpy as np
from fwsvm import _core
n = int(sys.argv[1]); P = [int(a) for a in sys.argv[2:]] or [2, 4, 8, 16]
rng = np.random.default_rng(0)
X = rng.uniform(0, 4, (n, 2)); y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1.0, -1.0)
kw = dict(kernel="rbf", gamma=1.0, degree=3, coef0=0.0); C = 1.0
ref = _core.fit_svc(X, y, c=C, algorithm="swap", tol=1e-6, stopping="gap", max_iter=-1, cache_size=200.0,
                    init="random", seed=0, n_threads=1, loss="squared_hinge", **kw)
rho_star = ref["quadratic"]
def Qmat(idx):
    K = _core.kernel_values(X[idx], X[idx], n_threads=1, **kw)
    return (y[idx][:, None] * y[idx][None, :]) * (K + 1.0) + np.eye(len(idx)) / C
def simplex_qp(Q, c, mass, x0, steps=3000, tol=1e-9):
    """min xᵀQx + 2cᵀx on {x ≥ 0, Σx = mass}: pairwise FW with exact line search."""
    x = x0.copy(); g = Q @ x + c
    for _ in range(steps):
        i = int(np.argmin(g)); act = np.flatnonzero(x > 0); j = act[np.argmax(g[act])]
        if g[j] - g[i] <= tol * max(abs(g).max(), 1e-300): break
        d2 = Q[i, i] + Q[j, j] - 2 * Q[i, j]; lam = min((g[j] - g[i]) / max(d2, 1e-300), x[j])
        x[i] += lam; x[j] -= lam; g += lam * (Q[:, i] - Q[:, j])
    return x
for p in P:
    # local start: p shards of rows, loose local solves, the union
    shards = np.array_split(rng.permutation(n), p)
    W, A = [], []
    for s in shards:
        r = _core.fit_svc(X[s], y[s], c=C, algorithm="swap", tol=0.3, stopping="gap", max_iter=-1, cache_size=200.0,
                          init="random", seed=0, n_threads=1, loss="squared_hinge", **kw)
        W.append(s[r["support"]]); A.append(r["alpha"] * len(s) / n)
    owner = np.concatenate([np.full(len(w), k) for k, w in enumerate(W)])
    W = np.concatenate(W); a = np.concatenate(A); a /= a.sum()
    Q = Qmat(W)
    def global_gap(a):
        s = _core.decision_function(X, X[W], a * y[W], float(np.sum(a * y[W])), n_threads=1, **kw)
        G = y * s; G[W] += a / C; rho = float(a @ G[W]); return 2 * (rho - G.min()) / rho, rho
    rel, rho = global_gap(a)
    print(f"p={p}: |W|={len(W)} start rel gap {rel:.3f} (rho/rho* {rho/rho_star:.4f})", flush=True)
    for rnd in range(1, 41):
        G = Q @ a
        blocks = []
        for k in range(p):
            b = owner == k; mass = a[b].sum()
            if mass <= 0: blocks.append(None); continue
            c = G[b] - Q[np.ix_(b, b)] @ a[b]
            blocks.append(simplex_qp(Q[np.ix_(b, b)], c, mass, a[b]))
        # the 2p vectors: old and new block parts, normalised; the best simplex combination
        V = []
        for k in range(p):
            b = owner == k
            if blocks[k] is None: continue
            for part in (a[b], blocks[k]):
                v = np.zeros(len(W)); v[b] = part / part.sum(); V.append(v)
        V = np.array(V); M = V @ Q @ V.T
        w0 = np.array([vv @ a for vv in V]) * 0 + 1.0 / len(V)
        w = simplex_qp(M, np.zeros(len(V)), 1.0, w0, steps=20000, tol=1e-12)
        a = w @ V
        rel, rho = global_gap(a)
        if rnd <= 5 or rnd % 5 == 0 or rel <= 1e-2:
            print(f"  round {rnd}: rel gap {rel:.4f} rho/rho* {rho/rho_star:.5f}", flush=True)
        if rel <= 1e-2: break
