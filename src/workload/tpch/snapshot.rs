//! Every statement the tpch workload sends, for the statement snapshot test (the 22 queries with
//! the qualification parameters; their templates are files already).

use super::*;
use crate::workload::statement_log::{StatementLog, DIALECTS};

pub(crate) fn statements() -> String {
    let mut log = StatementLog::default();
    let set = refresh::RefreshSet {
        set: 1,
        orders: Vec::new(),
        lineitems: Vec::new(),
        delete_keys: (1..=3).collect(),
    };
    for dialect in DIALECTS {
        log.note(format!("== tpch {}", dialect.name()));
        for s in data::drop_statements()
            .into_iter()
            .chain(data::schema(dialect))
            .chain(data::key_statements(dialect, Default::default()))
        {
            log.note(s);
        }
        log.dialect = dialect;
        for table in data::TABLES {
            crate::workload::sql::gather_statistics(&mut log, table).unwrap();
        }
        refresh::rf1(&mut log, &set).unwrap();
        let _ = refresh::rf2(&mut log, &set);
        let _ = refresh::counts(&mut log);
        for q in 1..=22u8 {
            log.note(
                queries::render(q, &queries::validation_params(q), dialect, 0)
                    .unwrap()
                    .join(";\n"),
            );
        }
    }
    log.take()
}
