//! Sorting short slices without std's slice sorts. `sort` and
//! `sort_unstable` bring several KB of raw wasm per element type into a
//! browser bundle; the few places on every app's paths that sort a
//! handful of items (a query's params, the observers one write concerns)
//! use an insertion sort instead, as quick as any at that size.

/// Sorts `items` so that no item is followed by one `after` puts before
/// it: `after(a, b)` says whether `a` belongs after `b`. Stable: items
/// that neither belongs after keep their order. Quadratic, so for short
/// slices only.
pub(crate) fn insertion_sort<T>(items: &mut [T], after: impl Fn(&T, &T) -> bool) {
    for end in 1..items.len() {
        let mut at = end;
        while at > 0 && after(&items[at - 1], &items[at]) {
            items.swap(at - 1, at);
            at -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::insertion_sort;

    #[test]
    fn sorts_and_keeps_equal_items_in_order() {
        let mut items = [(3, 'a'), (1, 'b'), (3, 'c'), (0, 'd'), (1, 'e')];
        insertion_sort(&mut items, |a, b| a.0 > b.0);
        assert_eq!(items, [(0, 'd'), (1, 'b'), (1, 'e'), (3, 'a'), (3, 'c')]);
    }
}
