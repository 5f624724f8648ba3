//! Primary keys: the identity of a record inside its entity table.

use std::fmt;

use compact_str::{CompactString, ToCompactString};
use serde::{Serialize, Serializer};

/// The identity of a record: the string form of its primary key.
///
/// A record is identified by the string form of its pk, so the number `5`
/// and the string `"5"` name the same record. `Pk` keeps that rule while
/// storing canonical decimal numbers as integers (no allocation, cheap to
/// hash); any other text is kept inline when short.
///
/// ```
/// use restcache::Pk;
///
/// assert_eq!(Pk::from(5u64), Pk::from("5"));
/// assert_ne!(Pk::from("05"), Pk::from(5u64)); // "05" is another string
/// assert_eq!(Pk::from("project-502").to_string(), "project-502");
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pk(Repr);

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Repr {
    /// A canonical decimal: digits only, no leading zero unless it is `0`.
    Number(u64),
    Text(CompactString),
}

/// A borrowed view of a [`Pk`]: a canonical number or other text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PkRef<'a> {
    Number(u64),
    Text(&'a str),
}

impl<'a> PkRef<'a> {
    /// The pk of a string form, borrowing it: `None` for the empty string.
    #[inline]
    fn of_text(text: &'a str) -> Option<Self> {
        if text.is_empty() {
            return None;
        }
        Some(match canonical_number(text) {
            Some(n) => PkRef::Number(n),
            None => PkRef::Text(text),
        })
    }

    /// The owned pk.
    pub(crate) fn to_pk(self) -> Pk {
        match self {
            PkRef::Number(n) => Pk(Repr::Number(n)),
            PkRef::Text(text) => Pk(Repr::Text(CompactString::new(text))),
        }
    }
}

/// A record's pk read from the field that holds it, borrowing the field's
/// text where it can: what the store finds a record's slot by while
/// writing it, so that a text pk is copied only into the index, and only
/// when the record is new there. Not public API: `#[derive(Entity)]`
/// reads it through [`PkValue`], whose default makes an owned [`Pk`].
///
/// ```
/// use restcache::PkValue;
///
/// let id = String::from("project-12_bt3");
/// assert!(id.pk_key().is_some());
/// assert!(String::new().pk_key().is_none());
/// ```
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct PkKey<'a>(KeyRepr<'a>);

#[derive(Clone, Debug)]
enum KeyRepr<'a> {
    Borrowed(PkRef<'a>),
    Owned(Pk),
}

impl<'a> PkKey<'a> {
    /// The text of a text pk the key borrows from its record: what a
    /// table's pk index reads from the record instead of keeping a copy.
    #[inline]
    pub(crate) fn lent_text(self) -> Option<&'a str> {
        match self.0 {
            KeyRepr::Borrowed(PkRef::Text(text)) => Some(text),
            _ => None,
        }
    }

    /// Whether the key borrows its pk from its record.
    #[inline]
    pub(crate) fn is_lent(&self) -> bool {
        matches!(self.0, KeyRepr::Borrowed(_))
    }
}

impl PkKey<'_> {
    /// A key holding `pk`.
    pub(crate) fn owned(pk: Pk) -> PkKey<'static> {
        PkKey(KeyRepr::Owned(pk))
    }

    /// What the key names.
    #[inline]
    pub(crate) fn as_ref(&self) -> PkRef<'_> {
        match &self.0 {
            KeyRepr::Borrowed(pk) => *pk,
            KeyRepr::Owned(pk) => pk.as_ref(),
        }
    }

    /// The owned pk.
    pub(crate) fn into_pk(self) -> Pk {
        match self.0 {
            KeyRepr::Borrowed(pk) => pk.to_pk(),
            KeyRepr::Owned(pk) => pk,
        }
    }
}

impl Pk {
    /// What the pk is: a canonical number or other text.
    #[inline]
    pub(crate) fn as_ref(&self) -> PkRef<'_> {
        match &self.0 {
            Repr::Number(n) => PkRef::Number(*n),
            Repr::Text(text) => PkRef::Text(text),
        }
    }

    /// The pk of a string form; the empty string is not a usable pk.
    ///
    /// ```
    /// use restcache::Pk;
    /// assert!(Pk::parse("").is_none());
    /// assert_eq!(Pk::parse("42"), Some(Pk::from(42u64)));
    /// ```
    pub fn parse(text: &str) -> Option<Pk> {
        PkRef::of_text(text).map(PkRef::to_pk)
    }
}

/// `Some(n)` when `text` is exactly how `n` prints in decimal.
fn canonical_number(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    if bytes.len() > 20 || (bytes.len() > 1 && bytes[0] == b'0') {
        return None;
    }
    let mut n: u64 = 0;
    for &b in bytes {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(n)
}

impl From<u64> for Pk {
    #[inline]
    fn from(n: u64) -> Self {
        Pk(Repr::Number(n))
    }
}

impl From<&str> for Pk {
    /// The pk of a string form. An empty string gives an empty text pk,
    /// which the store refuses as a record identity; use [`Pk::parse`] to
    /// tell the two apart.
    fn from(text: &str) -> Self {
        Pk::parse(text).unwrap_or(Pk(Repr::Text(CompactString::default())))
    }
}

impl fmt::Display for Pk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Number(n) => write!(f, "{n}"),
            Repr::Text(s) => f.write_str(s),
        }
    }
}

/// A pk serializes as its string form's natural JSON: a number for a
/// canonical decimal, a string otherwise.
impl Serialize for Pk {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Number(n) => serializer.serialize_u64(*n),
            Repr::Text(s) => serializer.serialize_str(s),
        }
    }
}

impl fmt::Debug for Pk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pk({:?})", self.to_string())
    }
}

/// A field type that can serve as a primary key.
///
/// Implemented for the integer types, strings and `Option`s of them. `None`,
/// the empty string and a negative number's sign are handled by the string
/// form: `None` and `""` are no pk at all.
///
/// ```
/// use restcache::{Pk, PkValue};
///
/// assert_eq!(7u32.to_pk(), Some(Pk::from(7u64)));
/// assert_eq!(Some(String::from("abc")).to_pk(), Some(Pk::from("abc")));
/// assert_eq!(None::<u64>.to_pk(), None);
/// assert_eq!((-3i64).to_pk().unwrap().to_string(), "-3");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a primary key",
    label = "not usable as a pk",
    note = "a pk is an integer, a string, or an `Option` of one (its string form identifies the record)"
)]
pub trait PkValue {
    /// The owned type that names a record of this pk in params: itself for
    /// integers and `String`, `String` for other strings, `T`'s for
    /// `Option<T>` (a request always names a record).
    type Param: PkValue + Serialize + Clone + fmt::Debug + PartialEq + 'static;

    /// The pk this value names, or `None` when it names none.
    fn to_pk(&self) -> Option<Pk>;

    /// The same pk, borrowing this value's text where it can (a store's
    /// write finds a record by it). The default makes an owned pk with
    /// [`to_pk`](Self::to_pk); the integer and string types borrow.
    #[doc(hidden)]
    #[inline]
    fn pk_key(&self) -> Option<PkKey<'_>> {
        self.to_pk().map(PkKey::owned)
    }
}

macro_rules! unsigned_pk {
    ($($t:ty),*) => {$(
        impl PkValue for $t {
            type Param = $t;
            #[inline]
            fn to_pk(&self) -> Option<Pk> {
                Some(Pk::from(*self as u64))
            }

            #[inline]
            fn pk_key(&self) -> Option<PkKey<'_>> {
                Some(PkKey(KeyRepr::Borrowed(PkRef::Number(*self as u64))))
            }
        }
    )*};
}
unsigned_pk!(u8, u16, u32, u64, usize);

macro_rules! signed_pk {
    ($($t:ty),*) => {$(
        impl PkValue for $t {
            type Param = $t;
            fn to_pk(&self) -> Option<Pk> {
                Some(match u64::try_from(*self) {
                    Ok(n) => Pk::from(n),
                    Err(_) => Pk(Repr::Text(self.to_compact_string())),
                })
            }
        }
    )*};
}
signed_pk!(i8, i16, i32, i64, isize);

impl PkValue for u128 {
    type Param = u128;

    fn to_pk(&self) -> Option<Pk> {
        Pk::parse(&self.to_compact_string())
    }
}

impl PkValue for str {
    type Param = String;

    fn to_pk(&self) -> Option<Pk> {
        Pk::parse(self)
    }

    #[inline]
    fn pk_key(&self) -> Option<PkKey<'_>> {
        PkRef::of_text(self).map(|pk| PkKey(KeyRepr::Borrowed(pk)))
    }
}

impl PkValue for String {
    type Param = String;

    fn to_pk(&self) -> Option<Pk> {
        Pk::parse(self)
    }

    #[inline]
    fn pk_key(&self) -> Option<PkKey<'_>> {
        PkRef::of_text(self).map(|pk| PkKey(KeyRepr::Borrowed(pk)))
    }
}

impl PkValue for CompactString {
    type Param = String;

    fn to_pk(&self) -> Option<Pk> {
        Pk::parse(self)
    }

    #[inline]
    fn pk_key(&self) -> Option<PkKey<'_>> {
        PkRef::of_text(self).map(|pk| PkKey(KeyRepr::Borrowed(pk)))
    }
}

impl PkValue for std::rc::Rc<str> {
    type Param = String;

    fn to_pk(&self) -> Option<Pk> {
        Pk::parse(self)
    }

    #[inline]
    fn pk_key(&self) -> Option<PkKey<'_>> {
        PkRef::of_text(self).map(|pk| PkKey(KeyRepr::Borrowed(pk)))
    }
}

impl PkValue for Pk {
    type Param = Pk;

    fn to_pk(&self) -> Option<Pk> {
        match &self.0 {
            Repr::Text(s) if s.is_empty() => None,
            _ => Some(self.clone()),
        }
    }

    fn pk_key(&self) -> Option<PkKey<'_>> {
        match &self.0 {
            Repr::Text(s) if s.is_empty() => None,
            _ => Some(PkKey(KeyRepr::Borrowed(self.as_ref()))),
        }
    }
}

impl<T: PkValue + ?Sized> PkValue for &T {
    type Param = T::Param;

    fn to_pk(&self) -> Option<Pk> {
        (**self).to_pk()
    }

    #[inline]
    fn pk_key(&self) -> Option<PkKey<'_>> {
        (**self).pk_key()
    }
}

impl<T: PkValue> PkValue for Option<T> {
    type Param = T::Param;

    fn to_pk(&self) -> Option<Pk> {
        self.as_ref().and_then(PkValue::to_pk)
    }

    #[inline]
    fn pk_key(&self) -> Option<PkKey<'_>> {
        self.as_ref().and_then(PkValue::pk_key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_and_its_string_form_are_one_pk() {
        assert_eq!(Pk::from(5u64), Pk::parse("5").unwrap());
        assert_eq!(5i32.to_pk(), "5".to_pk());
        assert_eq!(Pk::from(0u64), Pk::parse("0").unwrap());
        assert_eq!(u64::MAX.to_pk(), u64::MAX.to_string().to_pk());
    }

    #[test]
    fn non_canonical_digits_stay_text() {
        for text in ["05", "00", "+5", "5 ", "18446744073709551616", "-1"] {
            let pk = Pk::parse(text).unwrap();
            assert_eq!(pk.to_string(), text);
            assert!(matches!(pk.0, Repr::Text(_)), "{text}");
        }
        assert_eq!((-1i64).to_pk(), Pk::parse("-1"));
    }

    #[test]
    fn a_key_names_the_pk_its_value_does() {
        let values: [&dyn PkValue<Param = String>; 6] = [
            &"5",
            &"05",
            &"project-12_bt3",
            &"a-text-pk-longer-than-any-inline-capacity",
            &"",
            &"-1",
        ];
        for value in values {
            assert_eq!(value.pk_key().map(PkKey::into_pk), value.to_pk());
        }
        assert_eq!(7u32.pk_key().map(PkKey::into_pk), Some(Pk::from(7u64)));
        assert_eq!((-3i64).pk_key().map(PkKey::into_pk), (-3i64).to_pk());
        assert_eq!(
            Some(9u64).pk_key().map(PkKey::into_pk),
            Some(Pk::from(9u64))
        );
        assert!(None::<u64>.pk_key().is_none());
        assert_eq!(
            Pk::from("x").pk_key().map(PkKey::into_pk),
            Some(Pk::from("x"))
        );
        assert!(Pk::from("").pk_key().is_none());
    }

    #[test]
    fn empty_and_none_are_no_pk() {
        assert_eq!(Pk::parse(""), None);
        assert_eq!(String::new().to_pk(), None);
        assert_eq!(Some("").to_pk(), None);
        assert_eq!(Pk::from("").to_pk(), None);
    }
}
