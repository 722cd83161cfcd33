//! UTC timestamps and dates, through chrono.

use chrono::{DateTime, Days, Months, NaiveDate, SecondsFormat, Utc};
use std::time::{SystemTime, UNIX_EPOCH};

/// An instant as `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds).
pub fn rfc3339(t: SystemTime) -> String {
    DateTime::<Utc>::from(t).to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// `YYYYMMDD-HHMMSS`, for file names.
pub fn compact(t: SystemTime) -> String {
    DateTime::<Utc>::from(t).format("%Y%m%d-%H%M%S").to_string()
}

/// An RFC 3339 time (`2026-12-01T10:00:00Z`, or with an offset such as `+01:00`) as an instant;
/// an impossible one (February 31st, hour 25) is refused.
pub fn parse_rfc3339(text: &str) -> Result<SystemTime, String> {
    let at = DateTime::parse_from_rfc3339(text.trim())
        .map_err(|e| format!("'{text}' is not a time like 2026-12-01T10:00:00Z ({e})"))?;
    let at = at.with_timezone(&Utc);
    if at.timestamp() < 0 {
        return Err(format!("'{text}' is before 1970"));
    }
    Ok(at.into())
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

/// Days since 1970-01-01 as `YYYY-MM-DD`.
pub fn date_of_days(days: i64) -> String {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).expect("a valid date");
    let date = match u64::try_from(days) {
        Ok(d) => epoch.checked_add_days(Days::new(d)),
        Err(_) => epoch.checked_sub_days(Days::new(days.unsigned_abs())),
    };
    date.map_or_else(
        || format!("{days} days"),
        |d| d.format("%Y-%m-%d").to_string(),
    )
}

/// `date` (`YYYY-MM-DD`) moved by `amount` days, months or years, as SQL moves a date by an
/// interval (a month past a short month's end lands on its last day).
pub fn shift_date(date: &str, amount: i64, unit: &str) -> Result<String, String> {
    let d = NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .map_err(|e| format!("bad date '{date}': {e}"))?;
    let months = |n: i64| Months::new(n.unsigned_abs() as u32);
    let shifted = match (unit, amount >= 0) {
        ("day", true) => d.checked_add_days(Days::new(amount as u64)),
        ("day", false) => d.checked_sub_days(Days::new(amount.unsigned_abs())),
        ("month", true) => d.checked_add_months(months(amount)),
        ("month", false) => d.checked_sub_months(months(amount)),
        ("year", true) => d.checked_add_months(months(amount * 12)),
        ("year", false) => d.checked_sub_months(months(amount * 12)),
        (other, _) => return Err(format!("unknown date unit '{other}'")),
    };
    let shifted =
        shifted.ok_or_else(|| format!("'{date}' moved by {amount} {unit} is out of range"))?;
    Ok(shifted.format("%Y-%m-%d").to_string())
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
        let offset = parse_rfc3339("2026-11-18T12:06:40+01:00").unwrap();
        assert_eq!(offset, t);
        // RFC 3339 lets a space stand for the T.
        assert_eq!(parse_rfc3339("2026-11-18 11:06:40Z"), Ok(t));
        for bad in [
            "2026-11-18T11:06:40",
            "2026-13-01T00:00:00Z",
            "2026-02-31T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-11-18T25:00:00Z",
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
        assert_eq!(date_of_days(11_016), "2000-02-29");
        assert_eq!(date_of_days(-1), "1969-12-31");
    }

    #[test]
    fn dates_move_as_sql_intervals_do() {
        assert_eq!(shift_date("1995-03-15", 3, "month").unwrap(), "1995-06-15");
        assert_eq!(shift_date("1995-03-15", -90, "day").unwrap(), "1994-12-15");
        assert_eq!(shift_date("1996-02-29", 1, "year").unwrap(), "1997-02-28");
        assert_eq!(shift_date("1995-01-31", 1, "month").unwrap(), "1995-02-28");
        assert!(shift_date("1995-02-30", 1, "day").is_err());
        assert!(shift_date("1995-01-01", 1, "week").is_err());
    }
}
