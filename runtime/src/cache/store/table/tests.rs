//! The invariants of one table: which copy a write keeps, how a write
//! is undone, what a delete leaves, how compaction renumbers, and how
//! optimistic layers stack over a slot.

use super::*;

/// The records of these tables are bare strings, which hold no pk.
impl TableRecord for String {
    const NESTS: bool = false;

    fn lent_pk(&self) -> Option<&str> {
        None
    }
}

fn meta(fetched_ms: u64) -> Meta {
    Meta {
        fetched_at: Timestamp::from_millis(fetched_ms),
        ..Meta::default()
    }
}

/// The newer copy wins: a stored slot keeps its record against one
/// fetched earlier.
fn newer_wins(_: &Option<Rc<String>>, stored: &Meta, _: &String, meta: &Meta) -> bool {
    stored.fetched_at > meta.fetched_at
}

/// Writes `text` as record `pk`, fetched at `fetched_ms`, in `version`.
fn write(
    table: &mut Table<String>,
    pk: u64,
    text: &str,
    fetched_ms: u64,
    version: u64,
) -> (u32, Merged, Rc<String>) {
    let mut record = Rc::new(text.to_owned());
    let at = table.locate(&PkKey::owned(Pk::from(pk)));
    let (slot, merged) = table.merge_at(
        at,
        &mut record,
        EntityRefs::new(),
        meta(fetched_ms),
        version,
        false,
        newer_wins,
        String::eq,
    );
    table.commit();
    (slot, merged, record)
}

/// Writes `text` as record `pk` in the optimistic layer `layer`
/// (fetched at `fetched_ms`); returns the slots the layer covers.
fn write_layer(
    table: &mut Table<String>,
    pk: u64,
    text: &str,
    fetched_ms: u64,
    layer: u64,
) -> Vec<u32> {
    let len = table.slot_count();
    let mut record = Rc::new(text.to_owned());
    let at = table.locate(&PkKey::owned(Pk::from(pk)));
    table.merge_at(
        at,
        &mut record,
        EntityRefs::new(),
        meta(fetched_ms),
        layer,
        true,
        newer_wins,
        String::eq,
    );
    table.commit_layer(layer, len)
}

fn shown(table: &Table<String>, pk: u64) -> Option<String> {
    let slot = table.slot_of(&Pk::from(pk))?;
    table.slot(slot)?.record.as_deref().cloned()
}

#[test]
fn a_write_keeps_the_copy_fetched_last_and_hands_it_back() {
    let mut table = Table::new();
    write(&mut table, 1, "new", 20, 1);
    let (_, merged, kept) = write(&mut table, 1, "old", 10, 2);
    assert_eq!(merged, Merged::Kept, "an older copy changes nothing");
    assert_eq!(*kept, "new", "the writer gets the table's copy");
    let (_, merged, _) = write(&mut table, 1, "newer", 30, 3);
    assert_eq!(merged, Merged::Replaced);
    assert_eq!(shown(&table, 1).as_deref(), Some("newer"));
}

#[test]
fn the_very_record_or_an_equal_copy_written_again_only_refreshes_its_meta() {
    let mut table = Table::new();
    let (slot, _, stored) = write(&mut table, 1, "same", 10, 1);
    let mut again = Rc::clone(&stored);
    let pk = Pk::from(1_u64);
    let at = table.locate(&PkKey::owned(pk.clone()));
    let (_, merged) = table.merge_at(
        at,
        &mut again,
        EntityRefs::new(),
        meta(20),
        2,
        false,
        newer_wins,
        String::eq,
    );
    table.commit();
    assert_eq!(merged, Merged::Refreshed);
    let written = table.slot(slot).expect("the slot stays");
    let origin = table.origin_of(written.origin);
    assert_eq!(origin.meta, meta(20), "the newer fetch time is kept");
    assert_eq!(origin.version, 2);
    let (_, merged, copy) = write(&mut table, 1, "same", 30, 3);
    assert_eq!(merged, Merged::Refreshed, "an equal copy changes no read");
    assert!(
        Rc::ptr_eq(&copy, &stored),
        "the writer gets the stored copy"
    );
    let origin = table.slot(slot).map(|s| table.origin_of(s.origin).meta);
    assert_eq!(origin, Some(meta(30)));
    let (_, merged, _) = write(&mut table, 1, "changed", 40, 5);
    assert_eq!(merged, Merged::Replaced);
}

#[test]
fn within_one_write_the_first_copy_of_a_record_is_kept() {
    let mut table = Table::new();
    let mut first = Rc::new("first".to_owned());
    let mut second = Rc::new("second".to_owned());
    let pk = Pk::from(1_u64);
    let at = table.locate(&PkKey::owned(pk.clone()));
    table.merge_at(
        at,
        &mut first,
        EntityRefs::new(),
        meta(10),
        1,
        false,
        newer_wins,
        String::eq,
    );
    let at = table.locate(&PkKey::owned(pk.clone()));
    table.merge_at(
        at,
        &mut second,
        EntityRefs::new(),
        meta(10),
        1,
        false,
        newer_wins,
        String::eq,
    );
    table.commit();
    assert!(Rc::ptr_eq(&first, &second));
    assert_eq!(shown(&table, 1).as_deref(), Some("first"));
}

#[test]
fn a_rollback_restores_replaced_slots_and_forgets_added_ones() {
    let mut table = Table::new();
    write(&mut table, 1, "kept", 10, 1);
    let len = table.slot_count();
    let mut replaced = Rc::new("replaced".to_owned());
    let mut added = Rc::new("added".to_owned());
    let at = table.locate(&PkKey::owned(Pk::from(1_u64)));
    table.merge_at(
        at,
        &mut replaced,
        EntityRefs::new(),
        meta(20),
        2,
        false,
        newer_wins,
        String::eq,
    );
    let at = table.locate(&PkKey::owned(Pk::from(2_u64)));
    table.merge_at(
        at,
        &mut added,
        EntityRefs::new(),
        meta(20),
        2,
        false,
        newer_wins,
        String::eq,
    );
    table.rollback(len);
    assert_eq!(shown(&table, 1).as_deref(), Some("kept"));
    assert_eq!(
        table.slot_of(&Pk::from(2_u64)),
        None,
        "the index forgets it too"
    );
    assert_eq!(table.slot_count(), 1);
}

#[test]
fn a_delete_of_an_unknown_record_leaves_a_marker_that_older_copies_meet() {
    let mut table = Table::new();
    let slot = table.delete(&Pk::from(5_u64), meta(50), 1, false);
    table.commit();
    assert_eq!(slot, Some(0));
    assert_eq!(table.live(), 0);
    let (_, merged, _) = write(&mut table, 5, "late", 40, 2);
    assert_eq!(
        merged,
        Merged::Kept,
        "a response that started before the delete"
    );
    assert_eq!(shown(&table, 5), None);
    // A delete older than the stored copy changes nothing.
    write(&mut table, 6, "alive", 60, 3);
    assert_eq!(table.delete(&Pk::from(6_u64), meta(55), 4, false), None);
    assert_eq!(shown(&table, 6).as_deref(), Some("alive"));
}

#[test]
fn compaction_renumbers_the_index_and_the_references() {
    let mut table = Table::new();
    for pk in 1..=3 {
        write(&mut table, pk, "t", 10, pk);
    }
    let moved = table.compact(&[true, false, true]);
    assert_eq!(moved, [0, u32::MAX, 1]);
    assert_eq!(table.slot_of(&Pk::from(1_u64)), Some(0));
    assert_eq!(table.slot_of(&Pk::from(2_u64)), None);
    assert_eq!(table.slot_of(&Pk::from(3_u64)), Some(1));
    let mut refs = [
        EntityRef { table: 0, slot: 2 },
        EntityRef { table: 1, slot: 2 },
    ];
    renumber(&mut refs, &[Some(moved)]);
    assert_eq!(refs[0].slot, 1);
    assert_eq!(refs[1].slot, 2, "another table's references stay");
}

#[test]
fn gathering_origins_keeps_what_every_slot_and_layer_came_from() {
    let mut table = Table::new();
    for pk in 1..=100 {
        write(&mut table, pk, "t", pk * 10, pk);
    }
    // Records 1 to 50 again, then an optimistic layer over record 3.
    for pk in 1..=50 {
        write(&mut table, pk, "again", 2_000 + pk, 100 + pk);
    }
    write_layer(&mut table, 3, "optimistic", 5_000, 200);
    let origins = |table: &Table<String>| -> Vec<Origin> {
        (0..table.slot_count() as u32)
            .map(|slot| *table.origin_of(table.slot(slot).unwrap().origin))
            .chain(
                table
                    .layered
                    .values()
                    .map(|under| *table.origin_of(under.confirmed.origin)),
            )
            .collect()
    };
    let before = origins(&table);
    table.gather_origins();
    assert_eq!(origins(&table), before);
    assert_eq!(
        table.origins.len(),
        1 + 100 + 1,
        "the unused first 50 writes are gone: the empty origin, one a \
         record, and the layer's"
    );
    assert!(table.remove_layer(200, &[2], 201));
    assert_eq!(shown(&table, 3).as_deref(), Some("again"));
    let shown = table.origin_of(table.slot(2).unwrap().origin);
    assert_eq!((shown.meta, shown.version), (meta(2_003), 201));
}

#[test]
fn a_confirmed_write_under_a_layer_shows_once_the_layer_goes() {
    let mut table = Table::new();
    write(&mut table, 1, "server", 10, 1);
    // An optimistic write: layer 2 goes on show.
    let covered = write_layer(&mut table, 1, "optimistic", 20, 2);
    assert_eq!(covered, [0]);
    assert!(table.has_layers());
    // A response lands beneath it.
    let (_, merged, _) = write(&mut table, 1, "confirmed", 30, 3);
    assert_eq!(merged, Merged::Kept, "the layer still shows");
    assert_eq!(shown(&table, 1).as_deref(), Some("optimistic"));
    assert!(table.remove_layer(2, &covered, 4));
    assert_eq!(shown(&table, 1).as_deref(), Some("confirmed"));
    assert!(!table.has_layers());
}

/// A record that holds its own text pk, as a derived entity's pk field
/// does: the table's index reads the pk from it.
#[derive(Clone, Debug, PartialEq)]
struct Slug(String);

impl TableRecord for Slug {
    const NESTS: bool = false;

    fn lent_pk(&self) -> Option<&str> {
        Some(&self.0)
    }
}

/// Writes the record `slug`, fetched at `fetched_ms`, as the write
/// `version`: confirmed, or as that optimistic layer when `layer`.
fn write_slug(table: &mut Table<Slug>, slug: &str, fetched_ms: u64, version: u64, layer: bool) {
    let len = table.slot_count();
    let mut record = Rc::new(Slug(slug.to_owned()));
    let key = crate::pk::PkValue::pk_key(&record.0).expect("a text pk");
    let at = table.locate(&key);
    table.merge_at(
        at,
        &mut record,
        EntityRefs::new(),
        meta(fetched_ms),
        version,
        layer,
        |_, stored, _, meta| stored.fetched_at > meta.fetched_at,
        Slug::eq,
    );
    if layer {
        table.commit_layer(version, len);
    } else {
        table.commit();
    }
}

#[test]
fn a_text_pk_no_record_holds_any_more_still_names_its_slot() {
    let mut table = Table::new();
    for (n, slug) in ["kept", "deleted", "invalidated"].into_iter().enumerate() {
        write_slug(&mut table, slug, 10, n as u64 + 1, false);
    }
    // An optimistic create that fails: its slot goes back to holding no
    // record, yet its pk still names it.
    write_slug(&mut table, "created", 20, 4, true);
    assert!(table.remove_layer(4, &[3], 5));
    assert_eq!(
        table.delete(&Pk::from("deleted"), meta(20), 6, false),
        Some(1)
    );
    assert!(table.invalidate(&Pk::from("invalidated"), Timestamp::from_millis(20), 7));
    assert_eq!(
        table.delete(&Pk::from("never held"), meta(20), 8, false),
        Some(4)
    );

    let slots = [
        ("kept", 0),
        ("deleted", 1),
        ("invalidated", 2),
        ("created", 3),
        ("never held", 4),
    ];
    let found = |table: &Table<Slug>, slug: &str| table.slot_of(&Pk::from(slug));
    for (slug, slot) in slots {
        assert_eq!(found(&table, slug), Some(slot), "{slug}");
    }
    // Growing rehashes every pk, the ones no record holds too.
    for n in 0..500 {
        write_slug(&mut table, &format!("more-{n}"), 30, 100 + n, false);
    }
    for (slug, slot) in slots {
        assert_eq!(found(&table, slug), Some(slot), "{slug} after growth");
    }
    // A record written again lands in its old slot.
    write_slug(&mut table, "deleted", 40, 1000, false);
    assert_eq!(found(&table, "deleted"), Some(1));
    assert_eq!(table.slot_count(), 5 + 500);

    // Compaction moves the slots; each pk follows its own.
    let mut keep = vec![true; table.slot_count()];
    keep[0] = false;
    let moved = table.compact(&keep);
    assert_eq!(found(&table, "kept"), None);
    for (slug, slot) in &slots[1..] {
        assert_eq!(
            found(&table, slug),
            Some(moved[*slot as usize]),
            "{slug} moved"
        );
    }
    assert_eq!(found(&table, "more-499"), Some(moved[504]));
}

/// A record that nests others: its table keeps references.
#[derive(Clone, Debug, PartialEq)]
struct Node(&'static str);

impl TableRecord for Node {
    const NESTS: bool = true;

    fn lent_pk(&self) -> Option<&str> {
        None
    }
}

/// Writes the node `pk`, pointing at the slots `to` of table 1, as part
/// of the write `version` (fetched at `version`): confirmed, or as that
/// optimistic layer when `layer`. Leaves the write open.
fn write_node(table: &mut Table<Node>, pk: u64, to: &[u32], version: u64, layer: bool) -> u32 {
    let refs = to
        .iter()
        .map(|&slot| EntityRef { table: 1, slot })
        .collect();
    let mut record = Rc::new(Node("n"));
    let at = table.locate(&PkKey::owned(Pk::from(pk)));
    let keeps = |_: &Option<Rc<Node>>, stored: &Meta, _: &Node, meta: &Meta| {
        stored.fetched_at > meta.fetched_at
    };
    let (slot, _) = table.merge_at(
        at,
        &mut record,
        refs,
        meta(version),
        version,
        layer,
        keeps,
        |_, _| false,
    );
    slot
}

/// The slots of table 1 that slot `slot` points at.
fn pointed(table: &Table<Node>, slot: u32) -> Vec<u32> {
    table.refs_of(slot).iter().map(|r| r.slot).collect()
}

#[test]
fn a_slots_references_follow_its_writes_rollbacks_layers_and_compaction() {
    let mut table = Table::new();
    write_node(&mut table, 1, &[], 1, false);
    write_node(&mut table, 2, &[5, 6], 1, false);
    table.commit();
    assert_eq!(pointed(&table, 0), [] as [u32; 0]);
    assert_eq!(pointed(&table, 1), [5, 6]);

    // A failed write puts the references back and drops the added slot's.
    let len = table.slot_count();
    write_node(&mut table, 1, &[7], 2, false);
    write_node(&mut table, 2, &[], 2, false);
    write_node(&mut table, 3, &[8], 2, false);
    assert_eq!(pointed(&table, 0), [7]);
    assert_eq!(pointed(&table, 1), [] as [u32; 0]);
    table.rollback(len);
    assert_eq!(pointed(&table, 0), [] as [u32; 0]);
    assert_eq!(pointed(&table, 1), [5, 6]);
    assert_eq!(pointed(&table, 2), [] as [u32; 0], "no slot 2 any more");

    // A layer shows its references until it goes.
    let len = table.slot_count();
    write_node(&mut table, 2, &[9], 3, true);
    let covered = table.commit_layer(3, len);
    assert_eq!(pointed(&table, 1), [9]);
    assert!(table.remove_layer(3, &covered, 4));
    assert_eq!(pointed(&table, 1), [5, 6]);

    // A slot added after others with none keeps its own.
    write_node(&mut table, 3, &[], 5, false);
    write_node(&mut table, 4, &[2], 5, false);
    table.commit();
    assert_eq!(pointed(&table, 3), [2]);

    // Compaction moves references with their slots, and renumbering
    // follows the slots they point at.
    let moved = table.compact(&[false, true, true, true]);
    assert_eq!(moved, [u32::MAX, 0, 1, 2]);
    assert_eq!(pointed(&table, 0), [5, 6]);
    assert_eq!(pointed(&table, 2), [2]);
    let mut in_table_1 = vec![u32::MAX; 7];
    (in_table_1[2], in_table_1[5], in_table_1[6]) = (0, 1, 2);
    table.renumber_refs(&[None, Some(in_table_1)]);
    assert_eq!(pointed(&table, 0), [1, 2]);
    assert_eq!(pointed(&table, 2), [0]);

    // A deleted record points at nothing.
    table.delete(&Pk::from(2_u64), meta(9), 6, false);
    table.commit();
    assert_eq!(pointed(&table, 0), [] as [u32; 0]);
}
