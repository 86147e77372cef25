//! The UCI channel: every protocol line the engine writes goes out through
//! `send`, and every line it reads is shown to `received`, so that the
//! `Debug Log File` option can keep both.
//!
//! GUIs hide an engine's stderr, so the log of a session is what a user can
//! attach to a bug report (the option is Stockfish's, name and meaning):
//! each line in (`<<`) and out (`>>`) with its UTC time to the millisecond,
//! appended to the file, written as it happens so that a crash or a hung GUI
//! leaves the lines up to it.

use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

/// The open debug log, if `Debug Log File` names one. Search threads write
/// `info` and `bestmove` lines while the UCI thread writes its own, so the
/// file is behind a lock; stdout is locked for each line as well, and the
/// log's lock is taken first, so both see the lines in one order.
static DEBUG_LOG: Mutex<Option<File>> = Mutex::new(None);

/// Writes one protocol line to stdout (and to the debug log), or a
/// binary's `--help` and `--version` text: a reader that closed the pipe
/// (`lasker --help | head -1`) is no error.
pub fn send(line: &str) {
    let mut log = DEBUG_LOG.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(file) = log.as_mut() {
        write_log(file, ">>", line);
    }
    let mut out = std::io::stdout().lock();
    // A GUI that closed the pipe can't be told anything; the engine goes
    // on until it reads `quit` or the end of its input.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The most characters of the GUI's input an answer quotes.
pub const EXCERPT_CHARS: usize = 100;

/// `text`, from the GUI's input, as an answer quotes it: whole up to
/// `EXCERPT_CHARS` characters, else its first `EXCERPT_CHARS` (cut
/// between characters), `...` and its length, so that a line of a
/// megabyte is not answered with a megabyte.
pub fn excerpt(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => Cow::Owned(format!("{}... ({} bytes)", &text[..cut], text.len())),
    }
}

/// Notes a line read from the GUI in the debug log.
pub fn received(line: &str) {
    let mut log = DEBUG_LOG.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(file) = log.as_mut() {
        write_log(file, "<<", line);
    }
}

/// Starts logging to `path` (appending), or stops (`None`). A file that
/// can't be opened is an error, and the log stays as it was.
pub fn set_debug_log(path: Option<&str>) -> Result<(), String> {
    let file = match path {
        None => None,
        Some(path) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("Debug Log File: can't open '{path}': {e}"))?,
        ),
    };
    *DEBUG_LOG.lock().unwrap_or_else(PoisonError::into_inner) = file;
    Ok(())
}

fn write_log(file: &mut File, direction: &str, line: &str) {
    // A full disk must not stop the engine: the line is lost, not the game.
    let _ = writeln!(
        file,
        "{} {direction} {line}",
        utc_timestamp(SystemTime::now())
    );
}

/// `2026-12-02 01:23:45.678`: the UTC time to the millisecond.
fn utc_timestamp(time: SystemTime) -> String {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let millis = since_epoch.as_millis() as u64;
    let (days, day_ms) = (millis / 86_400_000, millis % 86_400_000);
    let (year, month, day) = civil_date(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:03}",
        day_ms / 3_600_000,
        day_ms / 60_000 % 60,
        day_ms / 1000 % 60,
        day_ms % 1000
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`: eras of 400 years, years starting in March so that
/// the leap day comes last).
fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153; // 0 = March
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn long_input_is_quoted_in_part() {
        assert_eq!(excerpt("wibble"), "wibble");
        let exact = "x".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&exact), exact);
        let long = "x".repeat(100_000);
        assert_eq!(
            excerpt(&long),
            format!("{}... (100000 bytes)", "x".repeat(EXCERPT_CHARS))
        );
        // Cut between characters, not inside one (2 bytes each).
        let accents = "\u{e9}".repeat(EXCERPT_CHARS + 1);
        assert_eq!(
            excerpt(&accents),
            format!("{}... (202 bytes)", "\u{e9}".repeat(EXCERPT_CHARS))
        );
    }

    #[test]
    fn timestamps_are_utc_dates() {
        let at = |secs: u64, ms: u64| {
            utc_timestamp(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(ms))
        };
        assert_eq!(at(0, 0), "1970-01-01 00:00:00.000");
        // 2000-02-29 (a leap day of a century year) 23:59:59.999
        assert_eq!(at(951_868_799, 999), "2000-02-29 23:59:59.999");
        assert_eq!(at(951_868_800, 0), "2000-03-01 00:00:00.000");
        // 2026-12-02 01:23:45.678
        assert_eq!(at(1_796_174_625, 678), "2026-12-02 01:23:45.678");
        assert_eq!(at(4_107_542_400, 0), "2100-03-01 00:00:00.000");
    }
}
