//! Giving back memory: a map or a list that shrank to a small part of
//! what it can hold returns the rest (a hash map never shrinks on its
//! own). Called after a collection, when keys went by the thousand.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

/// A collection that can give back the room it does not use.
pub(crate) trait Sparse {
    /// Returns the room beyond a quarter more than what it holds, when it
    /// holds less than half its room (and more than a little is free).
    fn shrink_if_sparse(&mut self);
}

/// Whether `len` items in room for `capacity` leave enough free to give back.
fn sparse(len: usize, capacity: usize) -> bool {
    capacity > 2 * len + 32
}

impl<K: Eq + Hash, V, S: BuildHasher> Sparse for HashMap<K, V, S> {
    fn shrink_if_sparse(&mut self) {
        if sparse(self.len(), self.capacity()) {
            self.shrink_to(self.len() + self.len() / 4);
        }
    }
}

impl<K: Eq + Hash, V, S: BuildHasher> Sparse for hashbrown::HashMap<K, V, S> {
    fn shrink_if_sparse(&mut self) {
        if sparse(self.len(), self.capacity()) {
            self.shrink_to(self.len() + self.len() / 4);
        }
    }
}

impl<T> Sparse for Vec<T> {
    fn shrink_if_sparse(&mut self) {
        if sparse(self.len(), self.capacity()) {
            self.shrink_to(self.len() + self.len() / 4);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_that_emptied_gives_its_room_back() {
        let mut map: HashMap<u32, u32> = (0..10_000).map(|n| (n, n)).collect();
        map.retain(|n, _| *n < 10);
        map.shrink_if_sparse();
        assert!(map.capacity() < 64, "{}", map.capacity());
        let full = map.capacity();
        map.shrink_if_sparse();
        assert_eq!(map.capacity(), full, "a map about full keeps its room");
    }
}
