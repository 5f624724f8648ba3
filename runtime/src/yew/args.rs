//! What a hook takes as params: the params themselves, or an `Option` of
//! them, so that a conditional read is written `id.map(|id| Params { id })`.

/// The params a hook accepts for an endpoint whose params are `P`: a `P`
/// (or `&P`), or an `Option<P>` (or `Option<&P>`) where `None` makes the
/// hook do nothing at all (no fetch, no suspense, no error, no
/// subscription).
///
/// The result of the hooks that hand out a value (`use_suspense`,
/// `use_live`, `use_next_page`, the older API's `use_resource`) follows
/// the form: plain params give the value itself, optional params give an
/// `Option` of it (`None` when the params are). The others answer the
/// same way for both forms: `use_cache` and `use_error` an `Option`,
/// `use_dle` a `Dle`.
///
/// ```
/// use restcache::yew::ReadArgs;
///
/// #[derive(PartialEq)]
/// struct Params { id: u64 }
///
/// let plain = Params { id: 1 };
/// assert_eq!(ReadArgs::<Params>::params(&plain).map(|p| p.id), Some(1));
/// let none: Option<Params> = None;
/// assert!(ReadArgs::<Params>::params(&none).is_none());
/// ```
pub trait ReadArgs<P> {
    /// What the hook hands out for a value of type `T`.
    type Output<T>;

    /// The params, or `None` when the hook is to do nothing.
    fn params(&self) -> Option<&P>;

    /// The hook's result from `value`, which is `Some` whenever
    /// [`params`](Self::params) is.
    fn output<T>(value: Option<T>) -> Self::Output<T>;
}

impl<P> ReadArgs<P> for P {
    type Output<T> = T;

    fn params(&self) -> Option<&P> {
        Some(self)
    }

    fn output<T>(value: Option<T>) -> T {
        match value {
            Some(value) => value,
            None => unreachable!("a hook with params hands out a value"),
        }
    }
}

impl<P> ReadArgs<P> for Option<P> {
    type Output<T> = Option<T>;

    fn params(&self) -> Option<&P> {
        self.as_ref()
    }

    fn output<T>(value: Option<T>) -> Option<T> {
        value
    }
}

impl<P> ReadArgs<P> for &P {
    type Output<T> = T;

    fn params(&self) -> Option<&P> {
        Some(self)
    }

    fn output<T>(value: Option<T>) -> T {
        <P as ReadArgs<P>>::output(value)
    }
}

impl<P> ReadArgs<P> for Option<&P> {
    type Output<T> = Option<T>;

    fn params(&self) -> Option<&P> {
        *self
    }

    fn output<T>(value: Option<T>) -> Option<T> {
        value
    }
}
