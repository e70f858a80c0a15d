//! One-vs-one multiclass training and prediction (LIBSVM's scheme).
//!
//! For K classes, K(K−1)/2 binary L2-SVCs, one per pair (i, j) with i < j, each on the rows of
//! its two classes with +1 for class i. Pairs are solved in parallel (largest first, so the
//! long ones start early) inside the fit's thread pool; each pair's own kernel loops share that
//! pool through rayon's work stealing, so nothing is oversubscribed. Every pair is solved
//! exactly as it would be alone, so the model does not depend on the thread count.

use crate::Samples;
use std::sync::Mutex;

use crate::data::Features;
use crate::error::{FwsvmError, Result};
use crate::parallel::with_threads;
use crate::params::SvcValidParams;
use crate::solver::{HistoryEntry, Monitor, Progress, SolverStats, Task};

/// Moved to [`crate::model`] (prediction belongs to the model layer); kept here for old paths.
pub use crate::model::ovo_decision_values;

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
    pub fn fit_ovo(&self, data: Samples<'_>, monitor: &mut (dyn Monitor + Send)) -> Result<OvoFit> {
        let (x, y, sample_weight) = (data.x, data.y, data.weights);
        let m = x.n_rows();
        super::check_fit_inputs(&x, Some((y, "labels")), sample_weight)?;
        let rows = super::weighted_rows(m, sample_weight);
        let classes = super::sorted_classes(rows.iter().map(|&i| y[i]));
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
        for i in rows {
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
            let c = super::penalties(self.c(), &rows, sample_weight);
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

impl OvoFit {
    /// The fit as one [`SvcModel`](crate::model::SvcModel) in LIBSVM's layout: the union of the pairs' support vectors
    /// grouped by class (ascending index within a class), a (K−1) × n_SV coefficient matrix
    /// where pair (i, j) keeps class-i coefficients in row j−1 and class-j coefficients in row
    /// i, one intercept per pair. `x` and `y` are the training data the fit saw.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if `y` does not hold the fit's classes.
    pub fn into_model(
        self,
        x: Features<'_>,
        y: &[f64],
        params: &SvcValidParams,
    ) -> Result<crate::model::SvcModel> {
        let k = self.classes.len();
        let class_of = |row: usize| -> Result<usize> {
            y.get(row)
                .and_then(|v| self.classes.binary_search_by(|c| c.total_cmp(v)).ok())
                .ok_or_else(|| {
                    FwsvmError::InvalidInput(format!("row {row} is not in the fitted classes"))
                })
        };
        let mut union: Vec<usize> = self
            .pairs
            .iter()
            .flat_map(|p| p.support.iter().copied())
            .collect();
        union.sort_unstable();
        union.dedup();
        let mut keyed = union
            .iter()
            .map(|&s| Ok((class_of(s)?, s)))
            .collect::<Result<Vec<_>>>()?;
        keyed.sort_unstable();
        let union: Vec<usize> = keyed.iter().map(|&(_, s)| s).collect();
        let mut n_support = vec![0usize; k];
        keyed.iter().for_each(|&(c, _)| n_support[c] += 1);
        let n_sv = union.len();
        let position: std::collections::HashMap<usize, usize> =
            union.iter().enumerate().map(|(p, &s)| (s, p)).collect();
        let mut dual_coef = vec![0.0; (k - 1) * n_sv];
        for pair in &self.pairs {
            for (&s, &coef) in pair.support.iter().zip(&pair.coef) {
                let row = if class_of(s)? == pair.i {
                    pair.j - 1
                } else {
                    pair.i
                };
                dual_coef[row * n_sv + position[&s]] = coef;
            }
        }
        let model = crate::model::SvcModel {
            kernel: params.kernel(),
            vectors: x.select_rows(&union),
            support: union,
            n_support,
            dual_coef,
            intercept: self.pairs.iter().map(|p| p.intercept).collect(),
            alpha: Vec::new(),
            prob_a: Vec::new(),
            prob_b: Vec::new(),
            label_order: Vec::new(),
            stats: self.pairs.iter().map(|p| p.stats.clone()).collect(),
            history: self.pairs.into_iter().map(|p| p.history).collect(),
            classes: self.classes,
            params: params.file_params(),
        };
        model.check()?;
        Ok(model)
    }
}
