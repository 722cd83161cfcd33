//! `--hlog DIR`: each step's interval histograms in HdrHistogram's interval log format (the
//! format jHiccup, HistogramLogProcessor and wrk2's tooling read), one tag per measured step and
//! run, rewritten whole after each measurement so an interrupted run keeps what finished.
//! Values are nanoseconds. Warm-up intervals carry the step's tag with `.warmup` added, so the
//! histograms under a tag merge into exactly the step's counted latency.

use super::store::write_text_atomic;
use super::MeasurementKey;
use crate::measure::intervals::EncodedInterval;
use crate::measure::runner::StepOutcome;
use anyhow::{anyhow, Result};
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::{Deserializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use std::path::PathBuf;
use std::time::SystemTime;

/// The log of one run.
pub struct IntervalLog {
    path: PathBuf,
    start: Option<SystemTime>,
    entries: Vec<(String, SystemTime, EncodedInterval)>,
}

impl IntervalLog {
    /// A log at `dir/<run-id>.hlog` (the folder is created now, so a bad one fails early).
    pub fn new(dir: &std::path::Path, run_id: &str) -> Result<IntervalLog> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow!("cannot create the --hlog folder {}: {e}", dir.display()))?;
        Ok(IntervalLog {
            path: dir.join(format!("{run_id}.hlog")),
            start: None,
            entries: Vec::new(),
        })
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Adds a measurement's runs (tag `engine.level.step.t<threads>[.<dimension>]...run<k>`)
    /// and writes the log.
    pub fn add(&mut self, key: &MeasurementKey, outcomes: &[StepOutcome]) -> Result<()> {
        let rate = outcomes
            .first()
            .and_then(|o| o.open_loop.as_ref())
            .map(|o| o.rate);
        for (run, outcome) in outcomes.iter().enumerate() {
            let run_tag = run_tag(key, rate, run + 1);
            let start = *self.start.get_or_insert(outcome.started);
            self.start = Some(start.min(outcome.started));
            for interval in &outcome.encoded {
                let tag = if interval.warmup {
                    format!("{run_tag}.warmup")
                } else {
                    run_tag.clone()
                };
                self.entries.push((tag, outcome.started, interval.clone()));
            }
        }
        self.write()
    }

    fn write(&self) -> Result<()> {
        let Some(start) = self.start else {
            return Ok(());
        };
        let mut text = Vec::new();
        let mut serializer = V2DeflateSerializer::new();
        let mut writer = IntervalLogWriterBuilder::new()
            .add_comment("hakari interval log: latency in nanoseconds, one tag per step and run")
            .with_start_time(start)
            .with_base_time(start)
            .with_max_value_divisor(1e6)
            .begin_log_with(&mut text, &mut serializer)?;
        let mut deserializer = Deserializer::new();
        for (tag, started, interval) in &self.entries {
            let h: Histogram<u64> = deserializer
                .deserialize(&mut interval.histogram.as_slice())
                .map_err(|e| anyhow!("an interval histogram does not decode: {e:?}"))?;
            let offset = started.duration_since(start).unwrap_or_default() + interval.start;
            writer
                .write_histogram(&h, offset, interval.length, Tag::new(tag))
                .map_err(|e| anyhow!("cannot write the interval log: {e}"))?;
        }
        drop(writer);
        write_text_atomic(&self.path, &String::from_utf8(text)?)
    }
}

/// The tag of run `run` (from 1) of a measurement: `engine.level.step.t<threads>`, its
/// dimensions, its rate, `run<k>`.
pub fn run_tag(key: &MeasurementKey, rate: Option<f64>, run: usize) -> String {
    let mut tag = format!(
        "{}.{}.{}.t{}",
        key.engine, key.durability, key.step, key.threads
    );
    for (name, value) in &key.config {
        tag.push_str(&format!(".{name}={}", value.to_string().trim_matches('"')));
    }
    if let Some(rate) = rate {
        tag.push_str(&format!(".rate={rate}"));
    }
    clean(&format!("{tag}.run{run}"))
}

/// A tag holds no comma, space or line break.
fn clean(tag: &str) -> String {
    tag.chars()
        .map(|c| {
            if c == ',' || c.is_whitespace() {
                '_'
            } else {
                c
            }
        })
        .collect()
}
