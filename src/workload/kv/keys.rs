//! Record encoding. Keys hold integers big-endian after zero padding, so that byte order (every
//! engine's default comparator) is integer order and a batch of sequential keys is adjacent.

/// Smallest key or value that can hold the 8-byte integer.
pub const MIN_SIZE: usize = 8;

/// Writes integer `n` as a key of `buf.len()` bytes.
#[inline]
pub fn encode_key(n: u64, buf: &mut [u8]) {
    let (pad, tail) = buf.split_at_mut(buf.len() - 8);
    pad.fill(0);
    tail.copy_from_slice(&n.to_be_bytes());
}

/// Writes a value for record `n`: the integer, then filler marking the generation (0 at load,
/// bumped by updates), so an update really changes the bytes.
#[inline]
pub fn encode_value(n: u64, generation: u8, buf: &mut [u8]) {
    buf[..8].copy_from_slice(&n.to_be_bytes());
    buf[8..].fill(generation);
}

/// The record number a value holds.
#[inline]
pub fn value_number(value: &[u8]) -> Option<u64> {
    value
        .get(..8)
        .map(|b| u64::from_be_bytes(b.try_into().unwrap()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_as_their_integers() {
        let numbers = [
            0u64,
            1,
            9,
            10,
            255,
            256,
            65_535,
            65_536,
            575_999,
            u64::MAX / 3,
        ];
        for size in [8usize, 16, 64] {
            let mut keys: Vec<Vec<u8>> = numbers
                .iter()
                .rev()
                .map(|&n| {
                    let mut k = vec![0xffu8; size];
                    encode_key(n, &mut k);
                    k
                })
                .collect();
            keys.sort();
            let decoded: Vec<u64> = keys
                .iter()
                .map(|k| u64::from_be_bytes(k[size - 8..].try_into().unwrap()))
                .collect();
            assert_eq!(decoded, numbers, "key size {size}");
            assert!(keys
                .iter()
                .all(|k| k.len() == size && k[..size - 8].iter().all(|b| *b == 0)));
        }
    }

    #[test]
    fn values_carry_their_number() {
        let mut v = vec![0u8; 32];
        encode_value(42, 3, &mut v);
        assert_eq!(value_number(&v), Some(42));
        assert!(v[8..].iter().all(|b| *b == 3));
        assert_eq!(value_number(&v[..4]), None);
    }
}
