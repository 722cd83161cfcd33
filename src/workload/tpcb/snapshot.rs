//! Every statement the tpcb workload sends, for the statement snapshot test.

use super::*;
use crate::workload::statement_log::{StatementLog, DIALECTS};

pub(crate) fn statements() -> String {
    let mut log = StatementLog::default();
    let mut params = presets::default_params();
    params.branches = 1;
    params.tellers_per_branch = 2;
    params.accounts_per_branch = 3;
    for dialect in DIALECTS {
        log.note(format!("== tpcb {}", dialect.name()));
        log.dialect = dialect;
        tables::create(&log, 0).unwrap();
        tables::load(&params, &log, 0, 1..=1).unwrap();
        tables::finish(&log, 0).unwrap();
        let _ = check_consistency(&log, 1);
        tables::drop_all(&log, 2).unwrap();
        for s in super::statements(TRANSACTION, 1) {
            log.note(format!("transaction: {s}"));
        }
    }
    log.take()
}
