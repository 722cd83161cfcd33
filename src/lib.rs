//! hakari (秤, "a balance for weighing"): measures database engines the way the classic white
//! papers did, on the user's own machine.
//!
//! Layout: `measure` (timing core, knows no engine or workload), `engine` (traits + one module per
//! engine), `workload` (one folder per workload), `results` (schema, environment, files),
//! `report` (tables), `cli` (the command line).

pub mod cli;
pub mod crashtest;
pub mod durability;
pub mod engine;
pub mod errors;
pub mod measure;
pub mod output;
pub mod report;
pub mod results;
pub mod server;
pub mod units;
pub mod workload;
