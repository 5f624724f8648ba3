//! Whether a record written again equals the stored copy, field by field.
//!
//! A response often repeats records the store holds unchanged: the author
//! nested in every post, the labels of every issue, a whole list fetched
//! again. Such a copy keeps the stored one (only its fetch time moves), so
//! every read that nests the record keeps its value, and no view that
//! shows it renders again. The compare makes a write that repeats what
//! the store holds take longer, so a store does it when asked
//! ([`Store::share_equal_copies`](crate::Store::share_equal_copies)); a
//! controller's store does unless told not to.
//!
//! Each field compares by its type's `PartialEq` when it has one, which
//! method resolution on the concrete type finds (what the derive expands
//! to): `(&Compared(&a)).same_field(&b)` picks [`ByEq`] when the field's
//! type is `PartialEq`, else [`Incomparable`] through one more reference,
//! and a record with such a field is never judged equal. A field of a
//! generic type parameter is `PartialEq` only where the struct bounds it
//! so.

/// One field of a record, to compare with the same field of a copy.
pub struct Compared<'a, T: ?Sized>(pub &'a T);

/// A field whose type has `PartialEq`.
pub trait ByEq<T: ?Sized> {
    /// Whether the two fields are equal.
    fn same_field(&self, other: &T) -> bool;
}

impl<T: PartialEq + ?Sized> ByEq<T> for Compared<'_, T> {
    #[inline]
    fn same_field(&self, other: &T) -> bool {
        self.0 == other
    }
}

/// Any other field: never equal.
pub trait Incomparable<T: ?Sized> {
    /// `false`.
    fn same_field(&self, other: &T) -> bool;
}

impl<T: ?Sized> Incomparable<T> for &Compared<'_, T> {
    #[inline]
    fn same_field(&self, _: &T) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoEq(#[allow(dead_code)] u8);

    #[test]
    #[allow(clippy::needless_borrow)] // the borrow picks the fallback, as in the derive
    fn a_field_compares_by_its_partial_eq_or_not_at_all() {
        assert!((&Compared(&"tea".to_owned())).same_field(&"tea".to_owned()));
        assert!(!(&Compared(&1.5_f64)).same_field(&2.0));
        assert!(!(&Compared(&f64::NAN)).same_field(&f64::NAN));
        assert!(!(&Compared(&NoEq(1))).same_field(&NoEq(1)));
    }
}
