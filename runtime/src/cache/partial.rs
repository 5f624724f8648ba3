//! Partial records: one response carries a record with extra parts (an
//! embedded list of comments, an expanded author), another without them.
//! A field a response did not carry keeps its stored value; a field it
//! carried (even as `null`) replaces it.
//!
//! Which fields a response carried is read from its JSON, beside the
//! typed decoding, for schemas whose records have fields that may be
//! absent (`Option`s and fields with a serde default): the absent ones are
//! noted per record, and the store consults the note when the record is
//! merged.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use crate::cache::schema::Schema;

/// The fields a response left out of one record, by wire name: what a
/// merge keeps from the stored copy.
///
/// ```
/// use restcache::Absent;
///
/// let absent = Absent::new(&["comments", "author", "note"], 0b101);
/// assert!(absent.contains("comments") && absent.contains("note"));
/// assert!(!absent.contains("author"));
/// assert_eq!(absent.iter().collect::<Vec<_>>(), ["comments", "note"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Absent {
    fields: &'static [&'static str],
    mask: u64,
}

impl Absent {
    /// The fields among `fields` whose bit is set in `mask` (bit `i` for
    /// `fields[i]`).
    pub fn new(fields: &'static [&'static str], mask: u64) -> Self {
        Absent { fields, mask }
    }

    /// Whether the field `name` was left out.
    pub fn contains(&self, name: &str) -> bool {
        self.iter().any(|field| field == name)
    }

    /// Whether the bit `index` is set: the derive's fast check.
    #[doc(hidden)]
    pub fn has(&self, index: u32) -> bool {
        index < 64 && self.mask & (1 << index) != 0
    }

    /// The fields left out, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.fields
            .iter()
            .take(64)
            .enumerate()
            .filter(|(i, _)| self.mask & (1 << i) != 0)
            .map(|(_, field)| *field)
    }

    /// Whether nothing was left out.
    pub fn is_empty(&self) -> bool {
        self.mask == 0
    }
}

/// The bits of the fields among `fields` (at most 64) that `object` does
/// not carry.
#[doc(hidden)]
pub fn absent_from(fields: &[&str], object: &Map<String, Value>) -> u64 {
    fields
        .iter()
        .take(64)
        .enumerate()
        .filter(|(_, field)| !object.contains_key(**field))
        .fold(0, |mask, (i, _)| mask | (1 << i))
}

type Notes = FxHashMap<usize, (Weak<dyn Any>, u64)>;

thread_local! {
    /// The absent fields of records decoded and not merged yet, by the
    /// record's allocation (the weak reference keeps the address from
    /// being reused while the note stands).
    static NOTES: RefCell<(Notes, usize)> = RefCell::new((FxHashMap::default(), 64));
}

/// Notes that `record`'s fields `mask` were absent from its response.
#[doc(hidden)]
pub fn note_absent<E: 'static>(record: &Rc<E>, mask: u64) {
    if mask == 0 {
        return;
    }
    let weak: Weak<dyn Any> = Rc::downgrade(record) as Weak<dyn Any>;
    NOTES.with(|notes| {
        let (notes, purge_at) = &mut *notes.borrow_mut();
        if notes.len() >= *purge_at {
            // Records decoded and dropped without being stored.
            notes.retain(|_, (weak, _)| weak.strong_count() > 0);
            *purge_at = (notes.len() * 2).max(64);
        }
        notes.insert(Rc::as_ptr(record) as *const () as usize, (weak, mask));
    });
}

/// The absent fields noted for `record`, forgetting the note.
pub(crate) fn take_absent<E: 'static>(record: &Rc<E>) -> u64 {
    let address = Rc::as_ptr(record) as *const () as usize;
    NOTES.with(|notes| {
        let (notes, _) = &mut *notes.borrow_mut();
        if notes.is_empty() {
            return 0; // typed data stored as it is: nothing was noted
        }
        match notes.remove(&address) {
            Some((weak, mask)) if weak.strong_count() > 0 => mask,
            _ => 0,
        }
    })
}

thread_local! {
    static PARTIAL: RefCell<FxHashMap<TypeId, bool>> = RefCell::new(FxHashMap::default());
}

/// Whether a value of `S` may hold a record with fields that may be
/// absent: only then is a response's JSON read for which fields it
/// carried. Worked out once per schema type.
pub(crate) fn may_be_partial<S: Schema>() -> bool {
    let ty = TypeId::of::<S>();
    if let Some(known) = PARTIAL.with(|known| known.borrow().get(&ty).copied()) {
        return known;
    }
    let partial = S::may_be_partial(&mut Vec::new());
    PARTIAL.with(|known| known.borrow_mut().insert(ty, partial));
    partial
}

/// Whether a schema holding records of a type not yet in `seen` may be
/// partial: `seen` breaks the cycles of records that nest their own kind.
#[doc(hidden)]
pub fn first_visit(seen: &mut Vec<TypeId>, ty: TypeId) -> bool {
    if seen.contains(&ty) {
        return false;
    }
    seen.push(ty);
    true
}
