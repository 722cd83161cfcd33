//! The session workload's own flags, and the parameters they make.

use super::data::Codec;
use super::store::Layout;
use super::{default_params, SessionParams};
use crate::workload::flags::{self, Flags, Shared};
use anyhow::{bail, Result};
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct SessionFlags {
    /// Bytes of random text per session, comma-separated (default 1K,4K,10K,100K,1000K).
    #[arg(long, value_name = "SIZES", value_delimiter = ',', value_parser = flags::bytes::<u64>)]
    pub sizes: Option<Vec<u64>>,
    /// Layouts, comma-separated: blob (one row or value per session), chunked (rows of at most
    /// 4000 bytes keyed by id and subid). Default: blob.
    #[arg(long, value_name = "LAYOUTS", value_delimiter = ',', value_parser = Layout::parse)]
    pub layout: Option<Vec<Layout>>,
    /// Compression before storing, comma-separated: none, gzip, zstd, lz4 (default none,gzip).
    #[arg(long, value_name = "CODECS", value_delimiter = ',', value_parser = Codec::parse)]
    pub compress: Option<Vec<Codec>>,
    /// Sessions written per run (default 1,000).
    #[arg(long, value_name = "N")]
    pub sessions: Option<u64>,
    /// Random session reads per run (default 10,000).
    #[arg(long, value_name = "N")]
    pub reads: Option<u64>,
}

impl Flags for SessionFlags {
    type Workload = SessionParams;
    const ABOUT: &'static str = "A web session store: 1,000 session writes and 10,000 random reads per size, stored whole, \
        in 4000-byte chunks, or compressed (source 001), on SQL and key-value engines.";
    /// The workload with these flags.
    fn workload(&self, shared: &Shared) -> Result<SessionParams> {
        if let Some(preset) = &shared.preset {
            bail!("the session workload has no preset '{preset}' (it has none yet)");
        }
        let mut p = default_params();
        flags::set(&mut p.sizes, self.sizes.clone());
        flags::set(&mut p.layouts, self.layout.clone());
        flags::set(&mut p.compress, self.compress.clone());
        flags::set(&mut p.sessions, self.sessions);
        flags::set(&mut p.reads, self.reads);
        flags::set(&mut p.runs, shared.runs);
        flags::set(&mut p.clients, shared.threads("clients")?);
        Ok(p)
    }
}
