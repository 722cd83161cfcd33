//! YCSB's own way of saying what to run: workload property files (`-P FILE`, as
//! `workloads/workloada`) and single properties (`-p key=value`), read over the defaults of YCSB's
//! `CoreWorkload`, later files and then `-p` winning as in YCSB. Each property hakari takes maps to
//! one of its parameters; a value hakari cannot honour is refused with the reason, an unknown
//! property is named in a warning, never dropped in silence.

use super::generators::{Distribution, LengthDistribution};
use super::presets::{Mix, YcsbParams};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;

/// One property and where it was given (`FILE:LINE` or `-p`).
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    pub value: String,
    pub from: String,
}

/// Properties by name, the last given of each kept.
pub type Properties = BTreeMap<String, Property>;

/// Reads a property file in Java's format as YCSB's files use it: `key=value` (or `key: value`,
/// `key value`), `#` and `!` comments, a trailing backslash continuing the line.
pub fn parse(text: &str, file: &str, into: &mut Properties) -> Result<()> {
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let mut line = line.trim_start().to_string();
        if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            continue;
        }
        while line.ends_with('\\') {
            line.pop();
            match lines.next() {
                Some((_, next)) => line.push_str(next.trim_start()),
                None => break,
            }
        }
        let from = format!("{file}:{}", i + 1);
        let Some(at) = line.find(['=', ':', ' ', '\t']) else {
            bail!("{from}: '{line}' is no property (key=value)");
        };
        let key = line[..at].trim();
        let rest = line[at..].trim_start();
        let value = rest
            .strip_prefix(['=', ':'])
            .unwrap_or(rest)
            .trim()
            .to_string();
        if key.is_empty() {
            bail!("{from}: '{line}' has no key before its value");
        }
        into.insert(key.to_string(), Property { value, from });
    }
    Ok(())
}

/// `-p key=value`.
pub fn parse_one(arg: &str, into: &mut Properties) -> Result<()> {
    match arg.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            let from = format!("-p {arg}");
            let value = value.trim().to_string();
            into.insert(key.trim().to_string(), Property { value, from });
            Ok(())
        }
        _ => bail!("-p {arg}: expected key=value"),
    }
}

/// The files, then the single properties, in the order given.
pub fn gather(files: &[std::path::PathBuf], singles: &[String]) -> Result<Properties> {
    let mut all = Properties::new();
    for f in files {
        let text = std::fs::read_to_string(f)
            .with_context(|| format!("cannot read YCSB property file {}", f.display()))?;
        parse(&text, &f.display().to_string(), &mut all)?;
    }
    for s in singles {
        parse_one(s, &mut all)?;
    }
    Ok(all)
}

/// What the properties ask for: the parameters (over `base`, with YCSB's defaults for what they
/// leave out), YCSB's `target` as operations per second, and a warning per property hakari does
/// not know.
pub struct Read {
    pub params: YcsbParams,
    pub target: Option<f64>,
    pub warnings: Vec<String>,
}

/// Properties YCSB's client takes that change nothing hakari measures (where its results go,
/// which binding runs): accepted without a word.
const CLIENT_ONLY: [&str; 5] = ["db", "exporter", "exportfile", "measurementtype", "status"];

/// CoreWorkload's shares, and their defaults, in the order of hakari's operations.
const SHARES: [(&str, f64); 5] = [
    ("readproportion", 0.95),
    ("updateproportion", 0.05),
    ("insertproportion", 0.0),
    ("scanproportion", 0.0),
    ("readmodifywriteproportion", 0.0),
];

/// The other properties hakari takes.
const TAKEN: [&str; 24] = [
    "workload",
    "requestdistribution",
    "exponential.percentile",
    "exponential.frac",
    "recordcount",
    "operationcount",
    "insertstart",
    "insertcount",
    "maxscanlength",
    "minscanlength",
    "scanlengthdistribution",
    "fieldcount",
    "fieldlength",
    "minfieldlength",
    "fieldlengthdistribution",
    "readallfields",
    "writeallfields",
    "threadcount",
    "target",
    "maxexecutiontime",
    "hotspotdatafraction",
    "hotspotopnfraction",
    "insertorder",
    "zeropadding",
];

/// Properties with their values read as numbers, errors naming where each was given.
struct Lookup<'a>(&'a Properties);

impl Lookup<'_> {
    fn get(&self, key: &str) -> Option<&Property> {
        self.0.get(key)
    }
    fn number(&self, key: &str) -> Result<Option<f64>> {
        (self.get(key))
            .map(|p| {
                (p.value.parse::<f64>().ok())
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .with_context(|| format!("{}: {key}={} is not a number", p.from, p.value))
            })
            .transpose()
    }
    /// `true` or `false` (where Java's `Boolean.parseBoolean` would take any other word as false).
    fn flag(&self, key: &str) -> Result<Option<bool>> {
        (self.get(key))
            .map(|p| match p.value.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                other => bail!("{}: {key}={other}: true or false", p.from),
            })
            .transpose()
    }
    fn count(&self, key: &str) -> Result<Option<u64>> {
        (self.get(key))
            .map(|p| {
                (p.value.parse::<u64>().ok())
                    .with_context(|| format!("{}: {key}={} is not a whole number", p.from, p.value))
            })
            .transpose()
    }
}

pub fn read(props: &Properties, mix_name: &str, mut params: YcsbParams) -> Result<Read> {
    let look = Lookup(props);
    refuse_what_hakari_cannot_do(&look)?;
    params.mixes = vec![mix(&look, mix_name)?];
    params.distributions = None;
    if let Some(n) = look.count("recordcount")? {
        params.records = n;
    }
    params.insert_start = look.count("insertstart")?.unwrap_or(0);
    params.insert_count = look.count("insertcount")?;
    lengths(&look, &mut params)?;
    for (key, share) in [
        ("hotspotdatafraction", &mut params.hotspot.data),
        ("hotspotopnfraction", &mut params.hotspot.operations),
    ] {
        if let Some(v) = look.number(key)? {
            if v > 1.0 {
                let from = look.get(key).map_or("", |p| &p.from);
                bail!("{from}: {key}={v}: a share from 0 to 1");
            }
            *share = v;
        }
    }
    if let Some(p) = look.get("insertorder") {
        params.keys.ordered = match p.value.to_ascii_lowercase().as_str() {
            "hashed" => false,
            "ordered" => true,
            other => bail!("{}: insertorder={other}: hashed or ordered", p.from),
        };
    }
    if let Some(n) = look.count("zeropadding")? {
        params.keys.zero_padding = (n as usize).clamp(1, 32);
    }
    if let Some(n) = look.count("threadcount")? {
        params.threads = vec![n as usize];
    }
    let mut warnings = Vec::new();
    let seconds = look.count("maxexecutiontime")?.filter(|s| *s > 0);
    match (look.count("operationcount")?.filter(|n| *n > 0), seconds) {
        (Some(n), Some(s)) => {
            // YCSB stops at whichever comes first; hakari's run phase has one length.
            params.operations = Some(n);
            warnings.push(format!(
                "{}: maxexecutiontime={s} beside operationcount: hakari runs the operations",
                look.get("maxexecutiontime").map_or("", |p| &p.from)
            ));
        }
        (Some(n), None) => params.operations = Some(n),
        (None, Some(s)) => {
            params.operations = None;
            params.duration_secs = s as f64;
        }
        (None, None) => {}
    }
    let known = |k: &str| {
        SHARES.iter().any(|(s, _)| *s == k) || CLIENT_ONLY.contains(&k) || TAKEN.contains(&k)
    };
    warnings.extend((props.iter()).filter(|(k, _)| !known(k)).map(|(k, p)| {
        format!(
            "{}: {k} is not a property hakari knows; it is left out",
            p.from
        )
    }));
    Ok(Read {
        params,
        target: look.number("target")?.filter(|t| *t > 0.0),
        warnings,
    })
}

/// Another workload class, or records loaded from another than the first.
fn refuse_what_hakari_cannot_do(look: &Lookup) -> Result<()> {
    if let Some(p) = look.get("workload") {
        if !p.value.ends_with(".workloads.CoreWorkload") {
            bail!(
                "{}: workload={}: hakari runs YCSB's CoreWorkload only",
                p.from,
                p.value
            );
        }
    }
    Ok(())
}

/// The records' fields and the scans: how many, how long, how their lengths are drawn, and how
/// many fields reads and updates touch.
fn lengths(look: &Lookup, params: &mut YcsbParams) -> Result<()> {
    if let Some(n) = look.count("fieldcount")? {
        params.field_count = n as usize;
    }
    if let Some(n) = look.count("fieldlength")? {
        params.field_length = n as usize;
    }
    params.min_field_length = look.count("minfieldlength")?.unwrap_or(1) as usize;
    if let Some(p) = look.get("fieldlengthdistribution") {
        params.field_lengths = match p.value.to_ascii_lowercase().as_str() {
            "constant" => LengthDistribution::Constant,
            "uniform" => LengthDistribution::Uniform,
            "zipfian" => LengthDistribution::Zipfian,
            "histogram" => bail!(
                "{}: fieldlengthdistribution=histogram: hakari does not read YCSB's histogram \
                 files (fieldlengthhistogram); constant, uniform or zipfian",
                p.from
            ),
            other => bail!(
                "{}: fieldlengthdistribution={other}: constant, uniform or zipfian",
                p.from
            ),
        };
    }
    params.max_scan_length = look.count("maxscanlength")?.unwrap_or(1000);
    params.min_scan_length = look.count("minscanlength")?.unwrap_or(1);
    if let Some(p) = look.get("scanlengthdistribution") {
        params.scan_lengths = match p.value.to_ascii_lowercase().as_str() {
            "uniform" => LengthDistribution::Uniform,
            "zipfian" => LengthDistribution::Zipfian,
            other => bail!(
                "{}: scanlengthdistribution={other}: YCSB draws scan lengths uniform or zipfian",
                p.from
            ),
        };
    }
    params.read_all_fields = look.flag("readallfields")?.unwrap_or(true);
    params.write_all_fields = look.flag("writeallfields")?.unwrap_or(false);
    let exponential = &mut params.exponential;
    for (key, value, top) in [
        ("exponential.percentile", &mut exponential.percentile, 100.0),
        ("exponential.frac", &mut exponential.frac, f64::INFINITY),
    ] {
        if let Some(v) = look.number(key)? {
            if v <= 0.0 || v >= top {
                let from = look.get(key).map_or("", |p| &p.from);
                bail!("{from}: {key}={v}: above 0 (and a percentile below 100)");
            }
            *value = v;
        }
    }
    Ok(())
}

/// The mix the shares and `requestdistribution` make (CoreWorkload's defaults for the rest).
fn mix(look: &Lookup, name: &str) -> Result<Mix> {
    let mut proportions = [0.0; 5];
    for (i, (key, default)) in SHARES.into_iter().enumerate() {
        proportions[i] = look.number(key)?.unwrap_or(default);
    }
    if proportions.iter().sum::<f64>() <= 0.0 {
        bail!("the properties' proportions are all 0: nothing to run");
    }
    let distribution = match look.get("requestdistribution") {
        None => Distribution::Uniform,
        Some(p) => match p.value.to_ascii_lowercase().as_str() {
            "uniform" => Distribution::Uniform,
            "zipfian" => Distribution::Zipfian,
            "latest" => Distribution::Latest,
            "hotspot" => Distribution::Hotspot,
            "exponential" => Distribution::Exponential,
            other => bail!(
                "{}: requestdistribution={other}: hakari draws uniform, zipfian, latest, hotspot \
                 or exponential",
                p.from
            ),
        },
    };
    Ok(Mix {
        name: name.to_string(),
        proportions,
        distribution,
    })
}

#[cfg(test)]
mod tests;
