//! Writing and reading result files. Writes are atomic: a reader never sees half a file.

use super::{RunResult, SCHEMA_VERSION};
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `result` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomic(path: &Path, result: &RunResult) -> Result<()> {
    let mut text = serde_json::to_string_pretty(result)?;
    text.push('\n');
    write_text_atomic(path, &text)
}

/// Writes `text` to `path` through a temporary file beside it, so a reader never sees half.
pub fn write_text_atomic(path: &Path, text: &str) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    // Result files are for sharing; the temporary file's private mode is not wanted.
    use std::os::unix::fs::PermissionsExt;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Reads a result file, refusing other schema versions and foreign JSON with a clear message.
pub fn read(path: &Path) -> Result<RunResult> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a complete JSON file (truncated or not JSON)",
            path.display()
        )
    })?;
    match value.get("schema_version").and_then(|v| v.as_u64()) {
        None => bail!(
            "{} is not a hakari result file (no schema_version)",
            path.display()
        ),
        Some(v) if v != SCHEMA_VERSION as u64 => bail!(
            "{} has result schema version {v}; this hakari reads version {SCHEMA_VERSION}",
            path.display()
        ),
        Some(_) => {}
    }
    let mut result: RunResult = serde_json::from_value(value)
        .with_context(|| format!("{} does not match the result schema", path.display()))?;
    upgrade(&mut result);
    Ok(result)
}

/// Results written before a measurement kept what its configuration produced apart
/// (`Measurement::produced`) had it among the configuration's fields: the session store's
/// payload and stored bytes, a TPC-H query's start. They are moved where they are kept now.
fn upgrade(result: &mut RunResult) {
    const MOVED: [(&str, &str); 3] = [
        ("session", "payload_bytes"),
        ("session", "stored_bytes"),
        ("tpch", "start_s"),
    ];
    for m in &mut result.measurements {
        for (workload, name) in MOVED {
            if m.workload == workload {
                if let Some(v) = m.config.remove(name) {
                    m.produced.insert(name.into(), v);
                }
            }
        }
    }
}

/// The result files named: files as given, folders expanded to their `*.json` files (sorted).
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot list {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "json"))
                .collect();
            found.sort();
            out.extend(found);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            bail!("{} does not exist", p.display());
        }
    }
    Ok(out)
}
