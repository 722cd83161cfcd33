//! One loader for the workloads that fill tables (tpcb, tpcc, the next one): a workload is a
//! [`Source`] that writes a table's rows a part at a time into a [`Sink`]; the loader hands the
//! parts to the engine's fastest path and spreads the work over as many connections as the
//! engine declares it loads with at once ([`Capabilities::load_streams`], the one rule). Where
//! the engine's loader parses delimited text itself (COPY, LOAD DATA, DuckDB's CSV reader) the
//! rows are written as that text in place; elsewhere as values its loader binds. An engine that
//! refills a whole table frozen (PostgreSQL's COPY FREEZE) is given whole tables that way.
//! tpchgen-cli's `generate.rs` is the model: a generator per table, a writer per format.

pub mod ahead;
mod sink;

use crate::engine::sql::{Capabilities, SqlConnection, SqlDatabase};
use crate::measure::progress::Progress;
use anyhow::{Context, Result};
pub use sink::{write_decimal, Delimited, Forms, Sink, Values};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The rows of a workload's tables, a part at a time.
pub trait Source: Sync {
    /// What names a part of a table: a warehouse and a tenth of its rows, a branch.
    type Part: Clone + std::fmt::Debug + Send + Sync;
    /// Writes `table`'s rows of `part` into `sink`, each row's values in the table's columns'
    /// order.
    fn write<S: Sink>(&self, table: &str, part: &Self::Part, sink: &mut S);
    /// Whether the schema keeps decimals as integer units (an engine with no exact decimal).
    fn decimals_in_units(&self) -> bool {
        false
    }
    /// Rows so cheap to make that handing them over from another thread costs more than making
    /// them where they are loaded: they are never made ahead ([`ahead`]).
    fn cheap(&self) -> bool {
        false
    }
}

/// Parts of one table, loaded in one bulk statement on one connection.
#[derive(Clone, Debug)]
pub struct Job<P> {
    /// The table as its source knows it.
    pub table: &'static str,
    /// The table as the SQL names it (a workload's prefix and all).
    pub name: String,
    pub columns: &'static [&'static str],
    pub parts: Vec<P>,
    /// About how many rows a part holds (its buffer's size; the progress, where `counted`).
    pub rows_per_part: u64,
    /// The progress counts these rows (a warehouse's, not the items every warehouse shares).
    pub counted: bool,
    /// About how many bytes a part takes as delimited text, to size its buffer.
    pub bytes_per_part: u64,
    /// The parts are the whole table: an engine that refills a table frozen does it that way.
    pub whole: bool,
}

/// How many loaders run at once for `jobs` jobs: as many connections as the engine loads
/// with at once, at most `jobs`; one where it refills a whole table frozen (`whole`), which
/// takes one transaction per table.
pub fn streams(can: Capabilities, jobs: u64, whole: bool) -> u64 {
    if whole && can.frozen_refill && can.delimited {
        return 1;
    }
    (can.load_streams as u64).clamp(1, jobs.max(1))
}

/// What goes with a job's load besides its rows.
#[derive(Clone, Copy, Default)]
pub struct Along<'a> {
    /// Threads that make parts ahead of the engine ([`ahead::makers`]).
    pub makers: usize,
    /// Counts the rows of a job that is `counted`.
    pub progress: Option<&'a Progress>,
    /// A file the rows are also written to as delimited text, in order (tpch's `--keep-data`
    /// keeps dbgen's .tbl files this way).
    pub copy: Option<&'a Path>,
}

/// Loads `job` through `c` in the form its engine takes best; returns rows loaded. The parts
/// are generated as the engine takes them, and a signal stops the rows between parts.
pub fn load<S: Source>(
    c: &mut dyn SqlConnection,
    source: &S,
    job: &Job<S::Part>,
    along: Along,
) -> Result<u64> {
    let can = c.capabilities();
    let forms = Forms {
        units: source.decimals_in_units(),
        pads_char: can.pads_char,
    };
    let makers = if source.cheap() { 0 } else { along.makers };
    let mut copy = TextCopy::create(along.copy)?;
    let copied = copy.wanted();
    let capacity = (job.bytes_per_part * 9 / 8) as usize;
    let text = |part: &S::Part| {
        let mut sink = Delimited::new(forms, capacity);
        source.write(job.table, part, &mut sink);
        sink.text
    };
    let count = || {
        if let (Some(p), true) = (along.progress, job.counted) {
            p.add(job.rows_per_part);
        }
    };
    let (name, columns) = (&job.name, job.columns);
    let loaded = match can.delimited {
        true => ahead::in_order(
            &job.parts,
            makers,
            |part| {
                count();
                text(part)
            },
            |made| {
                let mut texts = (made.take_while(|_| !crate::measure::interrupted()))
                    .inspect(|text| copy.write(text));
                match job.whole && can.frozen_refill {
                    true => c.refill_delimited(name, columns, &mut texts),
                    false => c.bulk_load_delimited(name, columns, &mut texts),
                }
            },
        ),
        false => ahead::in_order(
            &job.parts,
            makers,
            |part| {
                count();
                let mut sink = Values::new(forms, job.rows_per_part as usize);
                source.write(job.table, part, &mut sink);
                (sink, copied.then(|| text(part)))
            },
            |made| {
                let mut rows = (made.take_while(|_| !crate::measure::interrupted())).flat_map(
                    |(sink, text)| {
                        text.inspect(|text| copy.write(text));
                        sink.into_rows()
                    },
                );
                c.bulk_load(name, columns, &mut rows)
            },
        ),
    };
    if crate::measure::interrupted() {
        return Err(anyhow::anyhow!(crate::measure::Interrupted));
    }
    let (first, last) = (job.parts.first(), job.parts.last());
    let loaded = loaded.with_context(|| format!("loading {name} (parts {first:?} to {last:?})"))?;
    copy.finish()?;
    Ok(loaded)
}

/// The file [`Along::copy`] names, written as the text passes; a failed write is reported once
/// the load is done.
struct TextCopy {
    file: Option<(BufWriter<File>, PathBuf)>,
    failed: Option<std::io::Error>,
}

impl TextCopy {
    fn create(path: Option<&Path>) -> Result<TextCopy> {
        let file = match path {
            Some(path) => {
                let file = File::create(path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                Some((BufWriter::with_capacity(1 << 20, file), path.to_path_buf()))
            }
            None => None,
        };
        Ok(TextCopy { file, failed: None })
    }
    fn wanted(&self) -> bool {
        self.file.is_some()
    }
    fn write(&mut self, text: &str) {
        if let Some((file, _)) = self.file.as_mut() {
            if let Err(e) = file.write_all(text.as_bytes()) {
                self.failed.get_or_insert(e);
            }
        }
    }
    fn finish(mut self) -> Result<()> {
        let Some((mut file, path)) = self.file.take() else {
            return Ok(());
        };
        match self.failed.take() {
            Some(e) => Err(e),
            None => file.flush(),
        }
        .with_context(|| format!("cannot write {}", path.display()))
    }
}

/// Loads each loader's jobs on a connection of its own, the loaders at once; returns rows
/// loaded. A signal stops a long load between parts.
pub fn spread<S: Source>(
    db: &dyn SqlDatabase,
    source: &S,
    work: &[Vec<Job<S::Part>>],
    progress: Option<&Progress>,
) -> Result<u64> {
    let along = Along {
        makers: ahead::makers(work.len()),
        progress,
        copy: None,
    };
    let loader = |jobs: &Vec<Job<S::Part>>| -> Result<u64> {
        let mut c = db.connect()?;
        let mut rows = 0;
        for job in jobs {
            rows += load(c.as_mut(), source, job, along)?;
        }
        Ok(rows)
    };
    // One loader runs on this thread.
    if let [jobs] = work {
        return loader(jobs);
    }
    std::thread::scope(|scope| {
        let loaders: Vec<_> = (work.iter())
            .map(|jobs| scope.spawn(move || loader(jobs)))
            .collect();
        let mut rows = 0;
        for loader in loaders {
            rows += loader.join().expect("a loader thread panicked")?;
        }
        Ok(rows)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frozen_refill_of_whole_tables_is_one_stream() {
        let server = Capabilities {
            load_streams: 4,
            ..Capabilities::EMBEDDED
        };
        assert_eq!(streams(server, 10, false), 4);
        assert_eq!(streams(server, 3, true), 3);
        assert_eq!(streams(server, 0, false), 1);
        let frozen = Capabilities {
            delimited: true,
            frozen_refill: true,
            ..server
        };
        assert_eq!(streams(frozen, 10, true), 1);
        assert_eq!(streams(frozen, 10, false), 4);
        assert_eq!(streams(Capabilities::EMBEDDED, 10, false), 1);
    }

    #[test]
    fn decimals_and_blanks_take_each_engines_form() {
        let mut text = Delimited::new(Forms::default(), 0);
        text.decimal(-100, 4);
        text.blanks(3);
        text.int(7);
        text.end();
        assert_eq!(text.text, "-0.0100|   |7|\n");
        let padded = Forms {
            units: true,
            pads_char: true,
        };
        let mut text = Delimited::new(padded, 0);
        text.decimal(1250, 2);
        text.blanks(3);
        text.end();
        assert_eq!(text.text, "1250||\n");
        use crate::engine::sql::SqlValue::{Int, Null, Text};
        let mut values = Values::new(Forms::default(), 1);
        values.decimal(1250, 2);
        values.blanks(2);
        values.text(|s| s.push_str("ab"));
        values.end();
        values.null();
        values.blanks(300);
        values.text(|s| s.push('c'));
        values.int(-3);
        values.end();
        let rows: Vec<_> = values.into_rows().collect();
        assert_eq!(
            rows[0],
            vec![Text("12.50".into()), Text("  ".into()), Text("ab".into())]
        );
        let long = Text(" ".repeat(300));
        assert_eq!(rows[1], vec![Null, long, Text("c".into()), Int(-3)]);
        assert_eq!(rows.len(), 2);
    }
}
