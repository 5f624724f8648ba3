//! Reads that a test expects to find something.

use std::rc::Rc;

use restcache::Lookup;

/// The value of a read the test expects to find; a read that finds
/// nothing fails the test, saying why.
pub trait Found<T> {
    /// The value found.
    fn found(self) -> Rc<T>;
}

impl<T> Found<T> for Lookup<T> {
    #[track_caller]
    fn found(self) -> Rc<T> {
        match self {
            Lookup::Found(value, _) => value,
            Lookup::Invalid => panic!("expected a value; the read is Invalid"),
            Lookup::Absent => panic!("expected a value; nothing is stored under it"),
        }
    }
}
