//! Session payloads as the source made them: an object holding random `[a-z0-9]` text of the
//! chosen size, serialized and base64-encoded; and the codecs applied before storing.

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::io::{Read, Write};

const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// The session id of session `index`: 64 hex digits, as a web framework's session ids look.
pub fn session_id(seed: u64, index: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let bytes: [u8; 32] = rng.random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Serialize)]
struct SessionObject<'a> {
    id: &'a str,
    created: u64,
    data: &'a str,
}

/// The bytes a web application would hand to its store for session `index`: the serialized
/// object, base64-encoded. `text_bytes` is the size of the random text inside.
pub fn payload(seed: u64, index: u64, text_bytes: usize) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed.rotate_left(17) ^ index);
    let text: String = (0..text_bytes)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect();
    let id = session_id(seed, index);
    let object = serde_json::to_vec(&SessionObject {
        id: &id,
        created: 1_700_000_000 + index,
        data: &text,
    })
    .expect("a plain struct serializes");
    base64::engine::general_purpose::STANDARD
        .encode(object)
        .into_bytes()
}

/// How a session is compressed before it is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Codec {
    None,
    /// zlib's deflate in a gzip frame, level 6 (the source's Compress::Zlib default).
    Gzip,
    /// Zstandard at level 3, its default.
    Zstd,
    /// LZ4 block format with the length in front.
    Lz4,
}

impl Codec {
    pub const ALL: [Codec; 4] = [Codec::None, Codec::Gzip, Codec::Zstd, Codec::Lz4];

    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
            Codec::Lz4 => "lz4",
        }
    }

    pub fn parse(text: &str) -> Result<Codec> {
        let t = text.trim().to_ascii_lowercase();
        match Codec::ALL.into_iter().find(|c| c.name() == t) {
            Some(c) => Ok(c),
            None => bail!("unknown compression '{text}'; choose from none, gzip, zstd, lz4"),
        }
    }

    /// Which implementation compresses, for the run's notes.
    pub fn implementation(self) -> String {
        match self {
            Codec::None => "none".into(),
            // mysql's minimal-rust keeps C zlib out of the build, so flate2 uses zlib-rs.
            Codec::Gzip => "gzip: flate2 over zlib-rs, level 6".into(),
            Codec::Zstd => format!(
                "zstd: libzstd {}, level 3",
                zstd::zstd_safe::version_string()
            ),
            Codec::Lz4 => "lz4: lz4_flex (block format, size prepended)".into(),
        }
    }

    pub fn compress(self, data: &[u8]) -> Result<Vec<u8>> {
        Ok(match self {
            Codec::None => data.to_vec(),
            Codec::Gzip => {
                let mut e = flate2::write::GzEncoder::new(
                    Vec::with_capacity(data.len() / 2),
                    flate2::Compression::new(6),
                );
                e.write_all(data)?;
                e.finish()?
            }
            Codec::Zstd => zstd::bulk::compress(data, 3)?,
            Codec::Lz4 => lz4_flex::compress_prepend_size(data),
        })
    }

    /// `expected_len` sizes the output buffer (the reader knows what it wrote).
    pub fn decompress(self, data: &[u8], expected_len: usize) -> Result<Vec<u8>> {
        Ok(match self {
            Codec::None => data.to_vec(),
            Codec::Gzip => {
                let mut out = Vec::with_capacity(expected_len);
                flate2::read::GzDecoder::new(data)
                    .read_to_end(&mut out)
                    .context("gzip data is corrupt")?;
                out
            }
            Codec::Zstd => zstd::bulk::decompress(data, expected_len.max(1) * 2)
                .context("zstd data is corrupt")?,
            Codec::Lz4 => {
                lz4_flex::decompress_size_prepended(data).context("lz4 data is corrupt")?
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_is_base64_of_an_object_holding_the_text() {
        let p = payload(7, 3, 1000);
        let object = base64::engine::general_purpose::STANDARD
            .decode(&p)
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&object).unwrap();
        let text = v["data"].as_str().unwrap();
        assert_eq!(text.len(), 1000);
        assert!(text.bytes().all(|b| ALPHABET.contains(&b)));
        assert_eq!(v["id"].as_str().unwrap(), session_id(7, 3));
        // Deterministic from the seed, different per session.
        assert_eq!(p, payload(7, 3, 1000));
        assert_ne!(p, payload(7, 4, 1000));
        assert_ne!(session_id(7, 3), session_id(7, 4));
        assert_eq!(session_id(7, 3).len(), 64);
    }

    #[test]
    fn every_codec_round_trips_and_compression_shrinks_base64_text() {
        let p = payload(1, 1, 10_000);
        for c in Codec::ALL {
            let stored = c.compress(&p).unwrap();
            assert_eq!(c.decompress(&stored, p.len()).unwrap(), p, "{c:?}");
            // Entropy coders shrink base64 text (~3.9 bits of information per byte); lz4 only
            // finds repeats, and random text has few.
            if matches!(c, Codec::Gzip | Codec::Zstd) {
                assert!(stored.len() < p.len() * 8 / 10, "{c:?}: {}", stored.len());
            }
        }
        assert!(Codec::Gzip.decompress(b"not gzip", 10).is_err());
        assert!(Codec::parse("brotli").is_err());
        assert_eq!(Codec::parse("ZSTD").unwrap(), Codec::Zstd);
    }
}
