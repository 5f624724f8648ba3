//! Stand-ins: a value of a schema that says nothing (an empty list, no
//! record, a record's `Default`), for a render whose output nobody reads.
//! A stopped server render pass renders its failed components with them,
//! so that the render can end and Yew tears its components down.
//!
//! A type's `Default` is found by method resolution on a concrete type
//! (what the derives expand to): `(&Probe::<T>::new()).stand_in()` picks
//! [`ByDefault`] when `T: Default`, else [`NoStandIn`] through one more
//! reference.

use std::marker::PhantomData;

/// Asks a type for its stand-in.
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    /// A probe of `T`.
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<T> Default for Probe<T> {
    fn default() -> Self {
        Probe::new()
    }
}

/// A type with a `Default`: that is its stand-in.
pub trait ByDefault<T> {
    /// `T::default()`.
    fn stand_in(&self) -> Option<T>;
}

impl<T: Default> ByDefault<T> for Probe<T> {
    fn stand_in(&self) -> Option<T> {
        Some(T::default())
    }
}

/// Any other type: no stand-in.
pub trait NoStandIn<T> {
    /// `None`.
    fn stand_in(&self) -> Option<T>;
}

impl<T> NoStandIn<T> for &Probe<T> {
    fn stand_in(&self) -> Option<T> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default, Debug, PartialEq)]
    struct WithDefault(u8);
    struct Without;

    #[test]
    // The borrow is what picks the impl.
    #[allow(clippy::needless_borrow)]
    fn a_type_with_a_default_stands_in_by_it() {
        assert_eq!(
            (&Probe::<WithDefault>::new()).stand_in(),
            Some(WithDefault(0))
        );
        assert!((&Probe::<Without>::new()).stand_in().is_none());
    }
}
