//! Judging a record against a list's filters: a created or updated
//! record joins the cached lists of its resource whose query params its
//! fields match, and an updated one leaves those it no longer matches.
//!
//! A filter `?userId=2` compares the record's field `userId` (its wire
//! name) written as a query string writes it: `2`. A number field
//! compares as a number (`?price=1.0` and `?price=1` both match a price
//! of 1; `?userId=2.0` matches user 2), a bool field as `true` or
//! `false`. Numbers, text, bools and `Option`s of them compare. A field
//! of another type, a param no field answers (`?q=milk`, a full-text
//! search), or a value the field's type cannot take (`?done=1` of a
//! bool, `?userId=eq.2` of a number: a server's own syntax) cannot be
//! judged: the list goes stale (on show, and fetched again in the
//! background) rather than left wrong. A text field's value in a
//! server's syntax (`?title=eq.a`) reads as text; when an update's record
//! that the list holds fails such a filter both before and after the
//! update, the server listed it by another reading, and the list goes
//! stale with the record kept instead of dropping it.

/// A record's field, as a query string would write it: what a list's
/// filter (`?userId=2`) compares with, when a created record may join the
/// list. See [`QueryText`].
///
/// ```
/// use restcache::rest::{FieldText, QueryText};
/// assert_eq!(7u32.query_text(), FieldText::Integer(7));
/// assert_eq!("tea".query_text(), FieldText::Text("tea".into()));
/// assert_eq!(None::<u32>.query_text(), FieldText::Null);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum FieldText {
    /// The value, written as in a query string (`2`, `tea`, `true`).
    Text(String),
    /// A float: a filter value matches when it reads as the same number.
    Number(f64),
    /// An integer: a filter value matches when it reads as the same
    /// number (`2`, `2.0`).
    Integer(i128),
    /// A bool: a filter value of `true` or `false` matches or not; any
    /// other value (`1`, `yes`) cannot be judged.
    Bool(bool),
    /// The field holds nothing (`None`): it matches no filter value.
    Null,
    /// A field whose value has no query-string form (a list, a struct).
    Opaque,
    /// No field of that name.
    NoField,
}

/// What a filter says of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Every filter holds: the record belongs in the list.
    Joins,
    /// A filter does not hold.
    Stays,
    /// A filter cannot be judged: no field answers it (`?q=milk`, a
    /// `sort`), or the field's value has no query-string form.
    Unknown,
    /// A filter names a field, in a syntax its type cannot take
    /// (`?done=1` of a bool, `?userId=eq.2`): whether the record still
    /// belongs is the server's to say.
    Unreadable,
}

/// Judges a record, whose fields `field_text` reads, against `pairs`, the
/// list's query (a name given twice holds when any of its values does).
pub(crate) fn judge(field_text: impl Fn(&str) -> FieldText, pairs: &[(String, String)]) -> Verdict {
    let mut verdict = Verdict::Joins;
    let mut names: Vec<&str> = pairs.iter().map(|(name, _)| name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let wanted = pairs.iter().filter(|(n, _)| n == name).map(|(_, v)| v);
        let judged = match field_text(name) {
            FieldText::Text(text) => judge_each(wanted, |value| Some(value == text)),
            FieldText::Number(number) => judge_each(wanted, |value| {
                value.parse::<f64>().ok().map(|v| v == number)
            }),
            FieldText::Integer(number) => judge_each(wanted, |value| match value.parse::<i128>() {
                Ok(v) => Some(v == number),
                Err(_) => value.parse::<f64>().ok().map(|v| v == number as f64),
            }),
            FieldText::Bool(bool) => judge_each(wanted, |value| {
                value.parse::<bool>().ok().map(|v| v == bool)
            }),
            FieldText::Null => Verdict::Stays,
            FieldText::Opaque | FieldText::NoField => Verdict::Unknown,
        };
        // A filter that fails decides; one the server must judge outweighs
        // one nobody can.
        verdict = match (judged, verdict) {
            (Verdict::Stays, _) => return Verdict::Stays,
            (Verdict::Unreadable, _) | (_, Verdict::Unreadable) => Verdict::Unreadable,
            (Verdict::Unknown, _) | (_, Verdict::Unknown) => Verdict::Unknown,
            (Verdict::Joins, _) => Verdict::Joins,
        };
    }
    verdict
}

/// Judges one filter's `values` (any may hold) by `same`: whether a
/// value names the field's (`None`: a value the field's type cannot
/// take, which cannot be judged).
fn judge_each<'v>(
    values: impl Iterator<Item = &'v String>,
    same: impl Fn(&str) -> Option<bool>,
) -> Verdict {
    let mut verdict = Verdict::Stays;
    for value in values {
        match same(value) {
            Some(true) => return Verdict::Joins,
            Some(false) => {}
            None => verdict = Verdict::Unreadable,
        }
    }
    verdict
}

/// A value with a query-string form: what a filter on a field of this
/// type compares with. Numbers, text, bools and `Option`s of them have
/// one; a field type of one's own (an id newtype) gets one by
/// implementing it, so that lists filtered by it take created records
/// instead of being fetched again.
///
/// ```
/// use restcache::rest::{FieldText, QueryText};
///
/// struct UserId(u64);
/// impl QueryText for UserId {
///     fn query_text(&self) -> FieldText {
///         self.0.query_text()
///     }
/// }
/// assert_eq!(UserId(2).query_text(), FieldText::Integer(2));
/// ```
pub trait QueryText {
    /// The value as a query string writes it, or [`FieldText::Null`].
    fn query_text(&self) -> FieldText;
}

macro_rules! displayed {
    ($($ty:ty),* $(,)?) => {$(
        impl QueryText for $ty {
            fn query_text(&self) -> FieldText {
                FieldText::Text(self.to_string())
            }
        }
    )*};
}

displayed!(char, str, String);

macro_rules! integer {
    ($($ty:ty),* $(,)?) => {$(
        impl QueryText for $ty {
            fn query_text(&self) -> FieldText {
                match i128::try_from(*self) {
                    Ok(number) => FieldText::Integer(number),
                    Err(_) => FieldText::Text(self.to_string()),
                }
            }
        }
    )*};
}

integer!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

impl QueryText for bool {
    fn query_text(&self) -> FieldText {
        FieldText::Bool(*self)
    }
}

impl QueryText for f64 {
    fn query_text(&self) -> FieldText {
        FieldText::Number(*self)
    }
}

impl QueryText for f32 {
    fn query_text(&self) -> FieldText {
        FieldText::Number(f64::from(*self))
    }
}

impl QueryText for std::rc::Rc<str> {
    fn query_text(&self) -> FieldText {
        FieldText::Text(self.to_string())
    }
}

impl QueryText for crate::pk::Pk {
    fn query_text(&self) -> FieldText {
        match self.as_ref() {
            crate::pk::PkRef::Number(number) => FieldText::Integer(i128::from(number)),
            crate::pk::PkRef::Text(text) => FieldText::Text(text.to_owned()),
        }
    }
}

impl<T: QueryText> QueryText for Option<T> {
    fn query_text(&self) -> FieldText {
        match self {
            Some(value) => value.query_text(),
            None => FieldText::Null,
        }
    }
}

impl<T: QueryText + ?Sized> QueryText for &T {
    fn query_text(&self) -> FieldText {
        (**self).query_text()
    }
}

/// The derive's way to read any field's text: a field whose type has a
/// query-string form gives it, any other field is opaque. (`Field(&x)`
/// picks `ByText` when `x: QueryText`, else falls back to `Opaque`
/// through one more reference.)
pub mod field {
    use super::{FieldText, QueryText};

    /// A field of a record, to read as a filter compares it.
    pub struct Field<'a, T: ?Sized>(pub &'a T);

    /// A field whose type has a query-string form.
    pub trait ByText {
        /// The field's text.
        fn field_text(&self) -> FieldText;
    }

    impl<T: QueryText + ?Sized> ByText for Field<'_, T> {
        fn field_text(&self) -> FieldText {
            self.0.query_text()
        }
    }

    /// Any other field: opaque.
    pub trait Opaque {
        /// [`FieldText::Opaque`].
        fn field_text(&self) -> FieldText;
    }

    impl<T: ?Sized> Opaque for &Field<'_, T> {
        fn field_text(&self) -> FieldText {
            FieldText::Opaque
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    #[test]
    fn a_record_joins_when_every_filter_holds() {
        let todo = |field: &str| match field {
            "userId" => FieldText::Text("2".into()),
            "title" => FieldText::Text("tea".into()),
            _ => FieldText::NoField,
        };
        assert_eq!(judge(todo, &pairs(&[])), Verdict::Joins);
        assert_eq!(judge(todo, &pairs(&[("userId", "2")])), Verdict::Joins);
        assert_eq!(
            judge(todo, &pairs(&[("userId", "1"), ("userId", "2")])),
            Verdict::Joins
        );
        assert_eq!(judge(todo, &pairs(&[("userId", "1")])), Verdict::Stays);
        assert_eq!(judge(todo, &pairs(&[("q", "tea")])), Verdict::Unknown);
    }

    #[test]
    fn a_float_compares_as_a_number() {
        let product = |field: &str| match field {
            "price" => FieldText::Number(1.0),
            _ => FieldText::NoField,
        };
        assert_eq!(judge(product, &pairs(&[("price", "1.0")])), Verdict::Joins);
        assert_eq!(judge(product, &pairs(&[("price", "1")])), Verdict::Joins);
        assert_eq!(judge(product, &pairs(&[("price", "1.5")])), Verdict::Stays);
        assert_eq!(
            judge(product, &pairs(&[("price", "lt.2")])),
            Verdict::Unreadable
        );
    }

    #[test]
    fn a_value_its_field_cannot_take_cannot_be_judged() {
        let todo = |field: &str| match field {
            "userId" => 2u64.query_text(),
            "done" => true.query_text(),
            _ => FieldText::NoField,
        };
        let verdict = |query: &[(&str, &str)]| judge(todo, &pairs(query));
        assert_eq!(verdict(&[("userId", "2.0")]), Verdict::Joins);
        assert_eq!(verdict(&[("userId", "3")]), Verdict::Stays);
        assert_eq!(verdict(&[("userId", "2.5")]), Verdict::Stays);
        assert_eq!(verdict(&[("userId", "eq.2")]), Verdict::Unreadable);
        assert_eq!(
            verdict(&[("userId", "eq.2"), ("q", "x")]),
            Verdict::Unreadable
        );
        assert_eq!(
            verdict(&[("userId", "eq.2"), ("userId", "2")]),
            Verdict::Joins
        );
        assert_eq!(verdict(&[("done", "true")]), Verdict::Joins);
        assert_eq!(verdict(&[("done", "false")]), Verdict::Stays);
        assert_eq!(verdict(&[("done", "1")]), Verdict::Unreadable);
        // A filter that fails outweighs one that cannot be judged.
        assert_eq!(verdict(&[("done", "1"), ("userId", "3")]), Verdict::Stays);
    }
}
