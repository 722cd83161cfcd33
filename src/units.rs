//! Parsing and printing of the numbers users type and read: sizes, lists, counts.

use anyhow::{bail, Context, Result};

/// Parses `64`, `4K`, `10KB`, `1M`, `512MB`, `1G` (binary multiples, as database caches are sized).
pub fn parse_size(text: &str) -> Result<u64> {
    let t = text.trim().to_ascii_uppercase();
    let t = t
        .strip_suffix("IB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(&t);
    let (digits, mult) = match t.chars().last() {
        Some('K') => (&t[..t.len() - 1], 1u64 << 10),
        Some('M') => (&t[..t.len() - 1], 1 << 20),
        Some('G') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .with_context(|| format!("'{text}' is not a size (examples: 64, 4K, 512MB, 1G)"))?;
    n.checked_mul(mult)
        .with_context(|| format!("size '{text}' is too large"))
}

/// Parses a comma-separated list of positive whole numbers (`1,2,4,8`), keeping order.
pub fn parse_counts(text: &str, what: &str) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for part in text.split(',').filter(|p| !p.trim().is_empty()) {
        let n: usize = part
            .trim()
            .parse()
            .with_context(|| format!("'{part}' is not a number of {what}"))?;
        if n == 0 {
            bail!("the number of {what} must be at least 1");
        }
        if !out.contains(&n) {
            out.push(n);
        }
    }
    if out.is_empty() {
        bail!("no number of {what} given");
    }
    Ok(out)
}

/// 1234567.8 -> "1,234,568".
pub fn thousands(value: f64) -> String {
    if !value.is_finite() {
        return "-".into();
    }
    let n = value.round() as i128;
    let digits = n.abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A duration in the unit that fits it, to 3 significant digits: 125 s, 1.25 s, 34.2 ms,
/// 250 µs, 0.116 µs ("-" for a value that is not a number).
pub fn duration(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "-".into();
    }
    // 0.9995 s prints as 1.00 s, not 1000 ms.
    let (value, unit) = if seconds.abs() >= 0.9995 {
        (seconds, "s")
    } else if seconds.abs() >= 0.9995e-3 {
        (seconds * 1e3, "ms")
    } else {
        (seconds * 1e6, "µs")
    };
    format!("{} {unit}", significant(value))
}

/// A latency given in microseconds, as [`duration`] writes it.
pub fn latency(us: f64) -> String {
    duration(us / 1e6)
}

/// `value` to 3 significant digits (all its integer digits when it has more).
fn significant(value: f64) -> String {
    let magnitude = value.abs();
    // Rounding may carry into the next digit (9.996 is 10.0): decide on the rounded value.
    let decimals = |v: f64| match v {
        v if v >= 99.95 => 0,
        v if v >= 9.995 => 1,
        v if v >= 0.9995 || v == 0.0 => 2,
        v => (2.0 - v.log10().floor()) as usize,
    };
    format!("{value:.*}", decimals(magnitude))
}

/// Bytes as the papers write them: 512MB, 4KB, 64 bytes.
pub fn bytes(n: u64) -> String {
    if n >= 1 << 30 && n.is_multiple_of(1 << 30) {
        format!("{}GB", n >> 30)
    } else if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{}MB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{}KB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_the_unit_that_fits() {
        for (input, expected) in [
            (1234.4, "1234 s"),
            (125.4, "125 s"),
            (12.34, "12.3 s"),
            (1.254, "1.25 s"),
            (0.999_96, "1.00 s"),
            (0.0342, "34.2 ms"),
            (0.009_996, "10.0 ms"),
            (0.000_25, "250 µs"),
            (0.000_001_5, "1.50 µs"),
            (0.000_000_116, "0.116 µs"),
            (0.0, "0.00 µs"),
            (f64::NAN, "-"),
        ] {
            assert_eq!(duration(input), expected, "duration({input:?})");
        }
    }

    #[test]
    fn latencies_never_print_six_digits_of_microseconds() {
        assert_eq!(latency(1_049_624.57), "1.05 s");
        assert_eq!(latency(2_334_130.17), "2.33 s");
        assert_eq!(latency(1_211_105.0), "1.21 s");
        assert_eq!(latency(999.4), "999 µs");
        assert_eq!(latency(999.96), "1.00 ms");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("64").unwrap(), 64);
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("512MB").unwrap(), 512 << 20);
        assert_eq!(parse_size("1g").unwrap(), 1 << 30);
        assert_eq!(parse_size("2KiB").unwrap(), 2048);
        assert!(parse_size("abc").is_err());
        assert!(parse_size("-4").is_err());
        assert!(parse_size("99999999999999G").is_err());
    }

    #[test]
    fn counts() {
        assert_eq!(parse_counts("1,2,4,2", "threads").unwrap(), vec![1, 2, 4]);
        assert!(parse_counts("0", "threads").is_err());
        assert!(parse_counts("x", "threads").is_err());
        assert!(parse_counts("", "threads").is_err());
    }

    #[test]
    fn printing() {
        assert_eq!(thousands(1234567.8), "1,234,568");
        assert_eq!(thousands(693.0), "693");
        assert_eq!(thousands(-1000.0), "-1,000");
        assert_eq!(bytes(512 << 20), "512MB");
        assert_eq!(bytes(64), "64 bytes");
    }
}
