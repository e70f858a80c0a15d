"""``convergence_``: how a fit stopped, a dict with a compact repr.

A one-vs-one fit of K classes keeps, under ``"pairs"``, some twenty arrays of K(K−1)/2 entries
each; printed as a plain dict a 10-class model fills about a hundred lines. :class:`Convergence`
is the same dict (every key, value and dict operation as before, pickles as a dict subclass)
whose repr shows the scalars and a one-line summary of the pairs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np


def _short(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.3g}"
    if isinstance(value, np.ndarray):
        return f"<array of {value.size}>"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_short(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _span(values: np.ndarray, fmt: str) -> str:
    low, high = values.min(), values.max()
    return format(low, fmt) if low == high else f"{format(low, fmt)}–{format(high, fmt)}"


def _pairs_summary(pairs: dict[str, Any]) -> str:
    """``<45 pairs: converged 45; n_iter 72–201; relative_gap ≤ 1.2e-04; 0.03 s; arrays: i, j, …>``."""
    reasons = np.asarray(pairs.get("exit_reason", []))
    parts = [f"{len(reasons)} pairs: " + ", ".join(f"{r} {n}" for r, n in Counter(reasons.tolist()).items())]
    if "n_iter" in pairs and len(pairs["n_iter"]):
        parts.append(f"n_iter {_span(np.asarray(pairs['n_iter']), 'd')}")
    if "relative_gap" in pairs and len(pairs["relative_gap"]):
        parts.append(f"relative_gap ≤ {np.max(pairs['relative_gap']):.2e}")
    if "seconds" in pairs and len(pairs["seconds"]):
        parts.append(f"{np.sum(pairs['seconds']):.3g} s in all")
    parts.append("per pair: " + ", ".join(pairs))
    return "<" + "; ".join(parts) + ">"


class Convergence(dict):  # type: ignore[type-arg]
    """How a fit stopped (``exit_reason``, ``n_iter``, gaps, ``seconds``, …), as a dict; for a
    one-vs-one fit ``["pairs"]`` holds one array entry per pair of classes. Only the repr
    differs from a dict's: arrays are summarised, so a model of many classes prints in a few
    lines."""

    def __repr__(self) -> str:
        items = []
        for key, value in self.items():
            text = _pairs_summary(value) if key == "pairs" and isinstance(value, dict) else _short(value)
            items.append(f"{key}={text}")
        return "Convergence(" + ", ".join(items) + ")"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython's display
        printer.text(repr(self))
