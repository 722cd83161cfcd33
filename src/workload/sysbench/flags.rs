//! `hakari run sysbench SCRIPT [sysbench's options] [COMMAND...]`: the script, then sysbench's
//! own command line as sysbench takes it. hakari's flags come before the script.

use super::options::Given;
use super::{SysbenchParams, DRIVERS};
use crate::workload::flags::{Flags, Overrides, Shared};
use anyhow::{bail, Context, Result};
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct SysbenchFlags {
    /// `sysbench`: print the run in sysbench's own report layout (SQL statistics, General
    /// statistics, Latency) instead of hakari's tables, for tools that parse sysbench's output.
    /// The result file and the HTML report are hakari's either way.
    #[arg(long, value_name = "FORMAT", value_parser = ["sysbench"])]
    pub output: Option<String>,
    /// The script: one of those Debian's sysbench package ships (oltp_read_write,
    /// oltp_read_only, oltp_write_only, oltp_point_select, oltp_update_index,
    /// oltp_update_non_index, oltp_insert, oltp_delete, select_random_points,
    /// select_random_ranges, bulk_insert), read from /usr/share/sysbench, or a script's path;
    /// then sysbench's options (--threads=8, --time=60, --events=N, --rate=N,
    /// --report-interval=1, --rand-type, --rand-seed, --db-driver=mysql|pgsql, --mysql-host,
    /// --pgsql-db, ...), the script's own (--tables=4, --table-size=100000) and the commands
    /// (prepare, run, cleanup, the script's own), as sysbench takes them.
    // One list, the script first: once clap has seen the script, all that follows is sysbench's,
    // even an option hakari also has (--threads, --rate).
    #[arg(
        value_name = "SCRIPT [OPTIONS AND COMMANDS]",
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub args: Vec<String>,
}

impl Flags for SysbenchFlags {
    type Workload = SysbenchParams;
    const ABOUT: &'static str =
        "sysbench's own Lua scripts, unchanged (oltp_read_write and the others Debian's sysbench \
        ships, or any script on sysbench 1.0's API, such as Percona's sysbench-tpcc), with \
        sysbench's options and commands, on MariaDB/MySQL (--db-driver=mysql) or PostgreSQL \
        (--db-driver=pgsql); transactions and queries counted as sysbench counts them.";
    const MORE: &'static str =
        "hakari's own flags (--engine, --url, --rate, --interval, --hlog, --require, --report, \
        ...) come before the script; everything after it is sysbench's command line. Without \
        --url or --mysql-*/--pgsql-* connection options the run is on a private server hakari \
        starts, and `prepare` runs first. Passwords are never taken on the command line: \
        MYSQL_PWD or ~/.my.cnf, PGPASSWORD or ~/.pgpass.";
    const EXAMPLES: &'static str = "Examples:\n  \
        hakari run sysbench oltp_read_write --tables=4 --table-size=100000 --threads=8 --time=60\n  \
        hakari run sysbench oltp_point_select --db-driver=pgsql --pgsql-host=db1 --pgsql-user=sb prepare\n  \
        hakari run sysbench --hlog run.hlog oltp_point_select --db-driver=pgsql --pgsql-host=db1 --pgsql-user=sb --threads=32 run";

    fn workload(&self, shared: &Shared) -> Result<SysbenchParams> {
        if let Some(preset) = &shared.preset {
            bail!("the sysbench workload has no preset '{preset}'");
        }
        if shared.threads.is_some() {
            bail!("sysbench's threads are its own option: --threads=N after the script");
        }
        let (script, args) = self.args.split_first().context("no script given")?;
        SysbenchParams::new(script, args.to_vec(), shared.runs.unwrap_or(1))
    }

    /// sysbench's options that are hakari's run options: the engine its driver names, the
    /// server its connection options name, the seed, the rate, the interval, the warm-up.
    fn overrides(&self) -> Result<Overrides> {
        let given = Given::parse(self.args.get(1..).unwrap_or_default())?;
        let driver = given.text("db-driver").unwrap_or_default();
        let engine = DRIVERS.iter().find(|(d, _)| *d == driver).map(|d| d.1);
        let number = |name: &str| given.number(name);
        let positive = |v: f64| (v > 0.0).then_some(v);
        Ok(Overrides {
            engine: engine.map(str::to_string),
            url: url(&given, &driver)?,
            seed: positive(number("rand-seed")?).map(|s| s as u64),
            rate: positive(number("rate")?),
            interval: positive(number("report-interval")?),
            warmup: positive(number("warmup-time")?),
            terminal: self
                .output
                .as_ref()
                .map(|_| &super::view::SysbenchReport as &'static dyn crate::report::view::View),
        })
    }
}

/// The server sysbench's connection options name, as a URL (no password: the client library's
/// own places give it); None when none is given (a private server).
fn url(given: &Given, driver: &str) -> Result<Option<String>> {
    let prefix = format!("{driver}_");
    let named = |option: &str| given.values.contains_key(&format!("{driver}_{option}"));
    if !given
        .values
        .keys()
        .any(|k| k.starts_with(&prefix) && !k.ends_with("ignore_errors"))
    {
        return Ok(None);
    }
    let text = |option: &str| {
        given
            .text(&format!("{driver}-{option}"))
            .unwrap_or_default()
    };
    let first = |option: &str| text(option).split(',').next().unwrap_or("").to_string();
    Ok(Some(match driver {
        "mysql" => {
            let mut query = Vec::new();
            let socket = named("socket").then(|| first("socket"));
            if let Some(path) = &socket {
                let encoded =
                    percent_encoding::utf8_percent_encode(path, percent_encoding::NON_ALPHANUMERIC);
                query.push(format!("socket={encoded}"));
            }
            // sysbench's --mysql-ssl: off (its default) is no TLS at all.
            query.push(match given.flag("mysql-ssl")? {
                true => "ssl-mode=REQUIRED".to_string(),
                false => "ssl-mode=DISABLED".to_string(),
            });
            if text("host").contains(',') || text("port").contains(',') {
                bail!("--mysql-host and --mysql-port with several values: hakari connects every thread to one server (give one)");
            }
            let query = format!("?{}", query.join("&"));
            match socket {
                Some(_) => format!("mysql://{}@localhost/{}{query}", text("user"), text("db")),
                None => format!(
                    "mysql://{}@{}:{}/{}{query}",
                    text("user"),
                    first("host"),
                    first("port"),
                    text("db")
                ),
            }
        }
        _ => format!(
            "postgres://{}@{}:{}/{}",
            text("user"),
            text("host"),
            text("port"),
            text("db")
        ),
    }))
}
