//! A record kept as one value, for key-value stores with no fields of their own: each field's
//! length (4 bytes, little-endian) and bytes, one field after another. Fields may differ in
//! length (YCSB's `fieldlengthdistribution`).

use super::Shape;
use anyhow::{bail, Result};

/// The bytes of the longest record.
pub fn encoded_len(shape: Shape) -> usize {
    shape.fields * (4 + shape.field_length)
}

pub fn encode(fields: &[Vec<u8>], out: &mut Vec<u8>) {
    out.clear();
    for f in fields {
        out.extend_from_slice(&(f.len() as u32).to_le_bytes());
        out.extend_from_slice(f);
    }
}

/// The length of each field of an encoded record, into `out`.
pub fn field_lengths(mut value: &[u8], out: &mut Vec<usize>) -> Result<()> {
    out.clear();
    while !value.is_empty() {
        let (field, rest) = split_field(value)?;
        out.push(field.len());
        value = rest;
    }
    Ok(())
}

/// The first field of an encoded record and the rest after it.
pub fn split_field(value: &[u8]) -> Result<(&[u8], &[u8])> {
    let Some((len, rest)) = value.split_first_chunk::<4>() else {
        bail!("a stored record is cut short");
    };
    let len = u32::from_le_bytes(*len) as usize;
    if rest.len() < len {
        bail!("a stored record is cut short");
    }
    Ok(rest.split_at(len))
}

/// Where field `field` of an encoded record starts (its length's first byte).
fn field_start(value: &[u8], field: usize) -> Result<usize> {
    let mut at = 0;
    for _ in 0..field {
        let (f, _) = split_field(&value[at..])?;
        at += 4 + f.len();
    }
    Ok(at)
}

/// Field `field` of an encoded record.
pub fn nth_field(value: &[u8], field: usize) -> Result<&[u8]> {
    let at = field_start(value, field)?;
    Ok(split_field(&value[at..])?.0)
}

/// Replaces field `field` of an encoded record, in place when its length stays the same.
pub fn replace_field(value: &mut Vec<u8>, field: usize, new: &[u8]) -> Result<()> {
    let at = field_start(value, field)?;
    let len = split_field(&value[at..])?.0.len();
    let start = at + 4;
    if len == new.len() {
        value[start..start + len].copy_from_slice(new);
    } else {
        value.splice(start..start + len, new.iter().copied());
        value[at..start].copy_from_slice(&(new.len() as u32).to_le_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields of an encoded record, as written.
    fn fields_of(mut value: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while !value.is_empty() {
            let (field, rest) = split_field(value).unwrap();
            out.push(field.to_vec());
            value = rest;
        }
        out
    }

    #[test]
    fn records_kept_as_one_value_keep_their_fields() {
        let fields = vec![b"abc".to_vec(), Vec::new(), vec![b'x'; 100]];
        let mut value = Vec::new();
        encode(&fields, &mut value);
        assert_eq!(fields_of(&value), fields);
        let mut lengths = Vec::new();
        field_lengths(&value, &mut lengths).unwrap();
        assert_eq!(lengths, [3, 0, 100]);
        assert!(field_lengths(&value[..value.len() - 1], &mut lengths).is_err());
        replace_field(&mut value, 2, &[b'y'; 100]).unwrap();
        replace_field(&mut value, 1, b"longer").unwrap();
        assert_eq!(
            fields_of(&value),
            [b"abc".to_vec(), b"longer".to_vec(), vec![b'y'; 100]]
        );
        assert_eq!(nth_field(&value, 0).unwrap(), b"abc");
        assert_eq!(nth_field(&value, 1).unwrap(), b"longer");
        assert_eq!(nth_field(&value, 2).unwrap(), [b'y'; 100]);
        assert!(nth_field(&value, 3).is_err(), "no fourth field");
    }
}
