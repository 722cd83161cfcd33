//! The scripts of a run made ready: read and parsed, every variable given a slot, and checked
//! before any client starts (undefined variables; what the constants alone show wrong).

use super::branch;
use super::eval::{check, Known};
use super::parse::{self, Amount, Branch, Command, Position, ScriptError, Step, Word};
use super::pipeline;
use super::value::Value;
use std::collections::HashMap;

/// One script file: its name (for messages and figures), weight and commands.
#[derive(Clone, Debug)]
pub struct Script {
    pub name: String,
    pub weight: u64,
    pub steps: Vec<Step>,
    /// pgbench's number of each step's command, from 1 (a compound statement is one command).
    pub commands: Vec<usize>,
}

/// A command timed on its own (`-r` lists each): which script, where, and how it reads.
#[derive(Clone, Debug)]
pub struct TimedCommand {
    pub script: usize,
    pub line: usize,
    pub shown: String,
}

/// Every script of a run (those measured, and `--init` and `--cleanup`), sharing one table of
/// variables: `names[slot]`, and each variable's value before any script runs.
#[derive(Clone, Debug)]
pub struct Program {
    pub scripts: Vec<Script>,
    pub init: Option<Script>,
    pub cleanup: Option<Script>,
    pub names: Vec<String>,
    pub initial: Vec<Option<Value>>,
    /// The slot of `:client_id`, which each client sets to its own number.
    pub client_id: usize,
    /// The slot of `:default_seed` when each run derives it from the seed (not `--set`).
    pub default_seed: Option<usize>,
    /// The run's seed (pgbench's `--random-seed`).
    pub seed: u64,
    /// Each variable's slot by name (`\gset` finds its columns' variables here).
    pub slots: HashMap<String, usize>,
    /// The commands of the measured scripts, in order, meta-commands too (as pgbench's -r
    /// lists them); `part_of[script][step]`.
    pub parts: Vec<TimedCommand>,
    pub part_of: Vec<Vec<usize>>,
    /// How each statement goes to the server (pgbench's `-M`).
    pub query_mode: QueryMode,
    /// pgbench's `--verbose-errors`: each lost conflict and what followed it on standard error.
    pub verbose_errors: bool,
    /// Each command's latency taken (pgbench's -r); else no part has figures.
    pub time_commands: bool,
}

/// How a client sends its statements, as pgbench's `-M` names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum QueryMode {
    /// The statement's text with each variable's value written into it (pgbench's default).
    Simple,
    /// Parsed anew each time with the values bound, the extended protocol's unnamed statement
    /// (PostgreSQL only).
    Extended,
    /// Prepared once per client, then run with the values bound (`hakari run script`'s way).
    #[default]
    Prepared,
}

impl QueryMode {
    pub fn name(self) -> &'static str {
        match self {
            QueryMode::Simple => "simple",
            QueryMode::Extended => "extended",
            QueryMode::Prepared => "prepared",
        }
    }
}

/// A script file's name, weight and text.
pub struct Source {
    pub name: String,
    pub weight: u64,
    pub text: String,
}

impl Program {
    /// Parses and checks the scripts; `set` are the `--set` variables, `seed` the run's.
    pub fn new(
        scripts: &[Source],
        init: Option<&Source>,
        cleanup: Option<&Source>,
        set: &[(String, Value)],
        seed: u64,
        allow_shell: bool,
    ) -> Result<Program, ScriptError> {
        let read = |s: &Source| -> Result<Script, ScriptError> {
            let mut steps = parse::parse(&s.name, &s.text)?;
            branch::link(&mut steps)
                .and_then(|()| pipeline::check(&steps))
                .map_err(|(at, message)| ScriptError {
                    file: s.name.clone(),
                    at,
                    message,
                })?;
            let mut number = 0;
            let commands = (steps.iter())
                .map(|step| {
                    let continued = matches!(&step.command, Command::Sql(sql) if sql.joined);
                    number += 1;
                    let this = number;
                    number -= usize::from(continued);
                    this
                })
                .collect();
            Ok(Script {
                name: s.name.clone(),
                weight: s.weight,
                steps,
                commands,
            })
        };
        let parsed: Vec<Script> = scripts.iter().map(read).collect::<Result<_, _>>()?;
        // As pgbench: a script with nothing to run (empty, or only comments) is refused.
        if let Some(empty) = parsed.iter().find(|s| s.steps.is_empty()) {
            return Err(ScriptError {
                file: empty.name.clone(),
                at: Position { line: 1, column: 1 },
                message: "empty command list: the script has no command to run".into(),
            });
        }
        let mut program = Program {
            scripts: parsed,
            init: init.map(read).transpose()?,
            cleanup: cleanup.map(read).transpose()?,
            names: Vec::new(),
            initial: Vec::new(),
            client_id: 0,
            default_seed: None,
            seed,
            slots: HashMap::new(),
            parts: Vec::new(),
            part_of: Vec::new(),
            query_mode: QueryMode::default(),
            verbose_errors: false,
            time_commands: true,
        };
        // pgbench's own variables, then --set (which may replace any of them). :default_seed
        // depends on the number of clients too: each run sets it (Seeding).
        let builtins = [
            ("scale", Value::Int(1)),
            ("client_id", Value::Int(0)),
            ("random_seed", Value::Int(seed as i64)),
            ("default_seed", Value::Int(0)),
        ];
        let mut slots: HashMap<String, usize> = HashMap::new();
        for (name, value) in builtins
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .chain(set.iter().cloned())
        {
            let slot = program.slot(&mut slots, &name);
            program.initial[slot] = Some(value);
        }
        if !allow_shell {
            program.refuse_shell()?;
        }
        program.client_id = slots["client_id"];
        if !set.iter().any(|(name, _)| name == "default_seed") {
            program.default_seed = Some(slots["default_seed"]);
        }
        program.resolve(&mut slots);
        program.slots = slots;
        program.check()?;
        program.list_parts(scripts);
        Ok(program)
    }

    /// `\shell` and `\setshell` run only under `--allow-shell`.
    fn refuse_shell(&self) -> Result<(), ScriptError> {
        let every = (self.scripts.iter()).chain(&self.init).chain(&self.cleanup);
        for script in every {
            let shell = |s: &&Step| matches!(s.command, Command::Shell { .. });
            if let Some(step) = script.steps.iter().find(shell) {
                return Err(ScriptError {
                    file: script.name.clone(),
                    at: step.at,
                    message: "\\shell and \\setshell run shell commands, which hakari runs \
                              only with --allow-shell"
                        .into(),
                });
            }
        }
        Ok(())
    }

    fn slot(&mut self, slots: &mut HashMap<String, usize>, name: &str) -> usize {
        slot_in(&mut self.names, &mut self.initial, slots, name)
    }

    /// Gives every variable any script names its slot.
    fn resolve(&mut self, slots: &mut HashMap<String, usize>) {
        let mut all: Vec<&mut Script> = self.scripts.iter_mut().collect();
        all.extend(self.init.as_mut());
        all.extend(self.cleanup.as_mut());
        let (names, initial) = (&mut self.names, &mut self.initial);
        let mut slot_of = |name: &str| slot_in(names, initial, slots, name);
        for script in all {
            for step in &mut script.steps {
                match &mut step.command {
                    Command::Set { target, expr } => {
                        expr.resolve(&mut slot_of);
                        target.slot = slot_of(&target.name);
                    }
                    Command::Sql(sql) => sql
                        .params
                        .iter_mut()
                        .for_each(|p| p.slot = slot_of(&p.name)),
                    Command::Sleep {
                        amount: Amount::Var(v),
                        ..
                    } => v.slot = slot_of(&v.name),
                    Command::Sleep { .. } => {}
                    Command::Branch(Branch::If { cond, .. } | Branch::Elif { cond, .. }) => {
                        cond.resolve(&mut slot_of)
                    }
                    Command::Branch(_) | Command::Pipeline(_) => {}
                    Command::Shell { target, words } => {
                        target.iter_mut().for_each(|t| t.slot = slot_of(&t.name));
                        for w in words {
                            if let Word::Var(v) = w {
                                v.slot = slot_of(&v.name);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Walks each script in order with what is known of its variables: a variable read before
    /// anything sets it, or an expression the constants already show wrong, is an error here.
    fn check(&self) -> Result<(), ScriptError> {
        let mut all: Vec<&Script> = self.scripts.iter().collect();
        all.extend(self.init.as_ref());
        all.extend(self.cleanup.as_ref());
        for script in all {
            let mut known: Vec<Option<Known>> = self
                .initial
                .iter()
                .map(|v| v.clone().map(Known::Value))
                .collect();
            known[self.client_id] = Some(Known::Int);
            if let Some(slot) = self.default_seed {
                known[slot] = Some(Known::Int);
            }
            let fail = |at: Position, message: String| ScriptError {
                file: script.name.clone(),
                at,
                message,
            };
            let defined = |known: &[Option<Known>], v: &parse::VarRef| {
                known[v.slot].is_some().then_some(()).ok_or_else(|| {
                    fail(
                        v.at,
                        format!(
                            "undefined variable :{} (no \\set before it, no --set)",
                            v.name
                        ),
                    )
                })
            };
            // Inside a conditional block, what fails may be on a path the run never takes, and
            // what a \set gives holds only on its own path: only its being defined is kept.
            let mut depth = 0;
            for step in &script.steps {
                match &step.command {
                    Command::Set { target, expr } if depth > 0 => {
                        let _ = check(expr, &known);
                        known[target.slot] = Some(Known::Any);
                    }
                    Command::Set { target, expr } => {
                        let k = check(expr, &known).map_err(|e| fail(step.at, e))?;
                        known[target.slot] = Some(k);
                    }
                    Command::Branch(b) => {
                        if let Branch::If { cond, .. } = b {
                            if depth == 0 {
                                check(cond, &known).map_err(|e| fail(step.at, e))?;
                            }
                        }
                        match b {
                            Branch::If { .. } => depth += 1,
                            Branch::Endif => depth -= 1,
                            _ => {}
                        }
                    }
                    Command::Sql(sql) if depth == 0 => {
                        for p in &sql.params {
                            defined(&known, p)?;
                        }
                        if sql.store.is_some() {
                            // Its columns, named only by the server, may define any variable.
                            (known.iter_mut().filter(|k| k.is_none()))
                                .for_each(|k| *k = Some(Known::Any));
                        }
                    }
                    Command::Sleep {
                        amount: Amount::Var(v),
                        ..
                    } if depth == 0 => defined(&known, v)?,
                    Command::Sql(sql) => {
                        if sql.store.is_some() {
                            (known.iter_mut().filter(|k| k.is_none()))
                                .for_each(|k| *k = Some(Known::Any));
                        }
                    }
                    Command::Sleep { .. } | Command::Pipeline(_) => {}
                    Command::Shell { target, words } => {
                        for w in words.iter().filter(|_| depth == 0) {
                            if let Word::Var(v) = w {
                                defined(&known, v)?;
                            }
                        }
                        target.iter().for_each(|t| known[t.slot] = Some(Known::Int));
                    }
                }
            }
        }
        Ok(())
    }

    fn list_parts(&mut self, sources: &[Source]) {
        for (i, (script, source)) in self.scripts.iter().zip(sources).enumerate() {
            let mut of: Vec<usize> = Vec::new();
            // The SQL command's text so far (a compound's statements, each `\;` read as pgbench
            // reads it, `;`), and where its last statement ended.
            let (mut command, mut ended) = (String::new(), 0);
            for (k, step) in script.steps.iter().enumerate() {
                let shown = match &step.command {
                    Command::Sql(_) => {
                        if k == 0 || script.commands[k] != script.commands[k - 1] {
                            (command, ended) = (String::new(), step.span.start);
                        }
                        let piece = &source.text[ended..step.span.end];
                        command.push_str(piece.strip_suffix("\\;").unwrap_or(piece));
                        if piece.ends_with("\\;") {
                            command.push(';');
                        }
                        ended = step.span.end;
                        first_line(&command)
                    }
                    // A meta-command reads as written, over all its lines, as pgbench shows it.
                    _ => source.text[step.span.clone()].to_string(),
                };
                // A compound statement's later parts are the same command, timed as one.
                if k > 0 && script.commands[k] == script.commands[k - 1] {
                    let part = of[k - 1];
                    self.parts[part].shown = shown;
                    of.push(part);
                    continue;
                }
                self.parts.push(TimedCommand {
                    script: i,
                    line: step.at.line,
                    shown,
                });
                of.push(self.parts.len() - 1);
            }
            self.part_of.push(of);
        }
    }

    /// A script drawn by weight (`draw` uniform in `[0, total weight)`).
    pub fn pick(&self, draw: u64) -> usize {
        let mut left = draw;
        for (i, s) in self.scripts.iter().enumerate() {
            if left < s.weight {
                return i;
            }
            left -= s.weight;
        }
        self.scripts.len() - 1
    }

    pub fn total_weight(&self) -> u64 {
        self.scripts.iter().map(|s| s.weight).sum()
    }
}

/// How pgbench lists an SQL command (its `-r`): the command's text up to its first line's end,
/// at most 127 bytes.
fn first_line(text: &str) -> String {
    let mut line = text
        .split(['\n', '\r'])
        .next()
        .unwrap_or_default()
        .to_string();
    if line.len() > 127 {
        let mut end = 127;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        line.truncate(end);
    }
    line
}

/// The slot of variable `name`, a new one (with no value yet) the first time it is named.
fn slot_in(
    names: &mut Vec<String>,
    initial: &mut Vec<Option<Value>>,
    slots: &mut HashMap<String, usize>,
    name: &str,
) -> usize {
    *slots.entry(name.to_string()).or_insert_with(|| {
        names.push(name.to_string());
        initial.push(None);
        names.len() - 1
    })
}
