//! The workload registry: every workload once, under the name users type, as `engine::all()` is
//! for engines. The command line (`hakari run <name>`), the dispatch, the view a result file
//! gets, the statement snapshot and every message that lists workloads are made from this list.
//! Adding a workload is its folder (`src/workload/<name>/`) and one line in [`all`].

use crate::engine::{self, Takes};
use crate::report::view::View;
use crate::run::{self, RunOptions};
use crate::workload::flags::{Flags, Overrides, Shared};
use crate::workload::{kv, script, session, sysbench, tpcb, tpcc, tpch, wisconsin, ycsb, Workload};
use anyhow::Result;

/// Every workload, in the order `hakari run --help` lists them.
pub fn all() -> Vec<Registered> {
    vec![
        Registered::of::<kv::flags::KvFlags>(),
        Registered::of::<tpcb::flags::TpcbFlags>(),
        Registered::of::<tpcc::flags::TpccFlags>(),
        Registered::of::<session::flags::SessionFlags>(),
        Registered::of::<tpch::flags::TpchFlags>(),
        Registered::of::<wisconsin::flags::WisconsinFlags>(),
        Registered::of::<ycsb::flags::YcsbFlags>(),
        Registered::of::<script::flags::ScriptFlags>(),
        Registered::of::<sysbench::flags::SysbenchFlags>(),
    ]
}

/// `hakari run` alone: the kv workload at a small size on every engine, each at `sync`.
pub fn tour() -> Result<i32> {
    eprintln!("hakari tour: the kv workload at a small size on every engine (see `hakari run kv --help` for more)");
    let mut params = kv::presets::default_params();
    params.batches = 2_000;
    params.runs = 3;
    let options = RunOptions {
        engines: Some(engine::names(&Takes::OrderedKv.engines())),
        out: std::path::PathBuf::from("results"),
        ..RunOptions::default()
    };
    run::execute(&mut params, &options, &paced())
}

/// A workload as registered: what the command line, the dispatch and the report need of it.
pub struct Registered {
    pub name: &'static str,
    /// One paragraph for `hakari run --help`.
    pub about: &'static str,
    /// More paragraphs for its own `--help`.
    pub more: &'static str,
    /// Examples after its flags in its own `--help`.
    pub examples: &'static str,
    /// Its presets' names (`--preset`).
    pub presets: &'static [&'static str],
    /// Adds its own flags to a command.
    pub flags: fn(clap::Command) -> clap::Command,
    /// Parses its own flags and runs it with the options every run shares.
    pub run: fn(&clap::ArgMatches, &Shared, &RunOptions) -> Result<i32>,
    /// How its result files are shown.
    pub view: &'static dyn View,
    /// Whether `--rate` and `--warmup` apply to it.
    pub paced: bool,
    /// Whether it keeps its loaded tables for later runs (`--keep`, `--load-only`, `--run-only`).
    pub keeps: bool,
    /// The engines it runs on.
    pub takes: Takes,
    /// Every statement it sends, for the statement snapshot.
    #[cfg(test)]
    pub statements: fn() -> String,
}

impl Registered {
    fn of<F: Flags>() -> Registered {
        Registered {
            name: F::Workload::NAME,
            about: F::ABOUT,
            more: F::MORE,
            examples: F::EXAMPLES,
            presets: F::PRESETS,
            flags: F::augment_args,
            run: run_with::<F>,
            view: F::Workload::VIEW,
            paced: F::Workload::PACED,
            keeps: F::Workload::KEEPS,
            takes: F::Workload::TAKES,
            #[cfg(test)]
            statements: F::Workload::statements,
        }
    }
}

fn run_with<F: Flags>(
    matches: &clap::ArgMatches,
    shared: &Shared,
    options: &RunOptions,
) -> Result<i32> {
    let flags = F::from_arg_matches(matches)?;
    let options = overridden(options, flags.overrides()?)?;
    run::execute(&mut flags.workload(shared)?, &options, &paced())
}

/// The run options with a workload's own command line's over them; a value given both ways is
/// refused unless they agree.
fn overridden(options: &RunOptions, over: Overrides) -> Result<RunOptions> {
    let mut o = options.clone();
    fn one<T: PartialEq + std::fmt::Debug>(
        ours: &mut Option<T>,
        theirs: Option<T>,
        flag: &str,
    ) -> Result<()> {
        match (ours.as_ref(), theirs) {
            (Some(a), Some(b)) if *a != b => {
                anyhow::bail!("{flag} is given twice, as hakari's flag and in the workload's own words ({a:?} and {b:?}): give it once")
            }
            (_, Some(b)) => *ours = Some(b),
            _ => {}
        }
        Ok(())
    }
    one(&mut o.engines, over.engine, "--engine")?;
    one(&mut o.seed, over.seed, "--seed")?;
    one(&mut o.timing.interval, over.interval, "--interval")?;
    if let Some(url) = over.url {
        if !o.urls.is_empty() {
            anyhow::bail!(
                "--url and the workload's own connection options are both given: give one"
            );
        }
        o.urls.push(url);
    }
    if let Some(rate) = over.rate {
        if !o.timing.rates.is_empty() {
            anyhow::bail!("--rate is given twice, as hakari's flag and in the workload's own words: give it once");
        }
        o.timing.rates.push(rate);
        o.timing.arrival = crate::measure::timing::Arrival::Poisson;
    }
    if let Some(w) = over.warmup {
        o.timing.warmup = w;
    }
    if let Some(view) = over.terminal {
        o.terminal = Some(run::TerminalView(view));
    }
    Ok(o)
}

/// The workloads that run on `engine`, in registry order (for `hakari engines`).
pub fn taking(engine: engine::Engine) -> Vec<&'static str> {
    let same = |e: &engine::Engine| {
        e.name() == engine.name() && std::mem::discriminant(e) == std::mem::discriminant(&engine)
    };
    (all().into_iter())
        .filter(|w| w.takes.engines().iter().any(same))
        .map(|w| w.name)
        .collect()
}

/// The names of the workloads `--rate` and `--warmup` apply to ("kv, tpcb, ... and script").
pub fn paced() -> String {
    let names: Vec<&str> = (all().into_iter())
        .filter(|w| w.paced)
        .map(|w| w.name)
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// How a result file of `workload` is shown: its workload's view, the crash test's, or plain
/// throughput for a workload this version does not know.
pub fn view(workload: &str) -> &'static dyn View {
    if workload == crate::crashtest::NAME {
        return crate::crashtest::VIEW;
    }
    let known = all().into_iter().find(|w| w.name == workload);
    known.map_or(&crate::report::parts::Plain, |w| w.view)
}

#[cfg(test)]
mod tests {
    /// Every statement the SQL workloads send, on every dialect, as recorded in
    /// `src/workload/statements.snapshot`: moving SQL between Rust and files must leave each one
    /// unchanged. `HAKARI_BLESS=1` writes the snapshot anew.
    #[test]
    fn every_generated_statement_is_unchanged() {
        let actual: String = super::all().iter().map(|w| (w.statements)()).collect();
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/workload/statements.snapshot"
        );
        if std::env::var_os("HAKARI_BLESS").is_some() {
            std::fs::write(path, &actual).unwrap();
            return;
        }
        let expected = std::fs::read_to_string(path).unwrap();
        for (i, (want, got)) in expected.lines().zip(actual.lines()).enumerate() {
            assert_eq!(want, got, "statement {} of the snapshot changed", i + 1);
        }
        assert_eq!(expected.lines().count(), actual.lines().count());
    }

    #[test]
    fn names_are_registered_once() {
        let all = super::all();
        for (i, w) in all.iter().enumerate() {
            assert!(
                all[..i].iter().all(|o| o.name != w.name),
                "{} twice",
                w.name
            );
        }
        assert_eq!(
            super::paced(),
            "kv, tpcb, tpcc, session, ycsb, script and sysbench"
        );
    }
}
