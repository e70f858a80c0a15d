"""``convergence_``'s compact repr (fwsvm._convergence.Convergence): a dict whose repr
summarises the per-pair arrays of a one-vs-one fit."""

from __future__ import annotations

import pickle

from sklearn.datasets import load_digits

from fwsvm import SVC
from fwsvm._convergence import Convergence


def test_a_ten_class_models_convergence_prints_in_one_line() -> None:
    X, y = load_digits(return_X_y=True)
    raw = SVC().fit(X, y).convergence_
    c = Convergence(raw)
    text = repr(c)
    assert "\n" not in text and len(text) < 600, text
    assert "45 pairs: converged 45" in text and "n_iter " in text and "per pair: i, j, exit_reason" in text
    assert c == raw and c["pairs"] is raw["pairs"]  # the same dict, only the repr differs


def test_a_binary_models_convergence_shows_every_field() -> None:
    X, y = load_digits(return_X_y=True)
    c = Convergence(SVC().fit(X[y < 2], y[y < 2]).convergence_)
    text = repr(c)
    for key in c:
        assert f"{key}=" in text
    assert pickle.loads(pickle.dumps(c)) == c
