//! One-vs-one multiclass training and prediction (LIBSVM's scheme).
//!
//! For K classes, K(K−1)/2 binary L2-SVCs, one per pair (i, j) with i < j, each on the rows of
//! its two classes with +1 for class i. Pairs are solved in parallel (largest first, so the
//! long ones start early) inside the fit's thread pool; each pair's own kernel loops share that
//! pool through rayon's work stealing, so nothing is oversubscribed. Every pair is solved
//! exactly as it would be alone, so the model does not depend on the thread count.

use std::sync::Mutex;

use crate::data::Features;
use crate::error::{FwsvmError, Result, try_filled};
use crate::kernel::{Kernel, KernelMatrix, QueryScratch};
use crate::parallel::{for_each_chunk, with_threads};
use crate::params::SvcValidParams;
use crate::solver::{HistoryEntry, Monitor, Progress, SolverStats, Task};

/// One solved pair: decision f(x) = Σ coef_s k(x_s, x) + intercept, class `i` where f ≥ 0.
#[derive(Clone, Debug)]
pub struct PairFit {
    /// Index of the first class (the +1 side).
    pub i: usize,
    /// Index of the second class.
    pub j: usize,
    /// Training row indices of the support vectors (class i first).
    pub support: Vec<usize>,
    /// Coefficients y_s α_s / ρ, aligned with `support`.
    pub coef: Vec<f64>,
    /// Bias.
    pub intercept: f64,
    /// How the pair's solver ran.
    pub stats: SolverStats,
    /// The pair's per-step history (empty unless requested).
    pub history: Vec<HistoryEntry>,
}

/// A one-vs-one fit: the sorted classes and the pairs in LIBSVM's order
/// (0,1), (0,2), …, (0,K−1), (1,2), ….
#[derive(Clone, Debug)]
pub struct OvoFit {
    /// The class labels, ascending.
    pub classes: Vec<f64>,
    /// The pairs.
    pub pairs: Vec<PairFit>,
}

/// Forwards progress from parallel pairs to one monitor, marked with the pair's task.
struct SharedMonitor<'a, 'm> {
    shared: &'a Mutex<&'m mut (dyn Monitor + Send)>,
    task: &'a Task,
}

impl SharedMonitor<'_, '_> {
    fn with<R>(&self, f: impl FnOnce(&mut (dyn Monitor + Send)) -> R) -> Result<R> {
        match self.shared.lock() {
            Ok(mut m) => Ok(f(&mut **m)),
            Err(_) => Err(FwsvmError::Interrupted),
        }
    }
}

impl Monitor for SharedMonitor<'_, '_> {
    fn progress(&mut self, progress: &Progress) -> Result<()> {
        let tagged = Progress {
            task: Some(self.task.index),
            ..*progress
        };
        self.with(|m| m.progress(&tagged))?
    }
    fn step(&mut self, _alpha: &[f64], _entry: &HistoryEntry) {}
    fn log(&mut self, line: &str) {
        let _ = self.with(|m| m.task_log(self.task, line));
    }
}

impl SvcValidParams {
    /// Trains one-vs-one on labels `y` (two or more classes), with optional per-sample
    /// weights (penalty C·w_i; zero-weight samples are left out).
    ///
    /// # Errors
    /// As [`SvcValidParams::fit_weighted`], except that more than two classes are allowed.
    pub fn fit_ovo(
        &self,
        x: Features<'_>,
        y: &[f64],
        sample_weight: Option<&[f64]>,
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<OvoFit> {
        let m = x.n_rows();
        if m == 0 {
            return Err(FwsvmError::InvalidInput("X has no rows (0 samples)".into()));
        }
        if y.len() != m {
            return Err(FwsvmError::InvalidInput(format!(
                "X has {m} rows but y has {} labels",
                y.len()
            )));
        }
        if let Some(w) = sample_weight {
            if w.len() != m {
                return Err(FwsvmError::InvalidInput(format!(
                    "sample_weight has {} entries but X has {m} rows",
                    w.len()
                )));
            }
            if let Some(row) = w.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
                return Err(FwsvmError::InvalidInput(format!(
                    "sample_weight must be finite and non-negative, got {} at row {row}",
                    w[row]
                )));
            }
        }
        x.check_finite("X")?;
        if let Some(row) = y.iter().position(|v| !v.is_finite()) {
            return Err(FwsvmError::NonFinite { what: "y", row });
        }
        let kept = |i: usize| sample_weight.is_none_or(|w| w[i] > 0.0);
        let mut classes: Vec<f64> = (0..m).filter(|&i| kept(i)).map(|i| y[i]).collect();
        classes.sort_by(f64::total_cmp);
        classes.dedup();
        if classes.len() < 2 {
            return Err(FwsvmError::Classes(format!(
                "y contains {} class{}; a classifier needs at least two",
                classes.len(),
                if classes.len() == 1 { "" } else { "es" }
            )));
        }
        let class_of: Vec<usize> = y
            .iter()
            .map(|v| {
                classes
                    .binary_search_by(|c| c.total_cmp(v))
                    .unwrap_or(usize::MAX)
            })
            .collect();
        let k = classes.len();
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
        for i in (0..m).filter(|&i| kept(i)) {
            members[class_of[i]].push(i);
        }
        let mut pairs: Vec<(usize, usize)> = (0..k)
            .flat_map(|i| ((i + 1)..k).map(move |j| (i, j)))
            .collect();
        // Largest pairs first: they dominate the wall time.
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        order.sort_by_key(|&p| {
            std::cmp::Reverse(members[pairs[p].0].len() + members[pairs[p].1].len())
        });
        let shared = Mutex::new(monitor);
        let solve_pair = |p: usize| -> Result<PairFit> {
            let (i, j) = pairs[p];
            // Class i rows then class j rows: +1 then −1.
            let rows: Vec<usize> = members[i].iter().chain(&members[j]).copied().collect();
            let y_pm: Vec<f64> = rows
                .iter()
                .map(|&r| if class_of[r] == i { 1.0 } else { -1.0 })
                .collect();
            let c: Vec<f64> = rows
                .iter()
                .map(|&r| self.c() * sample_weight.map_or(1.0, |w| w[r]))
                .collect();
            let task = Task {
                index: p,
                total: pairs.len(),
                label: format!("{} vs {}", classes[i], classes[j]),
                pair: Some((i, j)),
            };
            let mut pair_monitor = SharedMonitor {
                shared: &shared,
                task: &task,
            };
            pair_monitor.with(|m| m.task_started(&task))?;
            let fit = self.fit_binary(x, &rows, &y_pm, &c, None, &mut pair_monitor)?;
            pair_monitor.with(|m| m.task_finished(&task, &fit.solution_stats))?;
            // fit_binary orders negative (class j) first; LIBSVM's layout wants class i first.
            let mut order: Vec<usize> = (0..fit.support.len()).collect();
            order.sort_by_key(|&s| (class_of[fit.support[s]] != i, fit.support[s]));
            Ok(PairFit {
                i,
                j,
                support: order.iter().map(|&s| fit.support[s]).collect(),
                coef: order.iter().map(|&s| fit.coef[s]).collect(),
                intercept: fit.intercept,
                stats: fit.solution_stats,
                history: fit.history,
            })
        };
        let results: Vec<(usize, Result<PairFit>)> = with_threads(self.n_threads(), || {
            #[cfg(feature = "parallel")]
            {
                use rayon::prelude::*;
                order.par_iter().map(|&p| (p, solve_pair(p))).collect()
            }
            #[cfg(not(feature = "parallel"))]
            {
                order.iter().map(|&p| (p, solve_pair(p))).collect()
            }
        })?;
        let mut slots: Vec<Option<PairFit>> = vec![None; pairs.len()];
        for (p, r) in results {
            slots[p] = Some(r?);
        }
        pairs.clear();
        Ok(OvoFit {
            classes,
            pairs: slots
                .into_iter()
                .map(|s| s.expect("every pair was solved"))
                .collect(),
        })
    }
}

/// One-vs-one decision values in LIBSVM's layout: support vectors grouped by class
/// (`n_support[c]` of class c, in class order), `dual_coef` a (K−1)×n_SV row-major matrix where
/// pair (i, j) reads class-i coefficients from row j−1 and class-j coefficients from row i, and
/// one intercept per pair in the order (0,1), (0,2), …. Returns an n×K(K−1)/2 row-major matrix;
/// positive values favour the pair's first class.
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for inconsistent shapes or feature counts.
pub fn ovo_decision_values(
    kernel: Kernel,
    vectors: Features<'_>,
    dual_coef: &[f64],
    intercepts: &[f64],
    n_support: &[usize],
    x: Features<'_>,
) -> Result<Vec<f64>> {
    let k = n_support.len();
    let n_sv: usize = n_support.iter().sum();
    let n_pairs = k * k.saturating_sub(1) / 2;
    if k < 2
        || vectors.n_rows() != n_sv
        || dual_coef.len() != (k - 1) * n_sv
        || intercepts.len() != n_pairs
    {
        return Err(FwsvmError::InvalidInput(format!(
            "inconsistent one-vs-one model: {k} classes, {} support vectors (n_support sums to {n_sv}), {} dual coefficients, {} intercepts",
            vectors.n_rows(),
            dual_coef.len(),
            intercepts.len()
        )));
    }
    crate::model::check_query_features(&x, &vectors)?;
    kernel.validate()?;
    let km = KernelMatrix::new(kernel, vectors);
    let starts: Vec<usize> = std::iter::once(0)
        .chain(n_support.iter().scan(0, |acc, &n| {
            *acc += n;
            Some(*acc)
        }))
        .collect();
    let len = x.n_rows().saturating_mul(n_pairs);
    let mut out = try_filled(len, 0.0, "one-vs-one decision values (rows × class pairs)")?;
    let work = x.n_rows() * n_sv * vectors.n_cols().max(1);
    for_each_chunk(&mut out, 64 * n_pairs.max(1), work, |lo, chunk| {
        let mut krow = vec![0.0; n_sv];
        let mut scratch = QueryScratch::new();
        for (r, values) in chunk.chunks_mut(n_pairs).enumerate() {
            let t = lo / n_pairs + r;
            if km.query_row(&x, t, &mut krow, &mut scratch).is_err() {
                continue; // feature counts were checked above
            }
            let mut p = 0;
            for i in 0..k {
                for j in (i + 1)..k {
                    let block = |class: usize, row: usize| -> f64 {
                        let (a, b) = (starts[class], starts[class + 1]);
                        let coef = &dual_coef[row * n_sv + a..row * n_sv + b];
                        coef.iter().zip(&krow[a..b]).map(|(c, kv)| c * kv).sum()
                    };
                    values[p] = block(i, j - 1) + block(j, i) + intercepts[p];
                    p += 1;
                }
            }
        }
    });
    Ok(out)
}
