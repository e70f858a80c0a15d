"""The estimators' parameters come from one Rust table (``_core.estimator_parameters``): their
signatures, scikit-learn's constraints, and the defaults their docstrings state."""

import ast
import inspect
import pickle
import re

import pytest
from sklearn.base import clone
from sklearn.utils._param_validation import InvalidParameterError

import fwsvm
from fwsvm import _core

ESTIMATORS = [fwsvm.SVC, fwsvm.NuSVC, fwsvm.SVR, fwsvm.NuSVR, fwsvm.OneClassSVM, fwsvm.CrammerSingerSVC,
              fwsvm.SGDSVC, fwsvm.Nystroem, fwsvm.RandomFourierFeatures, fwsvm.SVCSearch, fwsvm.SVCCV]


def _dask_estimators():
    pytest.importorskip("distributed")
    from fwsvm.dask import DaskSVCSearch, DistributedOneClassSVM, DistributedSVC
    from fwsvm.dask_approx import DaskApproxSVC
    return [DaskSVCSearch, DistributedSVC, DistributedOneClassSVM, DaskApproxSVC]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_docstring_defaults_are_the_tables(cls):
    """Each ``name : type, default=value`` line of the docstring states the table's default."""
    signature = inspect.signature(cls)
    checked = 0
    for name, text in re.findall(r"^(\w+) : [^\n]*default=(.+)$", inspect.getdoc(cls), re.M):
        assert name in signature.parameters, f"{cls.__name__}'s docstring documents {name}, not a parameter"
        try:
            documented = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            continue  # e.g. SVCCV's Cs, written as powers of two
        default = signature.parameters[name].default
        assert documented == default and isinstance(documented, bool) == isinstance(default, bool), \
            f"{cls.__name__}.{name}: docstring default={text.strip()}, table {default!r}"
        checked += 1
    assert checked >= 1


def test_dask_estimators_take_their_table():
    for cls in _dask_estimators():
        names = [p[0] for p in _core.estimator_parameters(cls.__name__)]
        assert list(inspect.signature(cls).parameters) == names
        assert clone(cls()).get_params() == cls().get_params()


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_init_stores_the_parameters_and_clones(cls):
    est = cls()
    params = est.get_params()
    assert sorted(params) == sorted(p[0] for p in _core.estimator_parameters(cls.__name__))
    assert all(getattr(est, name) is value for name, value in params.items())
    assert clone(est).get_params() == params
    assert pickle.loads(pickle.dumps(est)).get_params() == params
    assert repr(est) == f"{cls.__name__}()"


def test_unknown_or_repeated_arguments_name_the_estimator():
    with pytest.raises(TypeError, match=r"SVC\(\) got an unexpected keyword argument 'Cc'"):
        fwsvm.SVC(Cc=1.0)
    with pytest.raises(TypeError, match="SVC"):
        fwsvm.SVC(1.0)  # keyword-only, as scikit-learn's
    with pytest.raises(TypeError, match="multiple values"):
        fwsvm.CrammerSingerSVC(2.0, C=3.0)
    assert fwsvm.CrammerSingerSVC(2.0).C == 2.0  # its C is positional too
    assert fwsvm.SVCSearch(fwsvm.SVC(C=3)).estimator.C == 3


def test_constraints_come_from_the_table():
    constraints = fwsvm.SVC._parameter_constraints
    assert set(constraints) == set(inspect.signature(fwsvm.SVC).parameters)
    with pytest.raises(InvalidParameterError, match="'C' parameter of SVC must be a float in the range"):
        fwsvm.SVC(C=0.0).fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(InvalidParameterError, match="'max_iter' parameter"):
        fwsvm.SVC(max_iter=-2).fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(InvalidParameterError, match="'tol' parameter of SVR"):
        fwsvm.SVR(tol=None).fit([[0.0], [1.0]], [0.0, 1.0])
    assert fwsvm.SVCSearch._parameter_constraints["estimator"] == [fwsvm.SVC, None]


def test_unknown_table_is_a_key_error():
    with pytest.raises(KeyError, match='no parameter table for estimator "Nope"'):
        _core.estimator_parameters("Nope")
