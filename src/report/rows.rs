//! Flat rows for scripts: one row per measurement (or per engine level, or per compared figure),
//! every field a named column, written as CSV or JSON. What `--format json|csv` and `hakari
//! export` print, so no script ever parses a terminal table.

use crate::results::{Measurement, RunResult};
use anyhow::Result;
use serde_json::{Map, Value};

/// A table of named columns; a cell may be absent (empty in CSV, null in JSON).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

impl Rows {
    pub fn new(columns: &[&str]) -> Rows {
        Rows {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row given as (column, value) pairs; new columns are added at the end.
    pub fn push(&mut self, cells: Vec<(String, Value)>) {
        let mut row = vec![Value::Null; self.columns.len()];
        for (column, value) in cells {
            match self.columns.iter().position(|c| *c == column) {
                Some(i) => row[i] = value,
                None => {
                    self.columns.push(column);
                    for r in &mut self.rows {
                        r.push(Value::Null);
                    }
                    row.push(value);
                }
            }
        }
        self.rows.push(row);
    }

    /// A JSON array with one object per row.
    pub fn to_json(&self) -> Value {
        Value::Array(
            self.rows
                .iter()
                .map(|row| {
                    let object: Map<String, Value> = self
                        .columns
                        .iter()
                        .cloned()
                        .zip(row.iter().cloned())
                        .collect();
                    Value::Object(object)
                })
                .collect(),
        )
    }

    /// CSV with a header line: strings as they are, numbers as JSON writes them, null empty.
    pub fn to_csv(&self) -> Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&self.columns)?;
        for row in &self.rows {
            w.write_record(row.iter().map(cell_text))?;
        }
        Ok(String::from_utf8(w.into_inner()?)?)
    }

    /// The rows in `format` (JSON pretty-printed), ending with a newline.
    pub fn render(&self, format: crate::output::Format) -> Result<String> {
        Ok(match format {
            crate::output::Format::Csv => self.to_csv()?,
            _ => serde_json::to_string_pretty(&self.to_json())? + "\n",
        })
    }
}

fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The columns that say which configuration a measurement is, its config fields last.
pub fn identity(m: &Measurement) -> Vec<(String, Value)> {
    let mut cells = vec![
        ("workload".to_string(), Value::from(m.workload.clone())),
        ("engine".to_string(), Value::from(m.engine.clone())),
        ("durability".to_string(), Value::from(m.durability.clone())),
        ("threads".to_string(), Value::from(m.threads)),
        ("step".to_string(), Value::from(m.step.clone())),
    ];
    for (k, v) in &m.config {
        cells.push((k.clone(), v.clone()));
    }
    cells
}

/// One row per measurement of each run: the run, the configuration (every config field a
/// column) and every figure.
pub fn measurements(runs: &[RunResult]) -> Rows {
    let mut rows = Rows::new(&["run_id", "started_at", "status", "preset"]);
    for r in runs {
        for m in &r.measurements {
            let mut cells = vec![
                ("run_id".to_string(), Value::from(r.run_id.clone())),
                ("started_at".to_string(), Value::from(r.started_at.clone())),
                ("status".to_string(), Value::from(r.status.clone())),
                ("preset".to_string(), Value::from(r.preset.clone())),
            ];
            // What the configuration produced sorts in among its fields, as the columns
            // of results made before it was kept apart did.
            let at = cells.len() + 5;
            cells.extend(identity(m));
            let mut fields: Vec<(String, Value)> = cells.split_off(at);
            fields.extend(m.produced.iter().map(|(k, v)| (k.clone(), v.clone())));
            fields.sort_by(|a, b| a.0.cmp(&b.0));
            cells.extend(fields);
            cells.extend(figures(m));
            // The resource figures, each its own column (`results/figures.rs` names them).
            cells.extend((m.figures.iter()).map(|f| (f.name.clone(), Value::from(f.value))));
            rows.push(cells);
        }
    }
    // Figures after every configuration column, whichever run brought a column first.
    rows.reorder_last(FIGURES);
    rows
}

const FIGURES: &[&str] = &[
    "runs",
    "ops_per_sec_mean",
    "ops_per_sec_stddev",
    "ops_per_sec_min",
    "ops_per_sec_max",
    "seconds_mean",
    "seconds_stddev",
    "latency_count",
    "latency_mean_us",
    "p50_us",
    "p95_us",
    "p99_us",
    "p999_us",
    "max_us",
    "retries",
];

fn figures(m: &Measurement) -> Vec<(String, Value)> {
    let l = m.latency;
    let lat = |f: fn(&crate::measure::latency::LatencySummary) -> f64| {
        l.as_ref().map(f).map(Value::from).unwrap_or(Value::Null)
    };
    let mut cells: Vec<(String, Value)> = vec![
        ("runs".into(), Value::from(m.runs.len())),
        ("ops_per_sec_mean".into(), Value::from(m.ops_per_sec_mean)),
        (
            "ops_per_sec_stddev".into(),
            Value::from(m.ops_per_sec_stddev),
        ),
        ("ops_per_sec_min".into(), Value::from(m.ops_per_sec_min)),
        ("ops_per_sec_max".into(), Value::from(m.ops_per_sec_max)),
        ("seconds_mean".into(), Value::from(m.seconds_mean)),
        ("seconds_stddev".into(), Value::from(m.seconds_stddev)),
        (
            "latency_count".into(),
            l.map(|l| Value::from(l.count)).unwrap_or(Value::Null),
        ),
        ("latency_mean_us".into(), lat(|l| l.mean_us)),
    ];
    // The latency figures as the one list has them (`p50_us` ... `max_us`).
    cells.extend(crate::results::figures::LATENCIES.iter().map(|d| {
        let v = l.as_ref().and_then(|l| d.latency_of(l));
        (format!("{}_us", d.name), v.map_or(Value::Null, Value::from))
    }));
    cells.push(("retries".into(), Value::from(m.retries)));
    cells
}

impl Rows {
    /// Moves the named columns (those present) to the end, in the order given.
    fn reorder_last(&mut self, names: &[&str]) {
        let mut order: Vec<usize> = (0..self.columns.len())
            .filter(|&i| !names.contains(&self.columns[i].as_str()))
            .collect();
        for n in names {
            if let Some(i) = self.columns.iter().position(|c| c == n) {
                order.push(i);
            }
        }
        self.columns = order.iter().map(|&i| self.columns[i].clone()).collect();
        for row in &mut self.rows {
            *row = order.iter().map(|&i| row[i].clone()).collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_grow_and_csv_quotes() {
        let mut r = Rows::new(&["a"]);
        r.push(vec![("a".into(), Value::from("x,y"))]);
        r.push(vec![
            ("b".into(), Value::from(2)),
            ("a".into(), Value::from("z")),
        ]);
        assert_eq!(r.columns, ["a", "b"]);
        assert_eq!(r.to_csv().unwrap(), "a,b\n\"x,y\",\nz,2\n");
        let json = r.to_json();
        assert_eq!(json[0]["b"], Value::Null);
        assert_eq!(json[1]["b"], 2);
    }
}
