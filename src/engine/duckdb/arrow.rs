//! Arrow record batches into a DuckDB table through its Appender. The batches come in Arrow 60
//! (tpchgen-arrow's); the duckdb crate speaks Arrow 58. Each batch crosses over by Arrow's C data
//! interface, the ABI made for handing arrays between libraries: no copy, no per-value work.

use super::values::classify;
use crate::engine::sql::ArrowStream;
use ::duckdb::arrow as arrow58;
use ::duckdb::Connection;
use anyhow::{bail, Context, Result};
use arrow58::array::StructArray;
use arrow58::datatypes::{DataType, Field, Schema};
use arrow58::record_batch::RecordBatch;
use std::collections::HashMap;
use std::sync::Arc;

/// Appends each stream to `table` through an Appender of its own, on a connection and thread of
/// its own, so DuckDB compresses the row groups (most of a load's work) on every core. Each
/// connection's transaction is committed in the streams' order once every stream is in; when
/// one fails, every one is rolled back. (Separate transactions: a COMMIT that itself fails
/// leaves the streams committed before it in.) Returns the rows appended.
pub(super) fn append_streams(
    conn: &Connection,
    table: &str,
    streams: Vec<ArrowStream>,
) -> Result<u64> {
    let types = column_types(conn, table)?;
    let connections = streams
        .iter()
        .map(|_| conn.try_clone().map_err(classify))
        .collect::<Result<Vec<_>>>()?;
    let appended: Vec<Result<(Connection, u64)>> = std::thread::scope(|scope| {
        let running: Vec<_> = connections
            .into_iter()
            .zip(streams)
            .map(|(c, stream)| {
                let types = &types;
                scope.spawn(move || {
                    c.execute_batch("BEGIN").map_err(classify)?;
                    let n = append(&c, table, stream, types)?;
                    Ok((c, n))
                })
            })
            .collect();
        running
            .into_iter()
            .map(|r| {
                r.join()
                    .unwrap_or_else(|_| bail!("a thread loading {table} panicked"))
            })
            .collect()
    });
    if let Some(e) = appended.iter().find_map(|r| r.as_ref().err()) {
        let e = anyhow::anyhow!("{e:#}");
        for (c, _) in appended.into_iter().flatten() {
            let _ = c.execute_batch("ROLLBACK");
        }
        return Err(e);
    }
    let mut rows = 0;
    for (c, n) in appended.into_iter().flatten() {
        c.execute_batch("COMMIT").map_err(classify)?;
        rows += n;
    }
    Ok(rows)
}

/// Appends one stream's batches to `table`; returns the rows appended.
fn append(
    conn: &Connection,
    table: &str,
    stream: ArrowStream,
    types: &HashMap<String, DataType>,
) -> Result<u64> {
    let mut appender = None;
    let mut n = 0;
    for batch in stream {
        let batch = cast_to(to_arrow58(batch?)?, types)?;
        let appender = match &mut appender {
            Some(a) => a,
            None => {
                let schema = batch.schema();
                let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                appender.insert(
                    conn.appender_with_columns(table, &names)
                        .map_err(classify)?,
                )
            }
        };
        n += batch.num_rows() as u64;
        appender
            .append_record_batch(batch)
            .map_err(classify)
            .with_context(|| format!("appending to {table}"))?;
    }
    if let Some(mut a) = appender {
        a.flush().map_err(classify)?;
    }
    Ok(n)
}

/// The same batch as the duckdb crate's Arrow sees it.
fn to_arrow58(batch: arrow::record_batch::RecordBatch) -> Result<RecordBatch> {
    use arrow::array::Array;
    let data = arrow::array::StructArray::from(batch).into_data();
    let (mut array, mut schema) = arrow::ffi::to_ffi(&data)?;
    // SAFETY: both pairs are the C data interface's ArrowArray and ArrowSchema (the same
    // #[repr(C)] layout in every arrow-rs version); `from_raw` moves the contents out, leaving
    // released, empty structs behind for their own drop.
    let (array, schema) = unsafe {
        (
            arrow58::ffi::FFI_ArrowArray::from_raw(
                (&mut array as *mut arrow::ffi::FFI_ArrowArray).cast(),
            ),
            arrow58::ffi::FFI_ArrowSchema::from_raw(
                (&mut schema as *mut arrow::ffi::FFI_ArrowSchema).cast(),
            ),
        )
    };
    // SAFETY: the array and schema were just exported together, valid and matching.
    let data = unsafe { arrow58::ffi::from_ffi(array, &schema) }?;
    Ok(RecordBatch::from(StructArray::from(data)))
}

/// The table's column types by name, as DuckDB gives them in Arrow.
fn column_types(conn: &Connection, table: &str) -> Result<HashMap<String, DataType>> {
    let mut statement = conn
        .prepare(&format!("SELECT * FROM {table} LIMIT 0"))
        .map_err(classify)?;
    let result = statement.query_arrow([]).map_err(classify)?;
    let schema = result.get_schema();
    Ok(schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect())
}

/// The batch with each column cast to the table's type where the two differ. Text stays as it
/// is: DuckDB takes every Arrow string type as VARCHAR.
fn cast_to(batch: RecordBatch, types: &HashMap<String, DataType>) -> Result<RecordBatch> {
    let is_text =
        |t: &DataType| matches!(t, DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8);
    let schema = batch.schema();
    let mut fields = Vec::with_capacity(schema.fields().len());
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        let Some(target) = types.get(field.name()) else {
            bail!("the table has no column {}", field.name());
        };
        let source = field.data_type();
        if source == target || (is_text(source) && is_text(target)) {
            fields.push(field.as_ref().clone());
            columns.push(column.clone());
        } else {
            fields.push(Field::new(
                field.name(),
                target.clone(),
                field.is_nullable(),
            ));
            columns.push(
                arrow58::compute::cast(column, target)
                    .with_context(|| format!("casting {} to {target}", field.name()))?,
            );
        }
    }
    Ok(RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{ArrayRef, Int64Array, StringViewArray};

    /// A batch of (k BIGINT in Arrow, name text) for rows `from..to`.
    fn batch(from: i64, to: i64) -> Result<arrow::record_batch::RecordBatch> {
        let keys: ArrayRef = Arc::new(Int64Array::from_iter_values(from..to));
        let names: ArrayRef = Arc::new(StringViewArray::from_iter_values(
            (from..to).map(|k| format!("row {k}")),
        ));
        Ok(arrow::record_batch::RecordBatch::try_from_iter([
            ("k", keys),
            ("name", names),
        ])?)
    }

    fn count(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn streams_load_whole_cast_to_the_tables_types_or_not_at_all() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (name VARCHAR, k INTEGER)")
            .unwrap();
        let streams: Vec<ArrowStream> = vec![
            Box::new([batch(0, 100), batch(100, 150)].into_iter()),
            Box::new([batch(150, 300)].into_iter()),
        ];
        assert_eq!(append_streams(&conn, "t", streams).unwrap(), 300);
        let (sum, named): (i64, String) = conn
            .query_row("SELECT sum(k), max(name) FROM t WHERE k = 299", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((sum, named.as_str()), (299, "row 299"));

        // A stream that fails part-way: neither it nor the other stream leaves a row.
        let failing = [batch(300, 400), Err(anyhow::anyhow!("the generator broke"))];
        let streams: Vec<ArrowStream> = vec![
            Box::new([batch(400, 500)].into_iter()),
            Box::new(failing.into_iter()),
        ];
        let e = append_streams(&conn, "t", streams).unwrap_err();
        assert!(format!("{e:#}").contains("the generator broke"), "{e:#}");
        assert_eq!(count(&conn), 300);
    }
}
