//! sysbench's bulk inserts (`bulk_insert_init`, `bulk_insert_next`, `bulk_insert_done`: how
//! `prepare` fills its tables). sysbench gathers the rows into multi-row INSERTs of about
//! 512 KiB. Where the engine has a delimited bulk path (COPY, LOAD DATA) and the INSERT names
//! its columns, hakari sends each row of plain literals through the loader's delimited sink and
//! that path instead, a chunk at a time: the same rows, the way the engine takes them fastest.
//! A row it cannot read as literals (an expression, a character the text form cannot carry)
//! goes, with every row after it, into INSERTs as sysbench sends them.

use crate::engine::sql::SqlConnection;
use crate::workload::load::{Delimited, Forms, Sink};

/// Chunks of about this many bytes, as sysbench's 512 KiB packets.
const BULK_BYTES: usize = 512 * 1024;

/// A bulk insert under way.
pub struct Bulk {
    head: String,
    /// The INSERT gathered so far: `head` and its rows.
    text: String,
    rows: usize,
    /// The rows as delimited text, while every row has been literals.
    delimited: Option<Loaded>,
    /// The last delimited rows, to be sent before the first INSERT.
    ended: Option<Chunk>,
}

/// The rows for the engine's delimited bulk path.
struct Loaded {
    table: String,
    columns: Vec<String>,
    sink: Delimited,
}

impl Loaded {
    fn sink() -> Delimited {
        Delimited::new(Forms::default(), BULK_BYTES + BULK_BYTES / 8)
    }
    /// The rows gathered, if any.
    fn chunk(self) -> Option<Chunk> {
        (self.sink.rows > 0).then_some(Chunk::Delimited {
            table: self.table,
            columns: self.columns,
            text: self.sink.text,
        })
    }
}

/// What is sent: rows as delimited text, or an INSERT.
pub enum Chunk {
    Delimited {
        table: String,
        columns: Vec<String>,
        text: String,
    },
    Insert(String),
}

impl Chunk {
    /// Sends the chunk on `c`; returns the rows it stored.
    pub fn send(self, c: &mut dyn SqlConnection) -> anyhow::Result<u64> {
        match self {
            Chunk::Delimited {
                table,
                columns,
                text,
            } => {
                let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
                c.bulk_load_delimited(&table, &columns, &mut std::iter::once(text))
            }
            Chunk::Insert(sql) => c.execute(&sql),
        }
    }
}

impl Bulk {
    /// A bulk insert of `head` (`INSERT INTO t(a, b) VALUES`); `delimited` where the engine
    /// loads delimited text.
    pub fn new(head: String, delimited: bool) -> Bulk {
        let loaded = match delimited {
            true => target(&head).map(|(table, columns)| Loaded {
                table,
                columns,
                sink: Loaded::sink(),
            }),
            false => None,
        };
        Bulk {
            text: head.clone(),
            head,
            rows: 0,
            delimited: loaded,
            ended: None,
        }
    }

    /// Adds `row` (`(1, 'a')`); true once a chunk is full.
    pub fn add(&mut self, row: &str) -> bool {
        if let Some(loaded) = self.delimited.as_mut() {
            if literals(row, loaded.columns.len(), &mut loaded.sink) {
                return loaded.sink.text.len() >= BULK_BYTES;
            }
            // This row and the rest go as INSERTs, once the rows before it are sent.
            self.ended = self.delimited.take().and_then(Loaded::chunk);
        }
        if self.rows > 0 {
            self.text.push(',');
        }
        self.text.push_str(row);
        self.rows += 1;
        self.text.len() >= BULK_BYTES || self.ended.is_some()
    }

    /// The chunks gathered, in order, to be sent now.
    pub fn take(&mut self) -> Vec<Chunk> {
        let mut out = Vec::new();
        out.extend(self.ended.take());
        if let Some(loaded) = self.delimited.as_mut() {
            let next = Loaded {
                table: loaded.table.clone(),
                columns: loaded.columns.clone(),
                sink: Loaded::sink(),
            };
            out.extend(std::mem::replace(loaded, next).chunk());
        }
        if self.rows > 0 {
            out.push(Chunk::Insert(std::mem::replace(
                &mut self.text,
                self.head.clone(),
            )));
            self.rows = 0;
        }
        out
    }
}

/// The table and columns of `INSERT INTO t(a, b) VALUES`, None for any other head.
fn target(head: &str) -> Option<(String, Vec<String>)> {
    let rest = strip_word(head.trim(), "INSERT")?;
    let rest = strip_word(rest, "INTO")?;
    let (table, rest) = rest.split_once('(')?;
    let (columns, rest) = rest.split_once(')')?;
    strip_word(rest.trim_start(), "VALUES").filter(|r| r.trim().is_empty())?;
    let table = table.trim();
    let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    let columns: Vec<String> = columns.split(',').map(|c| c.trim().to_string()).collect();
    (plain(table) && columns.iter().all(|c| plain(c))).then(|| (table.to_string(), columns))
}

/// `text` after its leading `word` (any case) and the blanks after it.
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let head = text.get(..word.len())?;
    head.eq_ignore_ascii_case(word)
        .then(|| text[word.len()..].trim_start())
}

/// Writes the `columns` values of `row` (`(1, 'a', NULL)`) into `sink` as one row; false, with
/// nothing written, where a value is not a plain literal the delimited text can carry.
fn literals(row: &str, columns: usize, sink: &mut Delimited) -> bool {
    let Some(inner) = (row.trim())
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
    else {
        return false;
    };
    let mut values = Vec::with_capacity(columns);
    let mut rest = inner.trim_start();
    loop {
        let (value, after) = match rest.strip_prefix('\'') {
            Some(quoted) => match quoted.find('\'') {
                Some(end) => (Value::Text(&quoted[..end]), &quoted[end + 1..]),
                None => return false,
            },
            None => {
                let end = rest.find(',').unwrap_or(rest.len());
                let token = rest[..end].trim();
                let value = match token.parse::<i64>() {
                    Ok(n) => Value::Int(n),
                    Err(_) if token.eq_ignore_ascii_case("NULL") => Value::Null,
                    Err(_) => return false,
                };
                (value, &rest[end..])
            }
        };
        if let Value::Text(t) = value {
            // A quote, backslash, delimiter or line break inside would need escapes.
            if t.contains(['\\', '|', '\n', '\r']) || after.starts_with('\'') {
                return false;
            }
        }
        values.push(value);
        let after = after.trim_start();
        match after.strip_prefix(',') {
            Some(next) => rest = next.trim_start(),
            None if after.is_empty() => break,
            None => return false,
        }
    }
    if values.len() != columns {
        return false;
    }
    for value in values {
        match value {
            Value::Int(n) => sink.int(n),
            Value::Null => sink.null(),
            Value::Text(t) => sink.text(|s| s.push_str(t)),
        }
    }
    sink.end();
    true
}

enum Value<'a> {
    Int(i64),
    Null,
    Text(&'a str),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_rows_go_delimited_and_the_rest_as_inserts() {
        let head = "INSERT INTO sbtest1(k, c, pad) VALUES";
        assert_eq!(
            target(head),
            Some(("sbtest1".into(), vec!["k".into(), "c".into(), "pad".into()]))
        );
        assert_eq!(target("INSERT INTO sbtest1 VALUES"), None);
        let mut bulk = Bulk::new(head.into(), true);
        assert!(!bulk.add("(4993, '83868-41912', '67847-96737')"));
        assert!(!bulk.add("( -1 ,'', NULL )"));
        assert!(bulk.add("(now(), 'x', 'y')"));
        let chunks = bulk.take();
        let [Chunk::Delimited { text, .. }, Chunk::Insert(sql)] = &chunks[..] else {
            panic!("a delimited chunk, then an INSERT");
        };
        assert_eq!(text, "4993|83868-41912|67847-96737|\n-1||\\N|\n");
        assert_eq!(
            sql,
            "INSERT INTO sbtest1(k, c, pad) VALUES(now(), 'x', 'y')"
        );
        assert!(!bulk.add("(5, 'a', 'b')"));
        assert!(matches!(&bulk.take()[..], [Chunk::Insert(_)]));
        assert!(bulk.take().is_empty());
        for odd in [
            "(1, 'it''s', 'x')",
            "(1, 'a|b', 'x')",
            "(1, 2)",
            "1, 'a', 'b'",
        ] {
            let mut sink = Delimited::new(Forms::default(), 0);
            assert!(!literals(odd, 3, &mut sink), "{odd}");
            assert!(sink.text.is_empty(), "{odd}");
        }
        let mut plain = Bulk::new(head.into(), false);
        plain.add("(1, 'a', 'b')");
        assert!(matches!(&plain.take()[..], [Chunk::Insert(_)]));
    }
}
