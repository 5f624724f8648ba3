//! Bounded, one-line text for error messages: whatever a server or a
//! response puts in them, an error's text stays short, on one line, and
//! free of credentials.

/// The most characters of the record a decode error quotes.
pub(crate) const RECORD_CHARS: usize = 160;

/// The most characters of a key in a field path an error names: a
/// response's keys can be any length.
pub(crate) const KEY_CHARS: usize = 64;

/// `text` on one line (control characters and runs of whitespace become
/// one space), cut to at most `limit` characters with an ellipsis.
pub(crate) fn one_line(text: &str, limit: usize) -> String {
    let mut out = String::with_capacity(text.len().min(limit.saturating_mul(4)));
    let mut chars = 0;
    let mut space = false;
    for ch in text.trim().chars() {
        if ch.is_whitespace() || ch.is_control() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            if chars == limit {
                out.push('…');
                return out;
            }
            out.push(' ');
            chars += 1;
        }
        space = false;
        if chars == limit {
            out.push('…');
            return out;
        }
        out.push(ch);
        chars += 1;
    }
    out
}

/// `text` with the credentials of every URL in it removed: `scheme://user:password@host`
/// becomes `scheme://host`.
pub(crate) fn without_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let authority_end = tail.find(['/', '?', '#', ' ', ')']).unwrap_or(tail.len());
        let authority = &tail[..authority_end];
        match authority.rfind('@') {
            Some(userinfo_end) => out.push_str(&authority[userinfo_end + 1..]),
            None => out.push_str(authority),
        }
        rest = &tail[authority_end..];
    }
    out.push_str(rest);
    out
}

/// A URL as an error shows it: without credentials, and at most `limit`
/// characters (its start and its end kept, an ellipsis between).
pub(crate) fn url(url: &str, limit: usize) -> String {
    let url = one_line(&without_userinfo(url), usize::MAX);
    let count = url.chars().count();
    if count <= limit {
        return url;
    }
    let keep = limit.saturating_sub(1) / 2;
    let head: String = url.chars().take(keep).collect();
    let tail: String = url.chars().skip(count - keep).collect();
    format!("{head}…{tail}")
}

/// `text` with each of `secrets` (of four characters or more) replaced by
/// a mask. A text cut short (ending with `…`) may end inside a secret:
/// the start of one that shows there is masked too.
pub(crate) fn masked(text: &str, secrets: &[String]) -> String {
    const SHORTEST: usize = 4;
    let mut text = text.to_owned();
    let secrets = || secrets.iter().filter(|s| s.chars().count() >= SHORTEST);
    for secret in secrets() {
        if text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), "•••");
        }
    }
    let Some(kept) = text.strip_suffix('…') else {
        return text;
    };
    let cut_secret = secrets()
        .filter_map(|secret| {
            // Where each start of `SHORTEST` characters or more ends.
            let ends = secret.char_indices().map(|(at, _)| at).skip(SHORTEST);
            let ends: Vec<usize> = ends.chain([secret.len()]).collect();
            let mut starts = ends.into_iter().rev().map(|end| &secret[..end]);
            starts.find(|start| kept.ends_with(start))
        })
        .map(str::len)
        .max();
    match cut_secret {
        Some(len) => format!("{}•••…", &kept[..kept.len() - len]),
        None => text,
    }
}

/// A time limit as an error names it: whole seconds (`30s`), else whole
/// milliseconds (`1500ms`), else microseconds (cut to whole ones), and
/// under one microsecond nanoseconds; past a million seconds, its whole
/// seconds. `Duration`'s `Debug` would write decimals (`1.5s`), with a
/// formatter that every browser bundle would carry for this one message.
pub(crate) fn duration(limit: std::time::Duration) -> String {
    let seconds = limit.as_secs();
    if limit.subsec_nanos() == 0 || seconds >= 1_000_000 {
        return format!("{seconds}s");
    }
    if seconds == 0 && limit.subsec_micros() == 0 {
        return format!("{}ns", limit.subsec_nanos());
    }
    let micros = seconds * 1_000_000 + u64::from(limit.subsec_micros());
    match micros % 1_000 {
        0 => format!("{}ms", micros / 1_000),
        _ => format!("{micros}µs"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_collapses_whitespace_and_cuts_with_an_ellipsis() {
        assert_eq!(one_line("  a\n\n b\tc ", 10), "a b c");
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(one_line("ab cd", 2), "ab…");
    }

    #[test]
    fn credentials_leave_every_url() {
        assert_eq!(
            without_userinfo("GET http://ada:pw@h:1/x (see https://u@o/y)"),
            "GET http://h:1/x (see https://o/y)"
        );
        assert_eq!(url("http://ada:pw@h/abcdefghijkl", 12), "http:…hijkl");
    }

    #[test]
    fn secrets_are_masked() {
        let secrets = ["Bearer tok".to_owned(), "ab".to_owned()];
        assert_eq!(masked("got Bearer tok, ab", &secrets), "got •••, ab");
        // Cut inside a secret: its start is masked, not a shorter one.
        assert_eq!(masked("got Bearer t…", &secrets), "got •••…");
        assert_eq!(masked("got Bea…", &secrets), "got Bea…");
        assert_eq!(masked("got Bearer t", &secrets), "got Bearer t");
    }

    #[test]
    fn a_time_limit_reads_in_whole_units() {
        use std::time::Duration;
        assert_eq!(duration(Duration::from_secs(30)), "30s");
        assert_eq!(duration(Duration::ZERO), "0s");
        assert_eq!(duration(Duration::from_millis(250)), "250ms");
        assert_eq!(duration(Duration::from_millis(1_500)), "1500ms");
        assert_eq!(duration(Duration::from_micros(100)), "100µs");
        assert_eq!(duration(Duration::from_nanos(1_500)), "1µs");
        assert_eq!(duration(Duration::from_nanos(500)), "500ns");
        assert_eq!(duration(Duration::MAX), format!("{}s", u64::MAX));
    }
}
