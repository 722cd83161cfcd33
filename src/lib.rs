//! hakari (秤, "a balance for weighing"): measures database engines the way the classic white
//! papers did, on the user's own machine.
//!
//! Layout (ARCHITECTURE.md walks it): `cli` (the command line: parsing only), `commands` (what
//! each command does), `run` (the run lifecycle every workload shares), `workload` (the contract
//! and one folder per workload, with its view), `workloads` (the registry of workloads), `engine` (the registry and one module per engine), `measure`
//! (the timing core: knows no engine or workload), `results` (schema, environment, files),
//! `results_table` (a database as the place clients leave their results: `--out URL`),
//! `report` (tables, charts, HTML), `crashtest`, `server` (private servers).

pub mod cli;
pub mod commands;
pub mod crashtest;
pub mod durability;
pub mod engine;
pub mod errors;
pub mod measure;
pub mod output;
pub mod owned;
pub mod pgbench;
pub mod process;
pub mod report;
pub mod results;
pub mod results_table;
pub mod run;
pub mod run_faults;
pub mod server;
pub mod shard;
pub mod signals;
pub mod units;
pub mod workload;
pub mod workloads;
