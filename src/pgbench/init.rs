//! `pgbench -i`: pgbench's four tables made and filled as pgbench 15 makes them, step by step
//! (`-I`): d drops them, t creates them (fillfactor, unlogged, pgbench_accounts partitioned),
//! g fills them from the client (COPY), G on the server (INSERT ... SELECT generate_series), v
//! vacuums and analyzes, p adds the primary keys, f the foreign keys. The statements are
//! pgbench's; `tests/pgbench_cli.rs` compares the tables with those pgbench makes.

use crate::engine::sql::SqlConnection;
use anyhow::{bail, Context, Result};
use std::time::Instant;

/// How pgbench_accounts is partitioned (`--partition-method`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Partitioning {
    Range,
    Hash,
}

/// What `-i` was given.
#[derive(Clone, Debug)]
pub struct Init {
    /// `-I`: the steps in order, from "dtgGvpf" (spaces ignored).
    pub steps: String,
    pub scale: u32,
    pub fillfactor: u32,
    pub partitions: u32,
    pub partitioning: Option<Partitioning>,
    pub unlogged: bool,
    /// `-q`: progress every 5 s, not every 100,000 rows.
    pub quiet: bool,
    /// `--tablespace`: where the tables are made.
    pub tablespace: Option<String>,
    /// `--index-tablespace`: where the primary keys' indexes are made.
    pub index_tablespace: Option<String>,
}

/// ` tablespace "name"` for a tablespace given, the name quoted as pgbench quotes it
/// (PQescapeIdentifier); "" for none.
fn in_tablespace(clause: &str, name: &Option<String>) -> String {
    name.as_ref().map_or(String::new(), |n| {
        format!(" {clause} \"{}\"", n.replace('"', "\"\""))
    })
}

const BRANCHES: i64 = 1;
const TELLERS: i64 = 10;
const ACCOUNTS: i64 = 100_000;
/// From this scale on, account ids are bigint (pgbench's SCALE_32BIT_THRESHOLD).
const BIGINT_SCALE: u32 = 20_000;
const STEPS: &str = "dtgGvpf";
const TABLES: &str = "pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers";

/// Runs the steps on `c`, printing pgbench's lines to stderr and the time of each at the end.
pub fn run(init: &Init, c: &mut dyn SqlConnection) -> Result<()> {
    check(init)?;
    let mut times = Vec::new();
    let mut total = 0.0;
    for step in init.steps.chars().filter(|&s| s != ' ') {
        let started = Instant::now();
        let name = match step {
            'd' => {
                eprintln!("dropping old tables...");
                c.execute(&format!("drop table if exists {TABLES}"))?;
                "drop tables"
            }
            't' => {
                create(init, c)?;
                "create tables"
            }
            'g' => {
                eprintln!("generating data (client-side)...");
                in_transaction(c, |c| generate(init, c))?;
                "client-side generate"
            }
            'G' => {
                eprintln!("generating data (server-side)...");
                in_transaction(c, |c| generate_on_server(init, c))?;
                "server-side generate"
            }
            'v' => {
                eprintln!("vacuuming...");
                for table in ["branches", "tellers", "accounts", "history"] {
                    c.execute(&format!("vacuum analyze pgbench_{table}"))?;
                }
                "vacuum"
            }
            'p' => {
                eprintln!("creating primary keys...");
                for (table, key) in [("branches", "bid"), ("tellers", "tid"), ("accounts", "aid")] {
                    c.execute(&format!(
                        "alter table pgbench_{table} add primary key ({key}){}",
                        in_tablespace("using index tablespace", &init.index_tablespace)
                    ))?;
                }
                "primary keys"
            }
            'f' => {
                eprintln!("creating foreign keys...");
                for (table, key, to) in [
                    ("tellers", "bid", "branches"),
                    ("accounts", "bid", "branches"),
                    ("history", "bid", "branches"),
                    ("history", "tid", "tellers"),
                    ("history", "aid", "accounts"),
                ] {
                    c.execute(&format!(
                        "alter table pgbench_{table} add constraint pgbench_{table}_{key}_fkey \
                         foreign key ({key}) references pgbench_{to}"
                    ))?;
                }
                "foreign keys"
            }
            _ => unreachable!("checked above"),
        };
        let seconds = started.elapsed().as_secs_f64();
        total += seconds;
        times.push(format!("{name} {seconds:.2} s"));
    }
    eprintln!("done in {total:.2} s ({}).", times.join(", "));
    Ok(())
}

/// Refuses what pgbench refuses before it starts.
fn check(init: &Init) -> Result<()> {
    if init.steps.trim().is_empty() {
        bail!("no initialization steps specified");
    }
    if let Some(bad) = init.steps.chars().find(|&s| s != ' ' && !STEPS.contains(s)) {
        bail!(
            "unrecognized initialization step \"{bad}\" (allowed step characters are: \"{STEPS}\")"
        );
    }
    if init.partitioning.is_some() && init.partitions == 0 {
        bail!("--partition-method requires greater than zero --partitions");
    }
    Ok(())
}

/// The partitioning of pgbench_accounts, when it has partitions.
fn partitioning(init: &Init) -> Option<Partitioning> {
    (init.partitions > 0).then(|| init.partitioning.unwrap_or(Partitioning::Range))
}

fn create(init: &Init, c: &mut dyn SqlConnection) -> Result<()> {
    eprintln!("creating tables...");
    let aid = if init.scale >= BIGINT_SCALE {
        "bigint"
    } else {
        "int"
    };
    let parted = partitioning(init);
    // pgbench's columns; history's filler is never filled, the others' only in accounts.
    let tables = [
        (
            "history",
            format!("tid int,bid int,aid {aid},delta int,mtime timestamp,filler char(22)"),
            false,
        ),
        (
            "tellers",
            "tid int not null,bid int,tbalance int,filler char(84)".to_string(),
            true,
        ),
        (
            "accounts",
            format!("aid {aid} not null,bid int,abalance int,filler char(84)"),
            true,
        ),
        (
            "branches",
            "bid int not null,bbalance int,filler char(88)".to_string(),
            true,
        ),
    ];
    // pgbench 15 makes every table unlogged, the partitioned pgbench_accounts too (later
    // versions leave a partitioned table logged, its partitions unlogged).
    let unlogged = if init.unlogged { " unlogged" } else { "" };
    for (table, columns, fillfactor) in tables {
        let mut sql = format!("create{unlogged} table pgbench_{table}({columns})");
        match parted {
            Some(method) if table == "accounts" => {
                sql.push_str(&format!(" partition by {} (aid)", method_name(method)))
            }
            _ if fillfactor => sql.push_str(&format!(" with (fillfactor={})", init.fillfactor)),
            _ => {}
        }
        // A partitioned pgbench_accounts' partitions are made in its tablespace.
        sql.push_str(&in_tablespace("tablespace", &init.tablespace));
        c.execute(&sql).with_context(|| sql.clone())?;
    }
    if let Some(method) = parted {
        create_partitions(init, method, c)?;
    }
    Ok(())
}

fn method_name(method: Partitioning) -> &'static str {
    match method {
        Partitioning::Range => "range",
        Partitioning::Hash => "hash",
    }
}

/// pgbench_accounts' partitions: ranges of equal size (the first and last open-ended), or
/// hash remainders.
fn create_partitions(init: &Init, method: Partitioning, c: &mut dyn SqlConnection) -> Result<()> {
    let n = init.partitions as i64;
    eprintln!("creating {n} partitions...");
    let unlogged = if init.unlogged { " unlogged" } else { "" };
    let size = (ACCOUNTS * init.scale as i64 + n - 1) / n;
    for p in 1..=n {
        let bounds = match method {
            Partitioning::Range => {
                let from = match p {
                    1 => "minvalue".to_string(),
                    _ => ((p - 1) * size + 1).to_string(),
                };
                let to = match p < n {
                    true => (p * size + 1).to_string(),
                    false => "maxvalue".to_string(),
                };
                format!("for values from ({from}) to ({to})")
            }
            Partitioning::Hash => format!("for values with (modulus {n}, remainder {})", p - 1),
        };
        let sql = format!(
            "create{unlogged} table pgbench_accounts_{p}\n  partition of pgbench_accounts\n  {bounds} with (fillfactor={})",
            init.fillfactor
        );
        c.execute(&sql).with_context(|| sql.clone())?;
    }
    Ok(())
}

/// Runs `body` in one transaction, as pgbench generates (the server's loading optimisations
/// need the tables emptied in the same transaction).
fn in_transaction(
    c: &mut dyn SqlConnection,
    body: impl FnOnce(&mut dyn SqlConnection) -> Result<()>,
) -> Result<()> {
    c.begin()?;
    match c
        .execute(&format!("truncate table {TABLES}"))
        .and_then(|_| body(&mut *c))
    {
        Ok(()) => c.commit(),
        Err(e) => {
            let _ = c.rollback();
            Err(e)
        }
    }
}

/// Client-side generation: the rows sent with COPY, the branches' and tellers' filler NULL,
/// the accounts' an empty string (blank-padded by CHAR).
fn generate(init: &Init, c: &mut dyn SqlConnection) -> Result<()> {
    let scale = init.scale as i64;
    let tables: [(&str, &[&str], i64, Option<i64>); 3] = [
        ("branches", &["bid", "bbalance", "filler"], BRANCHES, None),
        (
            "tellers",
            &["tid", "bid", "tbalance", "filler"],
            TELLERS,
            Some(TELLERS),
        ),
        (
            "accounts",
            &["aid", "bid", "abalance", "filler"],
            ACCOUNTS,
            Some(ACCOUNTS),
        ),
    ];
    for (table, columns, per_scale, per_branch) in tables {
        let total = per_scale * scale;
        let table = format!("pgbench_{table}");
        let mut progress = Progress::new(&table, total, init.quiet);
        let mut lines = lines(total, per_branch).inspect(|batch| progress.add(batch.1));
        let mut texts = std::iter::from_fn(|| lines.next().map(|(text, _)| text));
        c.bulk_load_delimited(&table, columns, &mut texts)?;
    }
    Ok(())
}

/// Rows 1..=total as '|'-delimited lines in batches of 10,000, with how many each holds: the
/// id, its branch (`per_branch` rows to a branch; none for the branches), a zero balance and
/// the filler (NULL for branches and tellers, empty for accounts).
fn lines(total: i64, per_branch: Option<i64>) -> impl Iterator<Item = (String, i64)> {
    use std::fmt::Write;
    const BATCH: i64 = 10_000;
    (1..=total).step_by(BATCH as usize).map(move |from| {
        let last = (from + BATCH - 1).min(total);
        let mut text = String::with_capacity(BATCH as usize * 24);
        for id in from..=last {
            match per_branch {
                Some(ACCOUNTS) => writeln!(text, "{id}|{}|0||", (id - 1) / ACCOUNTS + 1),
                Some(per) => writeln!(text, "{id}|{}|0|\\N|", (id - 1) / per + 1),
                None => writeln!(text, "{id}|0|\\N|"),
            }
            .expect("writing to a String");
        }
        (text, last - from + 1)
    })
}

/// Server-side generation: pgbench's three INSERT ... SELECT statements.
fn generate_on_server(init: &Init, c: &mut dyn SqlConnection) -> Result<()> {
    let scale = init.scale as i64;
    for sql in [
        format!(
            "insert into pgbench_branches(bid,bbalance) select bid, 0 from generate_series(1, {}) as bid",
            BRANCHES * scale
        ),
        format!(
            "insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / {TELLERS} + 1, 0 from generate_series(1, {}) as tid",
            TELLERS * scale
        ),
        format!(
            "insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / {ACCOUNTS} + 1, 0, '' from generate_series(1, {}) as aid",
            ACCOUNTS * scale
        ),
    ] {
        c.execute(&sql)?;
    }
    Ok(())
}

/// pgbench's progress lines while it generates: every 100,000 rows, or with -q every 5 s.
struct Progress<'t> {
    table: &'t str,
    total: i64,
    done: i64,
    quiet: bool,
    started: Instant,
    next_report: f64,
}

impl<'t> Progress<'t> {
    fn new(table: &'t str, total: i64, quiet: bool) -> Progress<'t> {
        Progress {
            table,
            total,
            done: 0,
            quiet,
            started: Instant::now(),
            next_report: 5.0,
        }
    }

    fn add(&mut self, rows: i64) {
        let before = self.done;
        self.done += rows;
        let elapsed = self.started.elapsed().as_secs_f64();
        let due = match self.quiet {
            false => self.done / 100_000 > before / 100_000,
            true => elapsed >= self.next_report || self.done == self.total,
        };
        if !due || self.done < 100_000 && !self.quiet {
            return;
        }
        if self.quiet {
            self.next_report = (elapsed / 5.0).ceil() * 5.0;
        }
        let remaining = (self.total - self.done) as f64 * elapsed / self.done as f64;
        eprintln!(
            "{} of {} tuples ({}%) of {} done (elapsed {elapsed:.2} s, remaining {remaining:.2} s)",
            self.done,
            self.total,
            self.done * 100 / self.total,
            self.table
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_pgbench_rows_in_batches() {
        let accounts: Vec<_> = lines(100_001, Some(ACCOUNTS)).collect();
        assert_eq!(accounts.len(), 11);
        assert!(accounts[0].0.starts_with("1|1|0||\n2|1|0||\n"));
        assert_eq!(accounts[10], ("100001|2|0||\n".to_string(), 1));
        let tellers: Vec<_> = lines(20, Some(TELLERS)).collect();
        assert!(tellers[0].0.ends_with("10|1|0|\\N|\n11|2|0|\\N|\n12|2|0|\\N|\n13|2|0|\\N|\n14|2|0|\\N|\n15|2|0|\\N|\n16|2|0|\\N|\n17|2|0|\\N|\n18|2|0|\\N|\n19|2|0|\\N|\n20|2|0|\\N|\n"));
        assert_eq!(
            lines(3, None).next().unwrap().0,
            "1|0|\\N|\n2|0|\\N|\n3|0|\\N|\n"
        );
    }

    #[test]
    fn bad_steps_and_partitioning_are_refused() {
        let init = |steps: &str, partitions, partitioning| Init {
            steps: steps.into(),
            scale: 1,
            fillfactor: 100,
            partitions,
            partitioning,
            unlogged: false,
            quiet: false,
            tablespace: None,
            index_tablespace: None,
        };
        assert!(check(&init("dtgvp", 0, None)).is_ok());
        assert!(check(&init("dt x", 0, None))
            .unwrap_err()
            .to_string()
            .contains("\"x\""));
        assert!(check(&init("  ", 0, None)).is_err());
        assert!(check(&init("dt", 0, Some(Partitioning::Hash))).is_err());
        assert_eq!(
            partitioning(&init("dt", 3, None)),
            Some(Partitioning::Range)
        );
    }
}
