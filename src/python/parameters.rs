//! Every Python estimator's parameters, written once: name, default and the values allowed.
//!
//! `fwsvm._parameters` builds each estimator's `__init__` (its signature, for scikit-learn's
//! `get_params`, `clone` and `repr`) and scikit-learn's `_parameter_constraints` from this
//! table, so a new parameter is added here and documented in the estimator's docstring
//! (`tests/test_parameters.py` checks that the docstrings' defaults agree with the table).

use pyo3::IntoPyObjectExt;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::kernel::{KERNEL_FUNCTIONS as KERNELS, KERNEL_NAMES as SVC_KERNELS};
use Rule::{Int, Options, Real, Tag, Type};
use Value::{Bool, Float, Floats, Str};

/// A parameter's default value.
#[derive(Clone, Copy)]
enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'static str),
    Floats(&'static [f64]),
}

/// One allowed kind of value: scikit-learn's constraints (`sklearn.utils._param_validation`).
#[derive(Clone, Copy)]
enum Rule {
    /// `Interval(Real, low, high, closed=...)`; `None` bounds are unbounded.
    Real(Option<f64>, Option<f64>, &'static str),
    /// `Interval(Integral, low, high, closed=...)`.
    Int(Option<i64>, Option<i64>, &'static str),
    /// `StrOptions({...})`.
    Options(&'static [&'static str]),
    /// A constraint scikit-learn names by a string: `"boolean"`, `"random_state"`,
    /// `"verbose"`, `"array-like"`, `"cv_object"`.
    Tag(&'static str),
    /// A type: `"callable"`, `"dict"`, `"str"`, `"int"` (`Integral`), `"object"`, `"none"`.
    Type(&'static str),
}

/// One parameter of an estimator's `__init__`.
#[derive(Clone, Copy)]
struct Param {
    name: &'static str,
    default: Value,
    /// The values allowed (empty: the estimator checks the parameter itself).
    rules: &'static [Rule],
    /// Positional as well as keyword (the leading parameters of a few estimators).
    positional: bool,
}

const fn p(name: &'static str, default: Value, rules: &'static [Rule]) -> Param {
    Param {
        name,
        default,
        rules,
        positional: false,
    }
}

const fn positional(param: Param) -> Param {
    Param {
        positional: true,
        ..param
    }
}

const NONE: Rule = Type("none");
const POSITIVE: Rule = Real(Some(0.0), None, "neither");
const AT_LEAST_ONE: Rule = Int(Some(1), None, "left");
const BOOLEAN: &[Rule] = &[Tag("boolean")];
/// The algorithms of the single-simplex problems (one-class, regression): `ky` solves the
/// two-class nearest-point problem only.
const SIMPLEX_ALGORITHMS: &[&str] = &["fw", "mfw", "swap", "swap2o", "bc"];

/// The C grid of `SVCCV` and `SVCSearch`: 2^-3, 2^-1, …, 2^9.
pub(crate) const DEFAULT_CS: &[f64] = &[0.125, 0.5, 2.0, 8.0, 32.0, 128.0, 512.0];

// Parameters shared by several estimators.
const C: Param = p("C", Float(1.0), &[POSITIVE]);
const C_OR_NONE: Param = p("C", Value::None, &[POSITIVE, NONE]);
const SVC_KERNEL: Param = p(
    "kernel",
    Str("rbf"),
    &[Options(SVC_KERNELS), Type("callable")],
);
const NAMED_KERNEL: Param = p("kernel", Str("rbf"), &[Options(KERNELS)]);
const GAMMA: Param = p(
    "gamma",
    Str("scale"),
    &[Options(&["scale", "auto"]), POSITIVE],
);
const DEGREE: Param = p("degree", Value::Int(3), &[Int(Some(0), None, "left")]);
const COEF0: Param = p("coef0", Float(0.0), &[Real(None, None, "neither")]);
const NU: Param = p("nu", Float(0.5), &[Real(Some(0.0), Some(1.0), "right")]);
const PROBABILITY: Param = p("probability", Bool(false), BOOLEAN);
const TOL_OR_NONE: Param = p("tol", Value::None, &[POSITIVE, NONE]);
const TOL_3: Param = p("tol", Float(1e-3), &[POSITIVE]);
const TOL_2: Param = p("tol", Float(1e-2), &[POSITIVE]);
const STOPPING: Param = p(
    "stopping",
    Str("gap"),
    &[Options(&["gap", "absolute_gap", "meb"])],
);
const MAX_ITER: Param = p("max_iter", Value::Int(-1), &[Int(Some(-1), None, "left")]);
const CACHE_SIZE: Param = p("cache_size", Value::Int(200), &[POSITIVE]);
const SIMPLEX_INIT: Param = p("init", Str("random"), &[Options(&["random", "farthest"])]);
const SIMPLEX_ALGORITHM: Param = p("algorithm", Str("swap"), &[Options(SIMPLEX_ALGORITHMS)]);
const SAMPLE_SIZE: Param = p("sample_size", Value::None, &[AT_LEAST_ONE, NONE]);
const CLASS_WEIGHT: Param = p(
    "class_weight",
    Value::None,
    &[Type("dict"), Options(&["balanced"]), NONE],
);
const DECISION_SHAPE: Param = p(
    "decision_function_shape",
    Str("ovr"),
    &[Options(&["ovr", "ovo"])],
);
const BREAK_TIES: Param = p("break_ties", Bool(false), BOOLEAN);
const RANDOM_STATE: Param = p("random_state", Value::None, &[Tag("random_state")]);
/// scikit-learn's `n_jobs`: -1 all cores, -2 all but one, …; 0 is no thread count.
const N_JOBS: Param = p(
    "n_jobs",
    Value::None,
    &[Int(None, Some(-1), "right"), AT_LEAST_ONE, NONE],
);
const VERBOSE: Param = p("verbose", Bool(false), &[Tag("verbose")]);
const RECORD_HISTORY: Param = p("record_history", Bool(false), BOOLEAN);
const WARM_START: Param = p("warm_start", Bool(false), BOOLEAN);
const N_COMPONENTS: Param = p("n_components", Value::Int(100), &[AT_LEAST_ONE]);
const LANDMARKS: Param = p(
    "landmarks",
    Str("uniform"),
    &[Options(&["uniform", "coreset"])],
);
const CORESET_SAMPLE: Param = p("coreset_sample", Value::None, &[AT_LEAST_ONE, NONE]);
const CLIENT: Param = p("client", Value::None, &[Type("object"), NONE]);
// The search's settings: the template estimator's constraint (an `SVC` class) is Python's.
const ESTIMATOR: Param = positional(p("estimator", Value::None, &[]));
const CV: Param = p(
    "cv",
    Value::Int(5),
    &[Int(Some(2), None, "left"), Tag("cv_object")],
);
#[rustfmt::skip]
const SEARCH: &[Param] = &[
    p("Cs", Value::None, &[Tag("array-like"), NONE]),
    p("gammas", Value::None, &[Tag("array-like"), NONE]),
    CV,
    p("scoring", Value::None, &[Type("str"), Type("callable"), NONE]),
    p("refit", Bool(true), BOOLEAN),
    N_JOBS,
    p("halving", Bool(false), BOOLEAN),
    p("factor", Value::Int(3), &[Real(Some(1.0), None, "neither")]),
    p("min_resources", Value::Int(500), &[AT_LEAST_ONE]),
    p("warm_start", Str("auto"), &[Tag("boolean"), Options(&["auto"])]),
    p("local_search", Bool(false), BOOLEAN),
];
// The distributed Frank-Wolfe fits check their own parameters (`_check_params`).
const DISTRIBUTED: &[Param] = &[
    p("kernel", Str("rbf"), &[]),
    p("gamma", Str("scale"), &[]),
    p("degree", Value::Int(3), &[]),
    p("coef0", Float(0.0), &[]),
];
const DISTRIBUTED_SOLVE: &[Param] = &[
    p("stopping", Str("gap"), &[]),
    p("max_iter", Value::Int(-1), &[]),
    p("block", Value::None, &[]),
    p("n_candidates", Value::Int(256), &[]),
    p("init", Str("local"), &[]),
    p("client", Value::None, &[]),
    p("n_shards", Value::None, &[]),
    p("cache_size", Float(1000.0), &[]),
    p("retries", Value::Int(1), &[]),
];

/// Each estimator's parameters, as parts joined in order (a signature's order).
#[rustfmt::skip]
const ESTIMATORS: &[(&str, &[&[Param]])] = &[
    ("SVC", &[
        &[C, p("loss", Str("hinge"), &[Options(&["squared_hinge", "hinge"])])],
        &[SVC_KERNEL, GAMMA, DEGREE, COEF0, PROBABILITY],
        &[p("algorithm", Str("swap"), &[Options(&["fw", "mfw", "swap", "swap2o", "bc", "ky", "dcd"])])],
        &[TOL_OR_NONE, STOPPING, MAX_ITER, CACHE_SIZE],
        &[p("init", Str("random"), &[Options(&["random", "farthest", "closest_pair"])])],
        &[SAMPLE_SIZE, CLASS_WEIGHT, DECISION_SHAPE, BREAK_TIES, RANDOM_STATE, N_JOBS, VERBOSE],
        &[RECORD_HISTORY, WARM_START],
    ]),
    ("NuSVC", &[
        &[NU, SVC_KERNEL, GAMMA, DEGREE, COEF0, PROBABILITY, TOL_OR_NONE, MAX_ITER, CACHE_SIZE],
        &[CLASS_WEIGHT, DECISION_SHAPE, BREAK_TIES, RANDOM_STATE, N_JOBS, VERBOSE, RECORD_HISTORY],
    ]),
    ("SVR", &[
        &[C, p("epsilon", Float(0.1), &[Real(Some(0.0), None, "left")])],
        &[p("loss", Str("epsilon_insensitive"),
            &[Options(&["epsilon_insensitive", "squared_epsilon_insensitive"])])],
        &[p("nu", Str("auto"), &[POSITIVE, Options(&["auto"])])],
        &[SVC_KERNEL, GAMMA, DEGREE, COEF0, SIMPLEX_ALGORITHM, TOL_3, STOPPING, MAX_ITER, CACHE_SIZE],
        &[SIMPLEX_INIT, SAMPLE_SIZE, RANDOM_STATE, N_JOBS, VERBOSE, RECORD_HISTORY, WARM_START],
    ]),
    ("NuSVR", &[
        &[NU, C, SVC_KERNEL, GAMMA, DEGREE, COEF0, TOL_3, MAX_ITER, CACHE_SIZE, RANDOM_STATE],
        &[N_JOBS, VERBOSE, RECORD_HISTORY],
    ]),
    ("OneClassSVM", &[
        &[NU, p("loss", Str("hinge"), &[Options(&["hinge", "squared_hinge"])])],
        &[C_OR_NONE, SVC_KERNEL, GAMMA, DEGREE, COEF0, SIMPLEX_ALGORITHM, TOL_3, STOPPING, MAX_ITER],
        &[CACHE_SIZE, SIMPLEX_INIT, SAMPLE_SIZE, RANDOM_STATE, N_JOBS, VERBOSE, RECORD_HISTORY],
    ]),
    ("CrammerSingerSVC", &[
        &[positional(C), p("kernel", Str("rbf"), &[Options(&["linear", "poly", "rbf", "sigmoid"])])],
        &[GAMMA, DEGREE, COEF0, TOL_2, MAX_ITER, CACHE_SIZE, RANDOM_STATE, N_JOBS, VERBOSE],
    ]),
    ("SGDSVC", &[
        &[C, p("loss", Str("hinge"), &[Options(&["hinge", "squared_hinge"])])],
        &[p("batch_size", Value::Int(32), &[AT_LEAST_ONE])],
        &[p("max_epochs", Value::Int(50), &[AT_LEAST_ONE])],
        &[p("learning_rate", Str("inverse"), &[Options(&["inverse", "exponential", "step"])])],
        &[p("eta0", Str("auto"), &[Options(&["auto"]), POSITIVE])],
        &[p("decay", Value::None, &[Real(Some(0.0), None, "left"), NONE])],
        &[p("step_every", Value::Int(5), &[AT_LEAST_ONE])],
        &[p("step_factor", Float(0.5), &[Real(Some(0.0), Some(1.0), "neither")])],
        &[p("average", Bool(true), BOOLEAN)],
        &[p("tol", Float(1e-3), &[Real(Some(0.0), None, "left")])],
        &[p("n_iter_no_change", Value::Int(3), &[AT_LEAST_ONE])],
        &[p("fit_intercept", Bool(true), BOOLEAN), CLASS_WEIGHT, RANDOM_STATE, N_JOBS],
        &[p("verbose", Value::Int(0), &[Tag("verbose")])],
    ]),
    ("Nystroem", &[
        &[NAMED_KERNEL, GAMMA, DEGREE, COEF0, N_COMPONENTS, LANDMARKS, C, CORESET_SAMPLE],
        &[RANDOM_STATE, N_JOBS],
    ]),
    ("RandomFourierFeatures", &[
        &[p("kernel", Str("rbf"), &[Options(&["rbf", "laplacian"])]), GAMMA, N_COMPONENTS, RANDOM_STATE],
    ]),
    ("SVCSearch", &[&[ESTIMATOR], SEARCH]),
    ("DaskSVCSearch", &[&[ESTIMATOR, CLIENT], SEARCH]),
    ("SVCCV", &[&[
        ESTIMATOR,
        p("Cs", Floats(DEFAULT_CS), &[Tag("array-like")]),
        CV,
        p("refit", Bool(true), BOOLEAN),
    ]]),
    ("DistributedSVC", &[&[p("C", Float(1.0), &[])], DISTRIBUTED, &[p("tol", Float(1e-2), &[])], DISTRIBUTED_SOLVE]),
    ("DistributedOneClassSVM", &[
        &[p("nu", Float(0.1), &[]), p("C", Value::None, &[])],
        DISTRIBUTED,
        &[p("tol", Float(1e-3), &[])],
        DISTRIBUTED_SOLVE,
    ]),
    ("DaskApproxSVC", &[
        &[C, NAMED_KERNEL, GAMMA, DEGREE, COEF0],
        &[p("n_components", Value::Int(300), &[AT_LEAST_ONE])],
        &[p("landmarks", Str("coreset"), &[Options(&["uniform", "coreset"])])],
        &[p("coreset_C", Float(1.0), &[POSITIVE]), CORESET_SAMPLE, CLASS_WEIGHT],
        &[p("rank", Value::None, &[AT_LEAST_ONE, NONE])],
        &[p("map_dtype", Str("float32"), &[Options(&["float16", "float32", "float64"])])],
        &[p("tol", Float(1e-2), &[POSITIVE])],
        &[p("max_rounds", Value::Int(500), &[AT_LEAST_ONE])],
        &[p("local_passes", Value::Int(1), &[AT_LEAST_ONE])],
        &[p("aggregation", Str("auto"), &[Options(&["auto", "line_search", "add"])])],
        &[p("solver", Str("auto"), &[Options(&["auto", "cocoa", "newton"])])],
        &[p("n_shards", Value::None, &[AT_LEAST_ONE, NONE]), CLIENT, RANDOM_STATE],
        &[p("verbose", Value::Int(0), &[Type("int")])],
        &[p("retries", Value::Int(2), &[Int(Some(0), None, "left")])],
    ]),
];

fn value<'py>(py: Python<'py>, value: Value) -> PyResult<Bound<'py, PyAny>> {
    match value {
        Value::None => Ok(py.None().into_bound(py)),
        Bool(b) => b.into_bound_py_any(py),
        Value::Int(i) => i.into_bound_py_any(py),
        Float(x) => x.into_bound_py_any(py),
        Str(s) => s.into_bound_py_any(py),
        Floats(xs) => Ok(PyTuple::new(py, xs)?.into_any()),
    }
}

fn rule<'py>(py: Python<'py>, rule: Rule) -> PyResult<Bound<'py, PyAny>> {
    match rule {
        Real(low, high, closed) => ("interval", "real", low, high, closed).into_bound_py_any(py),
        Int(low, high, closed) => ("interval", "int", low, high, closed).into_bound_py_any(py),
        Options(options) => ("options", options.to_vec()).into_bound_py_any(py),
        Tag(tag) => ("tag", tag).into_bound_py_any(py),
        Type(name) => ("type", name).into_bound_py_any(py),
    }
}

/// The parameters of the estimator `name`: a list of `(name, default, positional, rules)`,
/// each rule a tuple — `("interval", "real" | "int", low, high, closed)`,
/// `("options", [str, ...])`, `("tag", str)` or `("type", str)`.
#[pyfunction]
pub(crate) fn estimator_parameters<'py>(
    py: Python<'py>,
    name: &str,
) -> PyResult<Bound<'py, PyList>> {
    let (_, parts) = ESTIMATORS
        .iter()
        .find(|(estimator, _)| *estimator == name)
        .ok_or_else(|| PyKeyError::new_err(format!("no parameter table for estimator {name:?}")))?;
    let list = PyList::empty(py);
    for param in parts.iter().flat_map(|part| part.iter()) {
        let rules = param
            .rules
            .iter()
            .map(|&r| rule(py, r))
            .collect::<PyResult<Vec<_>>>()?;
        list.append((
            param.name,
            value(py, param.default)?,
            param.positional,
            rules,
        ))?;
    }
    Ok(list)
}
