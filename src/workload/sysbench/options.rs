//! sysbench's command line: `--name=value` options (a `-` and a `_` in a name are the same
//! letter, as in sysbench), sysbench's own and those a script declares in
//! `sysbench.cmdline.options`, and the commands after the script. Values become
//! `sysbench.opt.*` typed as sysbench types them.

use anyhow::{bail, Result};
use serde::Serialize;
use std::collections::BTreeMap;

/// How an option's value is typed in `sysbench.opt`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Type {
    Bool,
    Int,
    Double,
    Size,
    Text,
    List,
}

/// One option: its name (with `_`), default and type.
#[derive(Clone, Debug, Serialize)]
pub struct Declared {
    pub name: String,
    pub default: Option<String>,
    pub kind: Type,
    pub about: String,
}

/// What hakari does with one of sysbench's own options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Own {
    /// hakari honours it (its run, its engine, its random numbers).
    Taken,
    /// A credential, which hakari never takes from its command line.
    Secret,
    /// Something hakari does not do; given with another value than its default, it is refused.
    Refused(&'static str),
}

/// sysbench 1.0.20's own options: (name, default, type, what hakari does with it).
const OWN: &[(&str, Option<&str>, Type, Own)] = &[
    ("threads", Some("1"), Type::Int, Own::Taken),
    ("events", Some("0"), Type::Int, Own::Taken),
    ("time", Some("10"), Type::Int, Own::Taken),
    ("rate", Some("0"), Type::Int, Own::Taken),
    ("report-interval", Some("0"), Type::Int, Own::Taken),
    ("percentile", Some("95"), Type::Int, Own::Taken),
    ("warmup-time", Some("0"), Type::Int, Own::Taken),
    ("rand-type", Some("special"), Type::Text, Own::Taken),
    ("rand-spec-iter", Some("12"), Type::Int, Own::Taken),
    ("rand-spec-pct", Some("1"), Type::Int, Own::Taken),
    ("rand-spec-res", Some("75"), Type::Int, Own::Taken),
    ("rand-seed", Some("0"), Type::Int, Own::Taken),
    ("rand-pareto-h", Some("0.2"), Type::Double, Own::Taken),
    ("db-driver", Some("mysql"), Type::Text, Own::Taken),
    (
        "db-ps-mode",
        Some("auto"),
        Type::Text,
        Own::Refused("hakari always prepares what the script prepares"),
    ),
    (
        "db-debug",
        Some("off"),
        Type::Bool,
        Own::Refused("no driver trace"),
    ),
    ("mysql-host", Some("localhost"), Type::List, Own::Taken),
    ("mysql-port", Some("3306"), Type::List, Own::Taken),
    ("mysql-socket", None, Type::List, Own::Taken),
    ("mysql-user", Some("sbtest"), Type::Text, Own::Taken),
    ("mysql-password", Some(""), Type::Text, Own::Secret),
    ("mysql-db", Some("sbtest"), Type::Text, Own::Taken),
    ("mysql-ssl", Some("off"), Type::Bool, Own::Taken),
    (
        "mysql-ssl-cipher",
        Some(""),
        Type::Text,
        Own::Refused("rustls chooses the cipher"),
    ),
    (
        "mysql-compression",
        Some("off"),
        Type::Bool,
        Own::Refused("no protocol compression"),
    ),
    (
        "mysql-debug",
        Some("off"),
        Type::Bool,
        Own::Refused("no client library trace"),
    ),
    (
        "mysql-ignore-errors",
        Some("1213,1020,1205"),
        Type::List,
        Own::Taken,
    ),
    (
        "mysql-dry-run",
        Some("off"),
        Type::Bool,
        Own::Refused("every statement is sent"),
    ),
    ("pgsql-host", Some("localhost"), Type::Text, Own::Taken),
    ("pgsql-port", Some("5432"), Type::Int, Own::Taken),
    ("pgsql-user", Some("sbtest"), Type::Text, Own::Taken),
    ("pgsql-password", Some(""), Type::Text, Own::Secret),
    ("pgsql-db", Some("sbtest"), Type::Text, Own::Taken),
    (
        "histogram",
        Some("off"),
        Type::Bool,
        Own::Refused("hakari keeps the whole histogram (--hlog writes it)"),
    ),
    (
        "forced-shutdown",
        Some("off"),
        Type::Text,
        Own::Refused("a run ends when its time is up"),
    ),
    (
        "thread-stack-size",
        Some("64K"),
        Type::Size,
        Own::Refused("threads keep Rust's stack"),
    ),
    (
        "thread-init-timeout",
        Some("30"),
        Type::Int,
        Own::Refused("no thread start timeout"),
    ),
    (
        "validate",
        Some("off"),
        Type::Bool,
        Own::Refused("nothing to validate"),
    ),
    (
        "debug",
        Some("off"),
        Type::Bool,
        Own::Refused("no debug trace"),
    ),
    (
        "verbosity",
        Some("3"),
        Type::Int,
        Own::Refused("one verbosity"),
    ),
    (
        "report-checkpoints",
        Some(""),
        Type::List,
        Own::Refused("--interval lines and --hlog cover it"),
    ),
    (
        "luajit-cmd",
        None,
        Type::Text,
        Own::Refused("LuaJIT runs with its defaults"),
    ),
    ("tx-rate", Some("0"), Type::Int, Own::Refused("use --rate")),
    (
        "max-requests",
        Some("0"),
        Type::Int,
        Own::Refused("use --events"),
    ),
    ("max-time", Some("0"), Type::Int, Own::Refused("use --time")),
];

/// The letters of a name as sysbench compares them.
pub fn normal(name: &str) -> String {
    name.replace('-', "_")
}

/// sysbench's own options, as declared options.
pub fn own() -> Vec<Declared> {
    (OWN.iter())
        .map(|&(name, default, kind, _)| Declared {
            name: normal(name),
            default: default.map(str::to_string),
            kind,
            about: String::new(),
        })
        .collect()
}

fn own_rule(name: &str) -> Option<(Option<&'static str>, Own)> {
    (OWN.iter())
        .find(|(n, ..)| normal(n) == name)
        .map(|&(_, default, _, own)| (default, own))
}

/// A command line after the script: options and commands, in order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Given {
    /// By normal name, as typed (a bare `--flag` is `on`).
    pub values: BTreeMap<String, String>,
    pub commands: Vec<String>,
}

impl Given {
    pub fn parse(args: &[String]) -> Result<Given> {
        let mut given = Given::default();
        for arg in args {
            match arg.strip_prefix("--") {
                Some(option) => {
                    let (name, value) = option.split_once('=').unwrap_or((option, "on"));
                    if name.is_empty() {
                        bail!("'{arg}': an option is --name=value");
                    }
                    let name = normal(name);
                    match own_rule(&name) {
                        Some((_, Own::Secret)) => bail!(
                            "--{}: hakari takes no password on its command line; it reads \
                             the password where the client library keeps it (MYSQL_PWD or \
                             ~/.my.cnf for MariaDB/MySQL, PGPASSWORD or ~/.pgpass for \
                             PostgreSQL)",
                            name.replace('_', "-")
                        ),
                        Some((default, Own::Refused(why))) if default != Some(value) => bail!(
                            "--{}={value} is not supported by hakari's sysbench: {why}",
                            name.replace('_', "-")
                        ),
                        _ => {}
                    }
                    given.values.insert(name, value.to_string());
                }
                None if arg.starts_with('-') => {
                    bail!("'{arg}': sysbench's options are written --name=value")
                }
                None => given.commands.push(arg.clone()),
            }
        }
        Ok(given)
    }

    /// A value given or its default, as text.
    pub fn text(&self, name: &str) -> Option<String> {
        let name = normal(name);
        (self.values.get(&name).cloned())
            .or_else(|| own_rule(&name).and_then(|(d, _)| d.map(str::to_string)))
    }

    /// A number given or its default.
    pub fn number(&self, name: &str) -> Result<f64> {
        let text = self.text(name).unwrap_or_default();
        text.trim()
            .parse::<f64>()
            .map_err(|_| anyhow::anyhow!("--{name}={text}: a number is expected"))
    }

    pub fn flag(&self, name: &str) -> Result<bool> {
        parse_bool(name, &self.text(name).unwrap_or_default())
    }

    /// The options given that neither sysbench nor the script declares (when the script
    /// declares its options; one that declares none takes any, as sysbench's legacy API).
    pub fn unknown(&self, declared: &[Declared]) -> Vec<String> {
        (self.values.keys())
            .filter(|n| own_rule(n).is_none() && !declared.iter().any(|d| &d.name == *n))
            .map(|n| format!("--{}", n.replace('_', "-")))
            .collect()
    }
}

pub fn parse_bool(name: &str, text: &str) -> Result<bool> {
    match text.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" | "" => Ok(false),
        _ => bail!("--{name}={text}: on or off is expected"),
    }
}

/// An option's value as `sysbench.opt` holds it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Number(f64),
    Text(String),
    List(Vec<String>),
}

/// Every declared option's value (given, else default), typed; options with no value and no
/// default are left out (sysbench exports them as empty text; `nil` tests read the same).
pub fn values(declared: &[Declared], given: &Given) -> Result<Vec<(String, Value)>> {
    let mut out = Vec::new();
    for d in declared {
        let Some(text) = given.values.get(&d.name).cloned().or(d.default.clone()) else {
            out.push((d.name.clone(), Value::Text(String::new())));
            continue;
        };
        let value = match d.kind {
            Type::Bool => Value::Bool(parse_bool(&d.name, &text)?),
            Type::Int | Type::Double => {
                Value::Number(text.trim().parse::<f64>().map_err(|_| {
                    anyhow::anyhow!(
                        "--{}={text}: a number is expected",
                        d.name.replace('_', "-")
                    )
                })?)
            }
            Type::Size => Value::Number(crate::units::parse_size(&text)? as f64),
            Type::Text => Value::Text(text),
            Type::List => Value::List(
                (text.split(','))
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            ),
        };
        out.push((d.name.clone(), value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_and_commands_are_told_apart() {
        let g = Given::parse(&args(&["--table-size=10", "--skip_trx", "prepare", "run"])).unwrap();
        assert_eq!(g.values["table_size"], "10");
        assert_eq!(g.values["skip_trx"], "on");
        assert_eq!(g.commands, ["prepare", "run"]);
        assert_eq!(g.text("mysql-db").as_deref(), Some("sbtest"));
    }

    #[test]
    fn passwords_and_what_hakari_does_not_do_are_refused() {
        let e = Given::parse(&args(&["--mysql-password=x"])).unwrap_err();
        assert!(e.to_string().contains("~/.my.cnf"), "{e}");
        assert!(Given::parse(&args(&["--db-ps-mode=disable"])).is_err());
        assert!(Given::parse(&args(&["--db-ps-mode=auto"])).is_ok());
        assert!(Given::parse(&args(&["-x"])).is_err());
    }
}
