//! `hakari engines`: what this build has, as tables for people or rows for scripts.

use super::rows::Rows;
use super::table::Table;
use crate::durability::Durability;
use crate::engine::{self, Engine, KvEngine, Named, SqlEngine};
use serde_json::Value;

/// The key-value family: the kv workload's engines, then the caches.
fn kv_family() -> Vec<Named<dyn KvEngine>> {
    engine::all()
        .into_iter()
        .filter_map(Engine::as_kv)
        .collect()
}

fn is_cache(e: Named<dyn KvEngine>) -> bool {
    !e.ordered_scan()
}

/// The workloads that run on an engine (the workload registry's answer, which the command
/// passes in: the report knows no workload).
pub type Workloads<'a> = &'a dyn Fn(Engine) -> Vec<&'static str>;

/// The tables `hakari engines` prints: each family's engines and durability mapping, then the
/// ODBC drivers the odbc engine can reach databases through.
pub fn tables(workloads: Workloads) -> Vec<Table> {
    let kv_family = kv_family();
    let mut kv = Table::new(
        "Key-value engines in this build",
        [
            "engine",
            "version",
            "durability levels offered",
            "workloads",
            "bulk read",
            "built with",
        ]
        .map(String::from)
        .to_vec(),
        6,
    );
    for &e in &kv_family {
        kv.row(vec![
            e.name().into(),
            e.version(),
            Engine::Kv(e)
                .offered()
                .iter()
                .map(|d| d.name())
                .collect::<Vec<_>>()
                .join(", "),
            workloads(Engine::Kv(e)).join(", "),
            if e.has_bulk_read() {
                "bulk buffer"
            } else if is_cache(e) {
                "none (a cache: no ordered scan)"
            } else {
                "cursor"
            }
            .into(),
            e.built_with(),
        ]);
    }
    let mut kv_map = mapping_table("Durability mapping");
    for &e in &kv_family {
        mapping_rows(&mut kv_map, e.name(), |d| e.mapping(d));
    }
    let mut sql = Table::new(
        "SQL engines in this build (servers: --url, or a private server when the binaries are installed)",
        ["engine", "dialect", "durability levels offered", "workloads"]
            .map(String::from)
            .to_vec(),
        4,
    );
    for e in engine::sql_engines() {
        let levels: Vec<&str> = Engine::Sql(e).offered().iter().map(|d| d.name()).collect();
        sql.row(vec![
            e.name().into(),
            dialect_name(e).into(),
            levels.join(", "),
            workloads(Engine::Sql(e)).join(", "),
        ]);
    }
    for (name, feature) in engine::not_built() {
        sql.row(vec![
            name.into(),
            "-".into(),
            format!("optional, not in this build (scripts/setup.sh, then cargo build --release --features {feature})"),
            String::new(),
        ]);
    }
    let mut sql_map = mapping_table("SQL durability mapping");
    for e in engine::sql_engines() {
        mapping_rows(&mut sql_map, e.name(), |d| e.mapping(d));
    }
    let mut replication = Table::new(
        "Replication: loopback clusters hakari starts (every node on this machine)",
        [
            "engine",
            "flags",
            "a commit waits for, beyond the local log",
        ]
        .map(String::from)
        .to_vec(),
        3,
    );
    for e in engine::sql_engines() {
        for kind in Engine::Sql(e).topologies() {
            let (flags, waits) = kind.describe();
            replication.row(vec![e.name().into(), flags.into(), waits.into()]);
        }
    }
    let mut drivers = Table::new(
        "ODBC drivers installed (unixODBC's odbcinst.ini): --engine odbc --url 'odbc:Driver={NAME};...'",
        vec!["driver".to_string()],
        1,
    );
    for name in engine::odbc::installed_drivers() {
        drivers.row(vec![name]);
    }
    vec![kv, kv_map, sql, sql_map, replication, drivers]
}

/// The dialect an engine speaks, or where it comes from when the database decides it.
fn dialect_name(e: Named<dyn SqlEngine>) -> &'static str {
    e.dialect().map_or("the driver's DBMS", |d| d.name())
}

fn mapping_table(title: &str) -> Table {
    Table::new(
        format!("{title} (what each level sets, or why it is not offered)"),
        ["engine", "level", "mapping"].map(String::from).to_vec(),
        3,
    )
}

/// One row per durability level: what it sets on `engine`, or why it is not offered.
fn mapping_rows(
    table: &mut Table,
    engine: &str,
    mapping: impl Fn(Durability) -> std::result::Result<String, String>,
) {
    for d in Durability::ALL {
        let text = mapping(d).unwrap_or_else(|why| format!("not offered: {why}"));
        table.row(vec![engine.into(), d.name().into(), text]);
    }
}

/// One row per engine and durability level: family, version or dialect, whether the level is
/// offered, and what it sets or why not.
pub fn rows(workloads: Workloads) -> Rows {
    let mut rows = Rows::new(&[
        "engine",
        "family",
        "version",
        "dialect",
        "workloads",
        "built",
        "level",
        "offered",
        "mapping",
    ]);
    let mut push =
        |engine: Engine,
         family: &str,
         version: Value,
         dialect: Value,
         mapping: &dyn Fn(Durability) -> std::result::Result<String, String>| {
            let taking = Value::from(workloads(engine));
            for d in Durability::ALL {
                let m = mapping(d);
                rows.push(vec![
                    ("engine".into(), Value::from(engine.name())),
                    ("family".into(), Value::from(family)),
                    ("version".into(), version.clone()),
                    ("dialect".into(), dialect.clone()),
                    ("workloads".into(), taking.clone()),
                    ("built".into(), Value::from(true)),
                    ("level".into(), Value::from(d.name())),
                    ("offered".into(), Value::from(m.is_ok())),
                    ("mapping".into(), Value::from(m.unwrap_or_else(|why| why))),
                ]);
            }
        };
    for e in kv_family() {
        let family = if is_cache(e) { "cache" } else { "key-value" };
        push(
            Engine::Kv(e),
            family,
            Value::from(e.version()),
            Value::Null,
            &|d| e.mapping(d),
        );
    }
    for e in engine::sql_engines() {
        push(
            Engine::Sql(e),
            "sql",
            Value::Null,
            Value::from(dialect_name(e)),
            &|d| e.mapping(d),
        );
    }
    for (name, feature) in engine::not_built() {
        rows.push(vec![
            ("engine".into(), Value::from(name)),
            ("family".into(), Value::from("sql")),
            ("built".into(), Value::from(false)),
            (
                "mapping".into(),
                Value::from(format!(
                    "optional, not in this build (cargo feature {feature})"
                )),
            ),
        ]);
    }
    rows
}
