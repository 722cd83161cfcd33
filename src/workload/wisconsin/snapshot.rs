//! Every statement the wisconsin workload sends, for the statement snapshot test.

use super::queries::{Kind, RunConstants};
use super::*;
use crate::workload::statement_log::{StatementLog, DIALECTS};

pub(crate) fn statements() -> String {
    let mut log = StatementLog::default();
    for dialect in DIALECTS {
        log.note(format!("== wisconsin {}", dialect.name()));
        // The load stops at its row-count check (the log returns no rows): its statements are in.
        log.dialect = dialect;
        let _ = load(&mut log, 1000);
        build_indexes(&mut log, dialect).unwrap();
        drop_tables(&mut log).unwrap();
    }
    for q in queries::QUERIES.iter() {
        for run in 0..3 {
            let c = RunConstants::draw(q, 1000, run, 5);
            let s = queries::sql(q, 1000, &c);
            log.note(format!("== {} run {run}", q.step()));
            log.note(format!("select: {}", s.select));
            log.note(format!("count: {}", s.count));
            for x in &s.setup {
                log.note(format!("setup: {x}"));
            }
            for x in &s.undo {
                log.note(format!("undo: {x}"));
            }
        }
        if let Kind::Select(shape) = q.kind {
            let ddl = queries::tmp_ddl(shape, crate::engine::sql::Dialect::Standard);
            log.note(format!("result relation: {ddl}"));
        }
    }
    log.take()
}
