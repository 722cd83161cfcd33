//! The kv view: the records' shape, then throughput per step with the papers' figures beneath.

use crate::report::parts;
use crate::report::view::{Part, Verdict, View};
use crate::results::RunResult;

/// The kv section.
pub struct KvView;

impl View for KvView {
    fn parts(&self, r: &RunResult, verdicts: &[Verdict]) -> Vec<Part> {
        let mut all = vec![
            Part::Terminal(kv_records_line(r)),
            Part::Terminal(crate::report::terminal::throughput_table(r)),
            parts::throughput_page(r, verdicts),
        ];
        all.extend(parts::timing(r));
        all
    }
}

/// The kv records' shape: sizes, where the number sits in the key, transaction grouping.
fn kv_records_line(r: &RunResult) -> String {
    let p = |k: &str| {
        r.parameters.get(k).map(|v| {
            v.as_str()
                .map(String::from)
                .unwrap_or_else(|| v.to_string())
        })
    };
    format!(
        "records: {}-byte keys ({}), {}-byte values, batches of {}, one transaction per {}\n",
        p("key_size").unwrap_or_default(),
        // Runs made before the layout was a choice had the number last.
        p("key_layout").unwrap_or_else(|| "number-last".into()),
        p("value_size").unwrap_or_default(),
        p("batch_size").unwrap_or_default(),
        p("txn_size").unwrap_or_default(),
    )
}
