//! Every statement the session workload sends to a SQL engine, for the statement snapshot test.

use super::*;
use crate::workload::statement_log::{StatementLog, DIALECTS};

pub(crate) fn statements() -> String {
    let log = StatementLog::default();
    for dialect in DIALECTS {
        let store = SessionStore::Sql {
            db: Box::new(log.clone()),
            dialect,
        };
        for layout in [Layout::Blob, Layout::Chunked] {
            log.note(format!("== session {} {}", dialect.name(), layout.name()));
            store.create(layout).unwrap();
            let mut client = store.client(layout).unwrap();
            client.write("s1", &vec![7u8; 9000]).unwrap();
            let _ = client.read("s1", &mut Vec::new());
            client.remove("s1").unwrap();
            drop(client);
            store.drop_layout(layout).unwrap();
        }
    }
    log.take()
}
