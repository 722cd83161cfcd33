//! The session workload's parameters and their defaults (the source's sizes and counts).

use super::data::Codec;
use super::store::Layout;
use serde::Serialize;

/// The session workload's parameters: what the result file records.
#[derive(Clone, Debug, Serialize)]
pub struct SessionParams {
    /// Bytes of random text inside each session, one configuration per size.
    pub sizes: Vec<u64>,
    pub layouts: Vec<Layout>,
    pub compress: Vec<Codec>,
    pub clients: Vec<usize>,
    pub runs: usize,
    /// Sessions written per run (the source: 1,000).
    pub sessions: u64,
    /// Random session reads per run (the source: 10,000).
    pub reads: u64,
}

pub fn default_params() -> SessionParams {
    SessionParams {
        sizes: vec![1 << 10, 4 << 10, 10 << 10, 100 << 10, 1000 << 10],
        layouts: vec![Layout::Blob],
        compress: vec![Codec::None, Codec::Gzip],
        clients: vec![1],
        runs: 3,
        sessions: 1_000,
        reads: 10_000,
    }
}
