//! UTC timestamps without a calendar dependency.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn rfc3339(t: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(t);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// `YYYYMMDD-HHMMSS`, for file names.
pub fn compact(t: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(t);
    format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}")
}

/// `YYYY-MM-DDTHH:MM:SS[.fff]Z` (UTC) as an instant.
pub fn parse_rfc3339(text: &str) -> Result<SystemTime, String> {
    let bad = || format!("'{text}' is not a UTC time like 2026-12-01T10:00:00Z");
    let body = text.strip_suffix('Z').ok_or_else(bad)?;
    let (date, time) = body.split_once('T').ok_or_else(bad)?;
    let num = |s: &str| s.parse::<i64>().map_err(|_| bad());
    let d: Vec<&str> = date.split('-').collect();
    let t: Vec<&str> = time.split(':').collect();
    if d.len() != 3 || t.len() != 3 {
        return Err(bad());
    }
    let (y, mo, day) = (num(d[0])?, num(d[1])?, num(d[2])?);
    let (h, mi) = (num(t[0])?, num(t[1])?);
    let s: f64 = t[2].parse().map_err(|_| bad())?;
    if !(1..=12).contains(&mo)
        || !(1..=31).contains(&day)
        || h > 23
        || mi > 59
        || !(0.0..60.0).contains(&s)
    {
        return Err(bad());
    }
    let whole = days_from_civil(y, mo, day) * 86_400 + h * 3600 + mi * 60;
    let secs = whole as f64 + s;
    if secs < 0.0 {
        return Err(bad());
    }
    Ok(UNIX_EPOCH + std::time::Duration::from_secs_f64(secs))
}

/// Seconds since the epoch, to the microsecond.
pub fn unix_seconds(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

fn civil(t: SystemTime) -> (i64, u32, u32, u32, u32, u32) {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let (m, d) = (m as u32, d as u32);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        ((rem % 3600) / 60) as u32,
        (rem % 60) as u32,
    )
}

/// Days since 1970-01-01 as (year, month, day) (Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + if m <= 2 { 1 } else { 0 }, m, d)
}

/// Days since 1970-01-01 of a civil date (the inverse of [`civil_from_days`]).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_written_time_reads_back() {
        let t = UNIX_EPOCH + Duration::from_secs(1_795_000_000);
        assert_eq!(parse_rfc3339(&rfc3339(t)), Ok(t));
        let ms = parse_rfc3339("2026-11-18T11:06:40.250Z").unwrap();
        assert_eq!(ms.duration_since(t).unwrap(), Duration::from_millis(250));
        for bad in [
            "2026-11-18 11:06:40Z",
            "2026-11-18T11:06:40",
            "2026-13-01T00:00:00Z",
            "now",
        ] {
            assert!(parse_rfc3339(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn known_dates() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_000_000);
        assert_eq!(rfc3339(t), "2026-11-18T11:06:40Z");
        assert_eq!(compact(t), "20261118-110640");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
        for days in [-800_000, -1, 0, 59, 11_016, 2_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
