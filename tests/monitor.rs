//! The monitor hooks of a one-vs-one fit: one task per pair, announced before and after its
//! solve, and the solver's verbose log routed through the monitor with the pair's task.

mod common;

use fwsvm::Samples;
use std::collections::BTreeMap;

use common::blobs;
use fwsvm::solver::{Monitor, SolverStats, Task};
use fwsvm::{Kernel, Loss, Svc};

#[derive(Default)]
struct Recorder {
    started: Vec<Task>,
    finished: BTreeMap<usize, (String, u64)>,
    logs: BTreeMap<usize, usize>,
    untagged_logs: usize,
}

impl Monitor for Recorder {
    fn log(&mut self, _line: &str) {
        self.untagged_logs += 1;
    }
    fn task_log(&mut self, task: &Task, _line: &str) {
        *self.logs.entry(task.index).or_default() += 1;
    }
    fn task_started(&mut self, task: &Task) {
        self.started.push(task.clone());
    }
    fn task_finished(&mut self, task: &Task, stats: &SolverStats) {
        self.finished
            .insert(task.index, (task.label.clone(), stats.n_iter));
    }
}

#[test]
fn one_vs_one_announces_every_pair_and_labels_its_log() {
    let (x, y2) = blobs(300, 2, 3.0, 5);
    // Three classes 10, 20, 30.
    let y: Vec<f64> = (0..y2.len()).map(|i| 10.0 * (1 + i % 3) as f64).collect();
    for loss in [Loss::Hinge, Loss::SquaredHinge] {
        let params = Svc::params()
            .loss(loss)
            .kernel(Kernel::rbf(0.5))
            .verbose(true)
            .check()
            .unwrap();
        let mut recorder = Recorder::default();
        let fit = params
            .fit_ovo(Samples::new((&x).into(), &y), &mut recorder)
            .unwrap();
        assert_eq!(recorder.started.len(), 3);
        assert!(recorder.started.iter().all(|t| t.total == 3));
        let labels: Vec<&str> = recorder
            .finished
            .values()
            .map(|(l, _)| l.as_str())
            .collect();
        assert_eq!(labels, ["10 vs 20", "10 vs 30", "20 vs 30"]);
        for (index, (_, steps)) in &recorder.finished {
            assert_eq!(*steps, fit.pairs[*index].stats.n_iter);
            let (i, j) = (fit.pairs[*index].i, fit.pairs[*index].j);
            let task = recorder.started.iter().find(|t| t.index == *index).unwrap();
            assert_eq!(task.pair, Some((i, j)));
            // Every pair's solver log came through the monitor, tagged with the pair.
            assert!(recorder.logs.get(index).is_some_and(|&n| n > 0), "{loss:?}");
        }
        assert_eq!(recorder.untagged_logs, 0);
    }
}
