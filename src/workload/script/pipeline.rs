//! pgbench's pipelines: `\startpipeline`, `\syncpipeline` and `\endpipeline`. The structure
//! errors pgbench meets in its run are found here, before any client starts.

use super::parse::{Command, Pipeline, Position, Step};

/// Checks that pipelines open and close in order and hold no `\gset` or `\aset` (their
/// results come only at the sync point); or the first error, with where it is, in pgbench's
/// words.
pub fn check(steps: &[Step]) -> Result<(), (Position, String)> {
    let mut open: Option<Position> = None;
    for step in steps {
        let error = |what: &str| Err((step.at, what.to_string()));
        match &step.command {
            Command::Pipeline(Pipeline::Start) if open.is_some() => {
                return error("\\startpipeline: already in pipeline mode")
            }
            Command::Pipeline(Pipeline::Start) => open = Some(step.at),
            Command::Pipeline(p) if open.is_none() => {
                let word = if *p == Pipeline::Sync { "sync" } else { "end" };
                return error(&format!("\\{word}pipeline: not in pipeline mode"));
            }
            Command::Pipeline(Pipeline::End) => open = None,
            Command::Sql(sql) if open.is_some() => match &sql.store {
                Some(s) if s.any_rows => return error("\\aset is not allowed in pipeline mode"),
                Some(_) => return error("\\gset is not allowed in pipeline mode"),
                None => {}
            },
            _ => {}
        }
    }
    match open {
        Some(at) => Err((at, "end of script reached with pipeline open".into())),
        None => Ok(()),
    }
}
