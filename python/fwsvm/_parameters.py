"""The estimators' parameters, written once in Rust (``_core.estimator_parameters``): the
:func:`parameters` class decorator gives an estimator its ``__init__`` (which only stores the
parameters, as scikit-learn's do; its signature is what ``get_params``, ``clone`` and ``repr``
read) and scikit-learn's ``_parameter_constraints``."""

from __future__ import annotations

import inspect
from numbers import Integral, Real
from typing import Any, Callable, TypeVar

from sklearn.utils._param_validation import Interval, StrOptions

from fwsvm import _core

_T = TypeVar("_T", bound=type)
_TYPES = {"callable": callable, "dict": dict, "str": str, "int": Integral, "object": object, "none": None}


def _constraint(rule: tuple[Any, ...]) -> Any:
    """scikit-learn's constraint for a rule of the table (see ``_core.estimator_parameters``)."""
    kind, *args = rule
    if kind == "interval":
        number, low, high, closed = args
        return Interval(Real if number == "real" else Integral, low, high, closed=closed)
    if kind == "options":
        return StrOptions(set(args[0]))
    return args[0] if kind == "tag" else _TYPES[args[0]]


def parameters(**constraints: list[Any]) -> Callable[[_T], _T]:
    """Give the decorated estimator class the ``__init__`` and ``_parameter_constraints`` of its
    parameters in the Rust table (found by the class's name); ``constraints``: entries Rust
    cannot state (e.g. ``estimator=[SVC, None]``)."""

    def apply(cls: _T) -> _T:
        table = _core.estimator_parameters(cls.__name__)
        kinds = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        signature = inspect.Signature(
            [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + [inspect.Parameter(name, kinds[positional], default=default) for name, default, positional, _ in table]
        )
        defaults = {name: default for name, default, _, _ in table}

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            if args or not kwargs.keys() <= defaults.keys():  # positional or unknown: Python's checks
                try:
                    kwargs = signature.bind(self, *args, **kwargs).arguments
                except TypeError as error:
                    raise TypeError(f"{type(self).__name__}() {error}") from None
            for name, default in defaults.items():
                setattr(self, name, kwargs.get(name, default))

        __init__.__signature__ = signature  # type: ignore[attr-defined]
        __init__.__qualname__ = f"{cls.__qualname__}.__init__"
        __init__.__module__ = cls.__module__
        cls.__init__ = __init__  # type: ignore[misc]
        rules = {name: [_constraint(rule) for rule in rules] for name, _, _, rules in table if rules}
        cls._parameter_constraints = {**rules, **constraints}  # type: ignore[attr-defined]
        return cls

    return apply
