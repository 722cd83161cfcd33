//! The throughput workloads' view (kv, tpcb): each configuration's figure per step, with the
//! paper's figure beside it where the run's preset reproduces a paper's table. Built once, read
//! by the terminal tables and the HTML section alike.

use super::published::{self, Published};
use crate::results::{Measurement, RunResult};

/// A configuration as the tables name it: engine, durability label, threads.
pub type Config = (String, String, usize);

/// One configuration at one step: what was measured and what the paper published.
pub struct Cell<'a> {
    pub measured: Option<&'a Measurement>,
    pub published: Option<Published>,
}

pub struct Throughput<'a> {
    pub run: &'a RunResult,
    /// Steps in the papers' column order.
    pub steps: Vec<String>,
    /// Configurations in the order they ran.
    pub configs: Vec<Config>,
    /// Config fields that tell configurations apart beside engine, durability and threads.
    varying: Vec<String>,
    /// `cells[config][step]`.
    cells: Vec<Vec<Cell<'a>>>,
}

impl<'a> Throughput<'a> {
    pub fn of(run: &'a RunResult) -> Throughput<'a> {
        let ms = &run.measurements;
        let steps = super::step_columns(ms);
        let configs = super::configurations(ms);
        let varying = super::varying_config(ms);
        let cells = configs
            .iter()
            .map(|(engine, durability, threads)| {
                steps
                    .iter()
                    .map(|step| Cell {
                        measured: ms.iter().find(|m| {
                            &m.engine == engine
                                && &super::durability_label(m, &varying) == durability
                                && m.threads == *threads
                                && &m.step == step
                        }),
                        published: published::for_figure(
                            run.preset.as_deref(),
                            engine,
                            super::level_of(durability),
                            *threads,
                            step,
                        ),
                    })
                    .collect()
            })
            .collect();
        Throughput {
            run,
            steps,
            configs,
            varying,
            cells,
        }
    }

    /// The cells of configuration `config` (an index into `configs`), one per step.
    pub fn row(&self, config: usize) -> &[Cell<'a>] {
        &self.cells[config]
    }

    /// The cell of a configuration at a step, when that configuration ran.
    pub fn cell(&self, config: &Config, step: &str) -> Option<&Cell<'a>> {
        let c = self.configs.iter().position(|x| x == config)?;
        let s = self.steps.iter().position(|x| x == step)?;
        Some(&self.cells[c][s])
    }

    /// A measurement's durability label (with the varying config fields).
    pub fn label(&self, m: &Measurement) -> String {
        super::durability_label(m, &self.varying)
    }

    /// The thread (client) counts that ran, ascending.
    pub fn thread_counts(&self) -> Vec<usize> {
        let mut counts: Vec<usize> = self.configs.iter().map(|c| c.2).collect();
        counts.sort();
        counts.dedup();
        counts
    }

    /// (engine, durability label) pairs that ran `step`, in the order they ran.
    pub fn lines_of(&self, step: &str) -> Vec<(String, String)> {
        let mut keys: Vec<(String, String)> = Vec::new();
        for m in self.run.measurements.iter().filter(|m| m.step == step) {
            let k = (m.engine.clone(), self.label(m));
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys
    }
}

/// The sources of published figures, each once, in the order first used.
#[derive(Default)]
pub struct Sources(pub Vec<String>);

impl Sources {
    pub fn note(&mut self, p: &Published) {
        if !self.0.contains(&p.source) {
            self.0.push(p.source.clone());
        }
    }
}
