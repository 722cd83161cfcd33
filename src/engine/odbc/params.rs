//! A statement's parameters as ODBC binds them: each value whole, except byte values of
//! [`STREAM_FROM`] bytes or more, which are bound "at execution" and sent in parts of
//! [`PART_BYTES`] with SQLPutData, as drivers for LOB columns expect (Oracle's for a BLOB, for
//! one); odbc-api's execute loop asks each for its parts.

use crate::engine::sql::SqlValue;
use odbc_api::handles::Statement;
use odbc_api::parameter::{BlobParam, BlobSlice, InputParameter, VarBinarySlice, VarCharSlice};
use odbc_api::{Error, IntoParameter, ParameterCollection, ParameterTupleElement};

/// Byte values from this size on are streamed.
pub const STREAM_FROM: usize = 256 << 10;
/// The size of each part streamed.
pub const PART_BYTES: usize = 64 << 10;

/// A value bound as a parameter of its own type (text for NULL, which every DBMS casts).
pub fn whole(v: &SqlValue) -> Box<dyn InputParameter + '_> {
    match v {
        SqlValue::Null => Box::new(VarCharSlice::NULL),
        SqlValue::Int(i) => Box::new(*i),
        SqlValue::Float(f) => Box::new(*f),
        SqlValue::Text(t) => Box::new(t.as_str().into_parameter()),
        SqlValue::Bytes(b) => Box::new(VarBinarySlice::new(b)),
    }
}

/// The large values' sources, made first: the bound parameters borrow them.
pub fn sources(values: &[SqlValue]) -> Vec<BlobSlice<'_>> {
    values
        .iter()
        .filter_map(|v| match v {
            SqlValue::Bytes(b) if b.len() >= STREAM_FROM => Some(BlobSlice {
                is_binary: true,
                batch_size: PART_BYTES,
                blob: b,
            }),
            _ => None,
        })
        .collect()
}

enum Param<'a> {
    Whole(Box<dyn InputParameter + 'a>),
    Streamed(BlobParam<'a>),
}

/// One execution's parameters, in order.
pub struct Bound<'a>(Vec<Param<'a>>);

impl<'a> Bound<'a> {
    /// `values` bound, the large ones streamed from `sources` (made by [`sources`] of them).
    pub fn new<'v: 'a>(values: &'v [SqlValue], sources: &'a mut [BlobSlice<'v>]) -> Bound<'a> {
        let mut streams = sources.iter_mut();
        let params = values.iter().map(|v| match v {
            SqlValue::Bytes(b) if b.len() >= STREAM_FROM => match streams.next() {
                Some(source) => Param::Streamed(BlobParam::new(source)),
                None => Param::Whole(whole(v)),
            },
            v => Param::Whole(whole(v)),
        });
        Bound(params.collect())
    }
}

// SAFETY: every value bound lives as long as `self` (the boxed values and the blob parameters
// are its members; the blobs' bytes and sources are borrowed for 'a), and a streamed one is
// bound as odbc-api's own `BlobParam`, which its execute loop reads back.
unsafe impl ParameterCollection for Bound<'_> {
    fn parameter_set_size(&self) -> usize {
        1
    }

    unsafe fn bind_parameters_to(&mut self, stmt: &mut impl Statement) -> Result<(), Error> {
        for (i, p) in self.0.iter_mut().enumerate() {
            let number = i as u16 + 1;
            // SAFETY: as above.
            unsafe {
                match p {
                    Param::Whole(v) => (&**v).bind_to(number, stmt)?,
                    Param::Streamed(b) => (&mut *b).bind_to(number, stmt)?,
                }
            }
        }
        Ok(())
    }
}
