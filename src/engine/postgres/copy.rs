//! COPY ... FROM STDIN through the postgres crate: rows and '|'-delimited lines, the fast
//! path of a load. The SQL and the line form are shared with the libpq connection.

use super::classify;
use super::values::copy_text;
use crate::engine::sql::{Lines, Row};
use anyhow::Result;
use std::io::Write;

/// COPY ... FROM STDIN of '|'-delimited lines, with COPY's `options` after the delimiter.
pub(super) fn copy_delimited(
    client: &mut impl postgres::GenericClient,
    table: &str,
    columns: &[&str],
    lines: Lines,
    options: &str,
) -> Result<u64> {
    copy_in(
        client,
        &delimited_copy(table, columns, options),
        lines,
        |batch, buf| without_line_end_delimiters(batch.as_bytes(), buf),
    )
}

/// The COPY that loads '|'-delimited lines, with COPY's `options` after the delimiter.
pub(super) fn delimited_copy(table: &str, columns: &[&str], options: &str) -> String {
    let columns = columns.join(", ");
    format!("COPY {table} ({columns}) FROM STDIN WITH (DELIMITER '|'{options})")
}

/// Runs a COPY ... FROM STDIN, `write` putting each item into the buffer (and saying how many
/// rows it held); the buffer goes to the server in pieces of about 64 KiB. Returns the rows.
pub(super) fn copy_in<T>(
    client: &mut impl postgres::GenericClient,
    sql: &str,
    items: impl Iterator<Item = T>,
    mut write: impl FnMut(T, &mut Vec<u8>) -> u64,
) -> Result<u64> {
    let mut w = client.copy_in(sql).map_err(classify)?;
    let mut buf = Vec::with_capacity(1 << 17);
    let mut n = 0;
    for item in items {
        n += write(item, &mut buf);
        if buf.len() >= 1 << 16 {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    w.write_all(&buf)?;
    w.finish().map_err(classify)?;
    Ok(n)
}

/// Writes `row` as a line of COPY's text format (tab-separated); one row.
pub(super) fn copy_row(row: Row, buf: &mut Vec<u8>) -> u64 {
    for (i, v) in row.iter().enumerate() {
        if i > 0 {
            buf.push(b'\t');
        }
        copy_text(v, buf);
    }
    buf.push(b'\n');
    1
}

/// Appends `text` to `out` without the '|' that ends each line (COPY would read it as one more,
/// empty, column); returns the lines.
pub(super) fn without_line_end_delimiters(text: &[u8], out: &mut Vec<u8>) -> u64 {
    let mut lines = 0;
    for line in text.split_inclusive(|b| *b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        out.extend_from_slice(body.strip_suffix(b"|").unwrap_or(body));
        out.push(b'\n');
        lines += 1;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sql::SqlValue;

    #[test]
    fn line_end_delimiters_are_dropped() {
        let mut out = Vec::new();
        assert_eq!(
            without_line_end_delimiters(b"1|a b|2.5|\n2|c|3|\n", &mut out),
            2
        );
        assert_eq!(out, b"1|a b|2.5\n2|c|3\n");
    }

    #[test]
    fn copy_text_escapes() {
        let mut out = Vec::new();
        copy_text(&SqlValue::Text("a\tb\\c\n".into()), &mut out);
        assert_eq!(out, b"a\\tb\\\\c\\n");
    }
}
