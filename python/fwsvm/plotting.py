"""Convergence plots of fitted estimators (matplotlib is an optional dependency)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

_HISTORY_KEYS = ("iteration", "objective", "gap", "coreset_size", "seconds")


def _history_of(model: Any, pair: int) -> dict[str, np.ndarray]:
    """The history dict of an estimator fitted with ``record_history=True`` (or a history dict)."""
    if isinstance(model, Mapping) and "gap" in model:
        history: Any = model
    else:
        history = getattr(model, "history_", None)
        if history is None:
            name = type(model).__name__
            raise ValueError(
                f"this {name} has no convergence history: fit it with record_history=True"
            )
        if isinstance(history, list):
            if not 0 <= pair < len(history):
                raise ValueError(f"pair={pair} is out of range: the model has {len(history)} pairs")
            history = history[pair]
    missing = [k for k in _HISTORY_KEYS if k not in history]
    if missing:
        raise ValueError(f"the history lacks {missing}")
    return {k: np.asarray(history[k], dtype=np.float64) for k in _HISTORY_KEYS}


def _default_label(model: Any, index: int) -> str:
    algorithm = getattr(model, "algorithm", None)
    return str(algorithm) if algorithm is not None else f"model {index}"


def plot_convergence(
    models: Any,
    *,
    labels: list[str] | None = None,
    relative: bool = True,
    pair: int = 0,
    axes: Any = None,
    title: str | None = None,
) -> Any:
    """Plot the duality gap against iterations and against time, one line per model.

    Parameters
    ----------
    models : estimator, history dict, list of them, or dict ``{label: model}``
        Estimators fitted with ``record_history=True`` (``SVC``, ``OneClassSVM``, ``SVR``), or
        their ``history_`` dicts.
    labels : list of str, default=None
        Legend entries; defaults to the dict keys or each model's ``algorithm``.
    relative : bool, default=True
        Plot the gap relative to ``|objective|`` (what ``stopping="gap"`` tests) instead of
        the absolute gap.
    pair : int, default=0
        For multiclass ``SVC`` models, which one-vs-one pair to plot.
    axes : pair of matplotlib Axes, default=None
        Where to draw (gap vs iterations, gap vs seconds); a new figure when ``None``.
    title : str, default=None
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "plot_convergence needs matplotlib: pip install matplotlib (or fwsvm[plot])"
        ) from exc
    if isinstance(models, Mapping) and "gap" not in models:
        names, items = list(models.keys()), list(models.values())
    elif isinstance(models, (list, tuple)):
        names, items = None, list(models)
    else:
        names, items = None, [models]
    if not items:
        raise ValueError("no models to plot")
    if labels is None:
        labels = [str(n) for n in names] if names is not None else [
            _default_label(m, k) for k, m in enumerate(items)
        ]
    if len(labels) != len(items):
        raise ValueError(f"{len(labels)} labels for {len(items)} models")
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    else:
        fig = axes[0].figure
    ax_iter, ax_time = axes
    for label, model in zip(labels, items):
        h = _history_of(model, pair)
        gap = h["gap"] / np.maximum(np.abs(h["objective"]), 1e-300) if relative else h["gap"]
        gap = np.where(gap > 0, gap, np.nan)  # log scale: hide exact zeros
        ax_iter.plot(h["iteration"] + 1, gap, label=label, linewidth=1.2)
        ax_time.plot(h["seconds"], gap, label=label, linewidth=1.2)
    what = "relative duality gap" if relative else "duality gap"
    for ax, xlabel in ((ax_iter, "iteration"), (ax_time, "seconds")):
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(what)
        ax.grid(True, which="major", alpha=0.3)
    # Both on log axes (as paper 002's figures): runs that differ by orders of magnitude fit.
    ax_iter.set_xscale("log")
    ax_time.set_xscale("log")
    ax_iter.legend(fontsize="small")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
