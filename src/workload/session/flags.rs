//! The session workload's own flags, and the parameters they make.

use super::data::Codec;
use super::store::Layout;
use super::{default_params, Session};
use crate::units::parse_size;
use crate::workload::flags::{self, Shared};
use anyhow::{bail, Context, Result};
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct SessionFlags {
    /// Bytes of random text per session, comma-separated (default 1K,4K,10K,100K,1000K).
    #[arg(long)]
    pub sizes: Option<String>,
    /// Layouts, comma-separated: blob (one row or value per session), chunked (rows of at most
    /// 4000 bytes keyed by id and subid). Default: blob.
    #[arg(long)]
    pub layout: Option<String>,
    /// Compression before storing, comma-separated: none, gzip, zstd, lz4 (default none,gzip).
    #[arg(long)]
    pub compress: Option<String>,
    /// Sessions written per run (default 1,000).
    #[arg(long)]
    pub sessions: Option<u64>,
    /// Random session reads per run (default 10,000).
    #[arg(long)]
    pub reads: Option<u64>,
}

impl SessionFlags {
    /// The workload with these flags (and a preset's parameters under them).
    pub fn workload(&self, shared: &Shared) -> Result<Session> {
        let mut p = default_params();
        if let Some(preset) = &shared.preset {
            bail!("the session workload has no preset '{preset}' (it has none yet)");
        }
        flags::set(
            &mut p.sizes,
            flags::list(&self.sizes, |x| parse_size(x).context("bad --sizes"))?,
        );
        flags::set(&mut p.layouts, flags::list(&self.layout, Layout::parse)?);
        flags::set(&mut p.compress, flags::list(&self.compress, Codec::parse)?);
        flags::set(&mut p.sessions, self.sessions);
        flags::set(&mut p.reads, self.reads);
        flags::set(&mut p.runs, shared.runs);
        flags::set(&mut p.clients, shared.threads("clients")?);
        Ok(Session { params: p })
    }
}
