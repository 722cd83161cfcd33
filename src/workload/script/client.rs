//! One client running scripts on its own connection: variables, statements prepared once,
//! transaction control through the engine, and retries of a whole script after a
//! serialization failure or deadlock (with the same random draws, as pgbench retries).

use super::branch;
use super::eval::{eval, truth};
use super::parse::{Amount, Command, Control, Pipeline, Sql, Step, Store, VarRef, Word};
use super::program::{Program, QueryMode, Script};
use super::random::{Prng, Seeding};
use super::value::{self, Value};
use crate::engine::kv::is_conflict;
use crate::engine::sql::{SqlConnection, SqlValue, Stmt};
use crate::measure::multiplex;
use crate::measure::runner::Turn;
use anyhow::{anyhow, Context, Result};
use std::time::{Duration, Instant};

/// A script that lost every one of its tries to conflicts.
#[derive(Debug)]
pub struct Exhausted {
    pub retries: u64,
    /// The last try lost to a deadlock (else to a serialization failure), as pgbench's
    /// `--failures-detailed` tells them apart.
    pub deadlock: bool,
}

impl std::fmt::Display for Exhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "failed after {} tries", self.retries + 1)
    }
}

impl std::error::Error for Exhausted {}

/// When a lost conflict may be tried again, as pgbench decides: fewer tries than `max_tries`
/// (0: no limit), within the latency limit from the transaction's intended start, before the
/// run's end (after it, the transaction is [`Abandoned`]).
pub struct Retry {
    pub max_tries: u64,
    pub latency_limit: Option<Duration>,
    pub turn: Turn,
}

impl Retry {
    fn allows(&self, tries: u64) -> bool {
        let now = Instant::now();
        (self.max_tries == 0 || tries < self.max_tries)
            && (self.latency_limit).is_none_or(|l| now - self.turn.intended <= l)
    }

    /// The run has ended: a transaction in flight is left, as pgbench leaves it.
    fn over(&self) -> bool {
        self.turn.ends.is_some_and(|end| Instant::now() >= end)
    }

    /// pgbench's `try 2/3`, with the share of the latency limit used under one.
    fn said(&self, tries: u64) -> String {
        let mut text = format!("try {tries}");
        if self.max_tries > 0 {
            text.push_str(&format!("/{}", self.max_tries));
        }
        if let Some(limit) = self.latency_limit {
            let used = self.turn.intended.elapsed().as_secs_f64() / limit.as_secs_f64();
            text.push_str(&format!(
                ", {:.3}% of the maximum time of tries was used",
                100.0 * used
            ));
        }
        text
    }
}

/// A transaction that lost a try after the run's end: neither done nor failed, as pgbench,
/// which stops at the end, leaves one in flight.
#[derive(Debug)]
pub struct Abandoned;

impl std::fmt::Display for Abandoned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("lost a try after the run's end")
    }
}

impl std::error::Error for Abandoned {}

/// Whether a lost conflict was a deadlock: PostgreSQL's SQLSTATE 40P01, MariaDB/MySQL's error
/// 1213.
fn deadlocked(e: &anyhow::Error) -> bool {
    (e.downcast_ref::<crate::engine::sql::ServerError>())
        .is_some_and(|s| s.state == "40P01" || s.code == 1213)
}

pub struct Client<'p> {
    program: &'p Program,
    /// Its number, from 0.
    id: usize,
    /// The command of the script the last try failed at (pgbench's command number).
    failed_at: usize,
    conn: Box<dyn SqlConnection>,
    /// Its connection speaks PostgreSQL's protocol (read once, not per statement).
    extended_protocol: bool,
    /// The prepared statement of each SQL step, by script and step (None: run unprepared).
    statements: Vec<Vec<Option<Stmt>>>,
    vars: Vec<Option<Value>>,
    /// Draws of the random functions (pgbench's client generator).
    rng: Prng,
    /// Draws of which script runs next (pgbench's thread generator for the choice).
    pub choice: Prng,
    in_transaction: bool,
    /// Inside a compound statement (`\;`), and whether hakari opened its implicit transaction.
    compound: bool,
    implicit: bool,
    /// Inside a pipeline: the statements sent at its next sync point, with their values.
    pipeline: Option<Vec<(String, Vec<SqlValue>)>>,
    params: Vec<SqlValue>,
    /// (part, nanoseconds) of each command the last script run ran, in all its tries (as
    /// pgbench's -r times them).
    pub part_times: Vec<(usize, u64)>,
    /// The part each lost try of the last script run lost at, and whether it was the last try
    /// (the transaction failed there) or one retried (pgbench's -r failures and retries).
    pub lost: Vec<(usize, bool)>,
}

impl<'p> Client<'p> {
    /// A client for `--init` and `--cleanup`: number 0, nothing prepared ahead (the tables
    /// its statements name may not exist yet).
    pub fn untimed(program: &'p Program, conn: Box<dyn SqlConnection>) -> Client<'p> {
        let seeding = Seeding::new(program.seed, 1, program.default_seed.is_some());
        Client::with(program, conn, 0, &seeding, Vec::new())
    }

    /// A client numbered `id` with its statements of the measured scripts prepared, drawing
    /// what pgbench's client `id` draws under `seeding`.
    pub fn new(
        program: &'p Program,
        mut conn: Box<dyn SqlConnection>,
        id: usize,
        seeding: &Seeding,
    ) -> Result<Client<'p>> {
        let statements = prepare(program, conn.as_mut())?;
        Ok(Client::with(program, conn, id, seeding, statements))
    }

    /// Goes on on connection `conn`, its statements prepared there (pgbench's -C: a connection
    /// per transaction); the variables and random draws go on as they were.
    pub fn reconnect(&mut self, mut conn: Box<dyn SqlConnection>) -> Result<()> {
        self.statements = prepare(self.program, conn.as_mut())?;
        self.extended_protocol = conn.capabilities().extended_protocol;
        self.conn = conn;
        Ok(())
    }
}

/// The prepared statement of each SQL step of the measured scripts on `conn`, by script and
/// step (None: run unprepared, or transaction control through the engine).
fn prepare(program: &Program, conn: &mut dyn SqlConnection) -> Result<Vec<Vec<Option<Stmt>>>> {
    let mut statements = Vec::new();
    for script in &program.scripts {
        let piped = script
            .steps
            .iter()
            .find(|s| matches!(s.command, Command::Pipeline(_)));
        if let (Some(step), false) = (piped, conn.capabilities().extended_protocol) {
            anyhow::bail!(
                "{}:{}: a pipeline (\\startpipeline) needs PostgreSQL's protocol, which only \
                     the postgres engine speaks to hakari",
                script.name,
                step.at.line
            );
        }
        let mut of = Vec::new();
        // A pipeline's statements are sent as text at its sync point, never prepared.
        let mut piped = false;
        // Under -M simple and extended only a query whose columns `\gset` stores is prepared:
        // the names of its columns come with the statement.
        let simple = program.query_mode != QueryMode::Prepared;
        // As pgbench under -M prepared: BEGIN and END prepared too, where the engine's protocol
        // has them so (elsewhere they go through the engine's own begin and commit).
        let control = !simple && conn.capabilities().extended_protocol;
        for step in &script.steps {
            if let Command::Pipeline(p) = step.command {
                piped = p != Pipeline::End;
            }
            of.push(match &step.command {
                Command::Sql(sql)
                    if (control || sql.control.is_none())
                        && !piped
                        && (!simple || sql.store.is_some()) =>
                {
                    Some(conn.prepare(&sql.text).with_context(|| {
                        format!("{}:{}: {}", script.name, step.at.line, sql.shown)
                    })?)
                }
                _ => None,
            });
        }
        statements.push(of);
    }
    Ok(statements)
}

impl<'p> Client<'p> {
    fn with(
        program: &'p Program,
        conn: Box<dyn SqlConnection>,
        id: usize,
        seeding: &Seeding,
        statements: Vec<Vec<Option<Stmt>>>,
    ) -> Client<'p> {
        let mut vars = program.initial.clone();
        vars[program.client_id] = Some(Value::Int(id as i64));
        if let (Some(slot), Some(seed)) = (program.default_seed, seeding.default_seed) {
            vars[slot] = Some(Value::Int(seed));
        }
        Client {
            program,
            id,
            failed_at: 0,
            extended_protocol: conn.capabilities().extended_protocol,
            conn,
            statements,
            vars,
            rng: seeding.functions[id].clone(),
            choice: seeding.choices[id].clone(),
            in_transaction: false,
            compound: false,
            implicit: false,
            pipeline: None,
            params: Vec::new(),
            part_times: Vec::new(),
            lost: Vec::new(),
        }
    }

    /// Runs measured script `index` to its end, retrying it whole when it loses a conflict, as
    /// long as `retry` allows; returns the retries, or [`Exhausted`].
    pub fn run(&mut self, index: usize, retry: &Retry) -> Result<u64> {
        let program = self.program;
        let script = &program.scripts[index];
        let saved = self.rng.clone();
        let mut retries = 0;
        self.lost.clear();
        self.part_times.clear();
        loop {
            match self.attempt(script, Some(index)) {
                Ok(()) => return Ok(retries),
                Err(e) => {
                    self.end_failed_transaction();
                    if !is_conflict(&e) {
                        return Err(e);
                    }
                    if retry.over() {
                        return Err(Abandoned.into());
                    }
                    let last = !retry.allows(retries + 1);
                    self.lost
                        .push((program.part_of[index][self.failed_at], last));
                    if program.verbose_errors {
                        self.say_lost(index, &e, &retry.said(retries + 1), last);
                    }
                    if last {
                        let deadlock = deadlocked(&e);
                        return Err(Exhausted { retries, deadlock }.into());
                    }
                    retries += 1;
                    back_off(retries);
                    self.rng = saved.clone();
                }
            }
        }
    }

    /// pgbench's `--verbose-errors` lines for a conflict lost at try `tried` (`try 2/3`).
    fn say_lost(&self, script: usize, e: &anyhow::Error, tried: &str, last: bool) {
        let said = match e.downcast_ref::<crate::engine::sql::ServerError>() {
            Some(s) => format!("ERROR:  {}{}", s.message, s.details),
            None => format!("{e:#}"),
        };
        // pgbench's command number, from 0 (a compound statement is one command).
        let command = self.program.scripts[script].commands[self.failed_at] - 1;
        let id = self.id;
        let next = match last {
            false => "repeats the transaction after the error",
            true => "ends the failed transaction",
        };
        eprintln!(
            "pgbench: client {id} got an error in command {command} (SQL) of script {script}; {said}\n\
             pgbench: client {id} {next} ({tried})"
        );
    }

    /// Runs an untimed script once (`--init`, `--cleanup`): statements without variables as
    /// they are, the others prepared for this one use.
    pub fn run_once(&mut self, script: &Script) -> Result<()> {
        let outcome = self.attempt(script, None);
        if outcome.is_err() {
            self.end_failed_transaction();
        }
        outcome
    }

    fn end_failed_transaction(&mut self) {
        (self.compound, self.implicit, self.pipeline) = (false, false, None);
        if std::mem::take(&mut self.in_transaction) {
            // The statement failed; the rollback's own error adds nothing to it.
            let _ = self.conn.rollback();
        }
    }

    fn attempt(&mut self, script: &Script, measured: Option<usize>) -> Result<()> {
        let mut i = 0;
        // This try's commands' times begin here (the earlier tries' stay, each its own).
        let first_timed = self.part_times.len();
        while let Some(step) = script.steps.get(i) {
            super::eval::at(measured.unwrap_or(0), script.commands[i]);
            if let Command::Branch(_) = step.command {
                let (vars, rng) = (&self.vars, &mut self.rng);
                i = branch::next(&script.steps, i, |cond| {
                    eval(cond, vars, rng).map(|v| truth(&v))
                })
                .map_err(|e| anyhow!("{}:{}: {e}", script.name, step.at.line))?;
                continue;
            }
            let started = self.program.time_commands.then(Instant::now);
            let prepared = measured.and_then(|m| self.statements[m][i]);
            self.failed_at = i;
            self.step(step, prepared)
                .map_err(|e| match is_conflict(&e) {
                    true => e,
                    false => e.context(format!("{}:{}", script.name, step.at.line)),
                })?;
            if let (Some(m), Some(started)) = (measured, started) {
                let (part, nanos) = (self.program.part_of[m][i], started.elapsed().as_nanos());
                match self.part_times[first_timed..].last_mut() {
                    // A compound statement's next part: one command, timed as one.
                    Some((last, sum)) if *last == part => *sum += nanos as u64,
                    _ => self.part_times.push((part, nanos as u64)),
                }
            }
            i += 1;
        }
        if self.pipeline.is_some() {
            anyhow::bail!("{}: end of script reached with pipeline open", script.name);
        }
        Ok(())
    }

    fn step(&mut self, step: &Step, prepared: Option<Stmt>) -> Result<()> {
        match &step.command {
            Command::Set { target, expr } => {
                let v = eval(expr, &self.vars, &mut self.rng).map_err(|e| anyhow!(e))?;
                self.vars[target.slot] = Some(v);
            }
            Command::Sleep { amount, micros } => {
                let n = match amount {
                    Amount::Fixed(n) => *n,
                    Amount::Var(v) => match self.vars[v.slot].as_ref().map(Value::in_expression) {
                        Some(Ok(Value::Int(n))) => n,
                        _ => anyhow::bail!("\\sleep :{} is not a whole number", v.name),
                    },
                };
                multiplex::sleep(Duration::from_micros(n.max(0) as u64 * micros));
            }
            // Conditionals are stepped through in `attempt`.
            Command::Branch(_) => {}
            Command::Shell { target, words } => self.shell(target.as_ref(), words)?,
            Command::Pipeline(p) => self.pipeline(*p)?,
            Command::Sql(sql) if self.pipeline.is_some() => self.queue(sql)?,
            Command::Sql(sql) => {
                self.enter_compound(sql)?;
                self.statement(sql, prepared)
                    .map_err(|e| match is_conflict(&e) {
                        true => e,
                        false => e.context(sql.shown.clone()),
                    })?;
                self.leave_compound(sql)?;
            }
        }
        Ok(())
    }

    /// Runs one SQL statement: transaction control through the engine, any other statement
    /// prepared (or as it is, when it has neither variables nor `\gset`).
    fn statement(&mut self, sql: &Sql, prepared: Option<Stmt>) -> Result<()> {
        match sql.control {
            // A BEGIN inside a compound makes its implicit transaction explicit.
            Some(Control::Begin) if self.implicit => self.implicit = false,
            // To a server of PostgreSQL's protocol the script's own text goes as pgbench sends
            // it: its prepared statement (-M prepared), the unnamed statement (-M extended), a
            // simple query (-M simple). Elsewhere through the engine's begin and commit.
            Some(control) if prepared.is_some() || self.extended_protocol => {
                let opens = matches!(control, Control::Begin | Control::Open);
                (self.in_transaction, self.implicit) = (opens, self.implicit && opens);
                match (prepared, self.program.query_mode) {
                    (Some(stmt), _) => self.conn.run_prepared(stmt, &[])?,
                    (None, QueryMode::Extended) => {
                        self.conn.query_unnamed(&sql.text, &[], &mut |_| {})?
                    }
                    (None, _) => self.conn.execute(&sql.text)?,
                };
            }
            Some(Control::Begin) => {
                self.conn.begin()?;
                self.in_transaction = true;
            }
            Some(Control::Open) => {
                self.conn.execute(&sql.text)?;
                self.in_transaction = true;
            }
            Some(Control::Commit) => {
                (self.in_transaction, self.implicit) = (false, false);
                self.conn.commit()?;
            }
            Some(Control::Rollback) => {
                (self.in_transaction, self.implicit) = (false, false);
                self.conn.rollback()?;
            }
            None => {
                self.bind(sql)?;
                let stmt = match prepared {
                    Some(stmt) => stmt,
                    None if self.program.query_mode == QueryMode::Extended
                        && sql.store.is_none() =>
                    {
                        let sql = &sql.text;
                        return self
                            .conn
                            .query_unnamed(sql, &self.params, &mut |_| {})
                            .map(drop);
                    }
                    None if self.program.query_mode == QueryMode::Simple && sql.store.is_none() => {
                        let text = value::literal(&sql.text, &sql.params, &self.vars);
                        return self.conn.execute(&text).map(drop);
                    }
                    None if sql.params.is_empty() && sql.store.is_none() => {
                        return self.conn.execute(&sql.text).map(drop);
                    }
                    None => self.conn.prepare(&sql.text)?,
                };
                match &sql.store {
                    None => self.conn.run_prepared(stmt, &self.params).map(drop)?,
                    Some(store) => self.store(stmt, store)?,
                }
            }
        }
        Ok(())
    }

    /// The values of the statement's variables into `params`.
    fn bind(&mut self, sql: &Sql) -> Result<()> {
        self.params.clear();
        for p in &sql.params {
            match &self.vars[p.slot] {
                Some(v) => self.params.push(v.to_sql()),
                None => anyhow::bail!("undefined variable :{}", p.name),
            }
        }
        Ok(())
    }

    /// At a compound's first statement (`\;` after it), outside a transaction: opens the
    /// implicit transaction the compound runs in, as the server runs a multi-statement query.
    fn enter_compound(&mut self, sql: &Sql) -> Result<()> {
        if sql.joined && !std::mem::replace(&mut self.compound, true) && !self.in_transaction {
            self.conn.begin()?;
            (self.in_transaction, self.implicit) = (true, true);
        }
        Ok(())
    }

    /// After a compound's last statement: commits its implicit transaction.
    fn leave_compound(&mut self, sql: &Sql) -> Result<()> {
        if !sql.joined && std::mem::take(&mut self.compound) && std::mem::take(&mut self.implicit) {
            self.in_transaction = false;
            self.conn.commit()?;
        }
        Ok(())
    }

    /// `\startpipeline`, `\syncpipeline` (sends what was queued) or `\endpipeline` (sends it
    /// and leaves the pipeline).
    fn pipeline(&mut self, p: Pipeline) -> Result<()> {
        match (p, &mut self.pipeline) {
            (Pipeline::Start, None) => self.pipeline = Some(Vec::new()),
            (Pipeline::Start, Some(_)) => anyhow::bail!("already in pipeline mode"),
            (_, None) => anyhow::bail!("not in pipeline mode"),
            (_, Some(batch)) => {
                let batch = std::mem::take(batch);
                if !batch.is_empty() {
                    self.conn.send_pipeline(&batch)?;
                }
                if p == Pipeline::End {
                    self.pipeline = None;
                }
            }
        }
        Ok(())
    }

    /// A statement inside a pipeline: queued with its variables' values of now, for the next
    /// sync point; the transaction it opens or ends is followed as the server will.
    fn queue(&mut self, sql: &Sql) -> Result<()> {
        if sql.store.is_some() {
            anyhow::bail!("\\gset and \\aset are not allowed in pipeline mode");
        }
        match sql.control {
            Some(Control::Begin | Control::Open) => self.in_transaction = true,
            Some(_) => self.in_transaction = false,
            None => {}
        }
        self.bind(sql)?;
        let params = self.params.clone();
        if let Some(batch) = &mut self.pipeline {
            batch.push((sql.text.clone(), params));
        }
        Ok(())
    }

    /// Runs `\shell` (its exit status must be 0) or `\setshell` (its first line of output,
    /// an integer, into `target`) through `sh -c`, as pgbench runs them through the shell.
    fn shell(&mut self, target: Option<&VarRef>, words: &[Word]) -> Result<()> {
        let mut line = Vec::new();
        for word in words {
            line.push(match word {
                Word::Text(text) => text.clone(),
                Word::Var(v) => match &self.vars[v.slot] {
                    Some(Value::Null) => "NULL".into(),
                    Some(value) => value.to_string(),
                    None => anyhow::bail!("undefined variable :{}", v.name),
                },
            });
        }
        let line = line.join(" ");
        let mut command = std::process::Command::new("sh");
        command.arg("-c").arg(&line);
        let Some(target) = target else {
            let status = command
                .status()
                .with_context(|| format!("\\shell {line}"))?;
            anyhow::ensure!(status.success(), "\\shell {line}: {status}");
            return Ok(());
        };
        command.stderr(std::process::Stdio::inherit());
        let out = command
            .output()
            .with_context(|| format!("\\setshell {line}"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let first = text.lines().next().unwrap_or("");
        let n: i64 = first.trim_end().parse().map_err(|_| {
            anyhow!("\\setshell {line}: the command must print an integer (not \"{first}\")")
        })?;
        self.vars[target.slot] = Some(Value::Int(n));
        Ok(())
    }

    /// Runs query `stmt` under `\gset` or `\aset`: its row's columns into the variables of
    /// their names (the last row under `\aset`, nothing when it has none). pgbench keeps them as
    /// text, NULL as an empty string; typed values read the same in expressions.
    fn store(&mut self, stmt: Stmt, store: &Store) -> Result<()> {
        let columns = self.conn.columns(stmt)?;
        let mut last = None;
        let rows = (self.conn).query_prepared(stmt, &self.params, &mut |row| {
            last = Some(row.to_vec());
        })?;
        if !store.any_rows && rows != 1 {
            anyhow::bail!("\\gset: expected one row, got {rows}");
        }
        for (name, value) in columns.iter().zip(last.unwrap_or_default()) {
            let name = format!("{}{name}", store.prefix);
            if let Some(&slot) = self.program.slots.get(&name) {
                self.vars[slot] = Some(Value::stored(value));
            }
        }
        Ok(())
    }
}

/// Waits a little before a retry, longer after each: the lock's holder may need the core.
fn back_off(retries: u64) {
    match retries {
        0..3 => multiplex::yield_now(),
        _ => multiplex::sleep(Duration::from_micros((retries * 100).min(10_000))),
    }
}
