//! The normalized store: one copy per record, merge order, invalidation,
//! nested entities several levels deep, whole-or-nothing writes.

use restcache_demo::fixture;

use std::collections::HashMap;
use std::rc::Rc;

use crate::common::{Found, PaginatedPost, PaginatedPosts, Todo, at, todo};
use restcache::prelude::*;

fn todos_json(items: &[(u64, &str)]) -> String {
    let items: Vec<String> = items
        .iter()
        .map(|(id, title)| format!(r#"{{"id": {id}, "title": "{title}"}}"#))
        .collect();
    format!("[{}]", items.join(","))
}

/// Stores a list of todos under `key`, from a request started at `ms`.
fn store_todos(store: &mut Store, key: &str, items: &[(u64, &str)], ms: u64) {
    store
        .set_json::<Vec<Rc<Todo>>>(key, &todos_json(items), at(ms))
        .unwrap();
}

#[test]
fn each_record_is_stored_once_and_shared_by_every_result() {
    let mut store = Store::new();
    store_todos(&mut store, "GET /todos", &[(1, "a"), (2, "b")], 1);
    store
        .set_json::<Rc<Todo>>("GET /todos/2", r#"{"id": 2, "title": "b"}"#, at(1))
        .unwrap();
    assert_eq!(store.entity_count("Todo"), 2);
    let list = store.read::<Vec<Rc<Todo>>>("GET /todos").found();
    let one = store.read::<Rc<Todo>>("GET /todos/2").found();
    assert!(Rc::ptr_eq(&list[1], &one));
}

#[test]
fn the_response_that_started_later_wins_whatever_the_arrival_order() {
    // Newer-started arrives first, older-started arrives last: the newer stays.
    let mut store = Store::new();
    store
        .set_json::<Rc<Todo>>("GET /todos/1", r#"{"id": 1, "title": "newer"}"#, at(20))
        .unwrap();
    store_todos(&mut store, "GET /todos", &[(1, "older"), (2, "b")], 10);
    let list = store.read::<Vec<Rc<Todo>>>("GET /todos").found();
    assert_eq!(list[0].title, "newer");
    assert_eq!(list[1].title, "b");
    assert_eq!(
        store.entity_meta::<Todo>(1u64).unwrap().fetched_at,
        Timestamp::from_millis(20)
    );

    // In arrival order the later-started one simply replaces.
    store_todos(&mut store, "GET /todos", &[(1, "newest")], 30);
    let one = store.read::<Rc<Todo>>("GET /todos/1").found();
    assert_eq!(one.title, "newest");
}

#[test]
fn an_older_result_does_not_replace_a_newer_one_under_the_same_key() {
    let mut store = Store::new();
    store_todos(&mut store, "GET /todos", &[(1, "a"), (2, "b")], 20);
    store_todos(&mut store, "GET /todos", &[(3, "c")], 10);
    let list = store.read::<Vec<Rc<Todo>>>("GET /todos").found();
    assert_eq!(list.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(
        store.result_meta("GET /todos").unwrap().fetched_at,
        Timestamp::from_millis(20)
    );
}

#[test]
fn invalidating_drops_a_record_from_lists_and_makes_direct_reads_invalid() {
    let mut store = Store::new();
    store_todos(&mut store, "GET /todos", &[(1, "a"), (2, "b"), (3, "c")], 1);
    store
        .set_json::<Rc<Todo>>("GET /todos/2", r#"{"id": 2, "title": "b"}"#, at(1))
        .unwrap();
    assert!(store.invalidate_entity::<Todo>(2u64, Timestamp::from_millis(5)));
    assert!(!store.invalidate_entity::<Todo>(99u64, Timestamp::from_millis(5)));

    let list = store.read::<Vec<Rc<Todo>>>("GET /todos").found();
    assert_eq!(list.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 3]);
    assert!(matches!(
        store.read::<Rc<Todo>>("GET /todos/2"),
        Lookup::Invalid
    ));
    assert!(matches!(store.get_entity::<Todo>(2u64), Lookup::Invalid));
    assert_eq!(store.entity_count("Todo"), 2);

    // A response that started before the invalidation does not bring it back...
    store
        .set_json::<Rc<Todo>>("GET /todos/2", r#"{"id": 2, "title": "stale"}"#, at(4))
        .unwrap();
    assert!(matches!(store.get_entity::<Todo>(2u64), Lookup::Invalid));
    // ...one that started after it does, and every list shows it again.
    store
        .set_json::<Rc<Todo>>("GET /todos/2", r#"{"id": 2, "title": "back"}"#, at(6))
        .unwrap();
    let list = store.read::<Vec<Rc<Todo>>>("GET /todos").found();
    assert_eq!(
        list.iter().map(|t| t.title.as_str()).collect::<Vec<_>>(),
        ["a", "back", "c"]
    );
}

#[test]
fn a_list_read_drops_a_gone_record_and_takes_a_changed_one_keeping_the_rest() {
    let mut store = Store::new();
    let items = [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")];
    store_todos(&mut store, "GET /todos", &items, 1);
    let before = store.read::<Vec<Rc<Todo>>>("GET /todos").found();

    store.invalidate_entity::<Todo>(2u64, Timestamp::from_millis(5));
    store
        .set_json::<Rc<Todo>>("GET /todos/4", r#"{"id": 4, "title": "D"}"#, at(6))
        .unwrap();

    let after = store.read::<Vec<Rc<Todo>>>("GET /todos").found();
    let titles: Vec<&str> = after.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(titles, ["a", "c", "D", "e"]);
    // Records that did not change are the very copies read before.
    for (now, then) in [(0, 0), (1, 2), (3, 4)] {
        assert!(Rc::ptr_eq(&after[now], &before[then]));
    }
    assert!(!Rc::ptr_eq(&after[2], &before[3]));
}

#[test]
fn entities_nested_three_levels_are_split_out_and_joined_back() {
    use fixture::{BuildType, Project, Projects, User};
    let mut store = Store::new();
    let text = serde_json::to_string(&fixture::projects(20)).unwrap();
    store
        .set_json::<Projects>("GET /projects", &text, at(1))
        .unwrap();
    assert_eq!(store.entity_count("Project"), 20);
    assert_eq!(
        store.entity_count("BuildType"),
        (0..20).map(|i| i % 5 + 1).sum::<usize>()
    );
    let owners: std::collections::HashSet<usize> = (0..20)
        .flat_map(|i| (0..i % 5 + 1).map(move |j| (i * 3 + j) % 50))
        .collect();
    assert_eq!(store.entity_count("User"), owners.len());

    // The read rebuilds the response exactly.
    let read = store.read::<Projects>("GET /projects").found();
    assert_eq!(*read, fixture::projects(20));

    // One user changes: every build type it owns shows it, through every project.
    let owner = read.project[3].build_types.build_type[0].owner.clone();
    store
        .set_entity(
            User {
                name: "Renamed".into(),
                ..(*owner).clone()
            },
            at(2),
        )
        .unwrap();
    let read = store.read::<Projects>("GET /projects").found();
    let owned: Vec<&Rc<BuildType>> = read
        .project
        .iter()
        .flat_map(|p| &p.build_types.build_type)
        .filter(|bt| bt.owner.id == owner.id)
        .collect();
    assert!(!owned.is_empty());
    assert!(owned.iter().all(|bt| bt.owner.name == "Renamed"));
    let direct = store.get_entity::<Project>("project-3").found();
    assert_eq!(direct.build_types.build_type[0].owner.name, "Renamed");
    assert!(matches!(
        store.get_entity::<Project>("project-99"),
        Lookup::Absent
    ));
}

#[test]
fn a_record_whose_required_nested_entity_is_gone_is_invalid() {
    use fixture::{BuildType, Projects, User};
    let mut store = Store::new();
    store
        .set("GET /projects", fixture::projects(3), at(1))
        .unwrap();
    // project-0_bt0 is owned by user 1.
    store.invalidate_entity::<User>(1u64, Timestamp::from_millis(2));
    assert!(matches!(
        store.get_entity::<BuildType>("project-0_bt0"),
        Lookup::Invalid
    ));
    let read = store.read::<Projects>("GET /projects").found();
    assert!(read.project[0].build_types.build_type.is_empty());
    assert_eq!(read.project[1].build_types.build_type.len(), 2);
}

#[test]
fn optional_and_map_fields_hold_entities_too() {
    #[derive(Entity, Clone, Debug, Default, Deserialize)]
    struct Team {
        id: u64,
        #[entity(nested)]
        lead: Option<Rc<Todo>>,
        #[entity(nested)]
        by_role: HashMap<String, Rc<Todo>>,
    }
    let mut store = Store::new();
    let err = restcache::from_json::<Rc<Team>>(
        r#"{"id": 1, "lead": null, "by_role": {"x": {"id": "1"}}}"#,
    )
    .unwrap_err();
    assert_eq!(err.entity(), Some("Todo"));
    assert_eq!(err.path().unwrap().to_string(), "by_role.x.id");
    let text = r#"{"id": 1, "lead": {"id": 10, "title": "lead"}, "by_role": {"b": {"id": 11}, "a": {"id": 12}, "c": {"id": 10}}}"#;
    store.set_json::<Rc<Team>>("team", text, at(1)).unwrap();
    let team = store.read::<Rc<Team>>("team").found();
    assert!(Rc::ptr_eq(team.lead.as_ref().unwrap(), &team.by_role["c"]));
    assert_eq!(store.entity_count("Todo"), 3);

    store.invalidate_entity::<Todo>(10u64, Timestamp::from_millis(2));
    let mut memo = Memo::new();
    let team = memo.read::<Rc<Team>>(&store, "team").found();
    assert!(team.lead.is_none());
    let mut roles: Vec<&str> = team.by_role.keys().map(String::as_str).collect();
    roles.sort();
    assert_eq!(roles, ["a", "b"]);

    // The rebuilt map still lines up with the store after another change.
    store.set_entity(todo(11, "b2"), at(3)).unwrap();
    let team = memo.read::<Rc<Team>>(&store, "team").found();
    assert_eq!(team.by_role["b"].title, "b2");
    assert_eq!(team.by_role["a"].id, 12);
}

#[test]
fn the_first_copy_of_a_record_in_one_response_is_the_one_kept() {
    let mut store = Store::new();
    store_todos(
        &mut store,
        "GET /todos",
        &[(1, "first"), (2, "b"), (1, "second")],
        1,
    );
    let list = store.read::<Vec<Rc<Todo>>>("GET /todos").found();
    assert_eq!(list.len(), 3);
    assert!(Rc::ptr_eq(&list[0], &list[2]));
    assert_eq!(list[2].title, "first");
}

/// A store holding todos 1 and 2 under `GET /todos` and page 1 of the
/// posts (posts 1 and 2), both from requests started at 1 ms.
fn store_with_todos_and_a_page() -> Store {
    let mut store = Store::new();
    store_todos(&mut store, "GET /todos", &[(1, "a"), (2, "b")], 1);
    let page = r#"{"results": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}], "nextPage": "2", "lastPage": "2"}"#;
    store
        .set_json::<PaginatedPosts>("GET /post?page=1", page, at(1))
        .unwrap();
    store
}

/// Page 2 of the posts: posts 1 and 3 are fine and come first; the third
/// post's id is null.
const PAGE_WITHOUT_A_PK: &str = r#"{"results": [{"id": 1, "title": "changed"}, {"id": 3, "title": "new"}, {"id": null, "title": "no id"}],
                  "nextPage": "3", "lastPage": "3"}"#;

#[test]
fn a_record_without_a_pk_halfway_leaves_every_record_and_result_as_it_was() {
    let mut store = store_with_todos_and_a_page();
    let before_page = store.read::<PaginatedPosts>("GET /post?page=1").found();
    let before_meta = store.entity_meta::<PaginatedPost>(1u64).unwrap();

    let err = store
        .set_json::<PaginatedPosts>("GET /post?page=2", PAGE_WITHOUT_A_PK, at(5))
        .unwrap_err();
    assert_eq!(
        err,
        SchemaError::MissingPk {
            entity: "PaginatedPost",
            field: "id",
            path: vec![
                restcache::Segment::Key("results".into()),
                restcache::Segment::Index(2)
            ]
            .into(),
        }
    );

    assert_eq!(store.entity_count("PaginatedPost"), 2);
    assert!(matches!(
        store.get_entity::<PaginatedPost>(3u64),
        Lookup::Absent
    ));
    assert!(matches!(
        store.read::<PaginatedPosts>("GET /post?page=2"),
        Lookup::Absent
    ));
    assert_eq!(store.entity_meta::<PaginatedPost>(1u64), Some(before_meta));
    let after_page = store.read::<PaginatedPosts>("GET /post?page=1").found();
    assert!(Rc::ptr_eq(&before_page, &after_page));
    assert_eq!(after_page.results[0].title, "a");
}

#[test]
fn a_rolled_back_write_leaves_no_trace_for_the_next_one() {
    let mut store = store_with_todos_and_a_page();
    store
        .set_json::<PaginatedPosts>("GET /post?page=2", PAGE_WITHOUT_A_PK, at(5))
        .unwrap_err();

    // The same records, the bad one mended, write cleanly.
    let good = PAGE_WITHOUT_A_PK.replace(
        r#"{"id": null, "title": "no id"}"#,
        r#"{"id": 4, "title": "d"}"#,
    );
    store
        .set_json::<PaginatedPosts>("GET /post?page=2", &good, at(5))
        .unwrap();
    assert_eq!(store.entity_count("PaginatedPost"), 4);
    let post = store.get_entity::<PaginatedPost>(3u64).found();
    assert_eq!(post.title, "new");
    // Post 1 came later, so it replaced the copy page 1 joins.
    let page_one = store.read::<PaginatedPosts>("GET /post?page=1").found();
    assert_eq!(page_one.results[0].title, "changed");
}

#[test]
fn a_field_of_the_wrong_type_or_text_that_is_not_json_changes_nothing() {
    let mut store = store_with_todos_and_a_page();
    let before = store.read::<Vec<Rc<Todo>>>("GET /todos").found();

    let err = store
        .set_json::<Vec<Rc<Todo>>>("GET /todos", r#"[{"id": 1, "completed": "yes"}]"#, at(6))
        .unwrap_err();
    assert!(
        matches!(
            &err,
            SchemaError::Decode {
                entity: Some("Todo"),
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.path().unwrap().to_string(), "[0].completed");
    let err = store
        .set_json::<Vec<Rc<Todo>>>("GET /todos", "<!doctype html><p>502", at(6))
        .unwrap_err();
    assert!(
        matches!(
            &err,
            SchemaError::Decode {
                line: 1,
                column: 1,
                ..
            }
        ),
        "{err}"
    );
    let err = store
        .set_json::<Vec<Rc<Todo>>>("GET /todos", "[] trailing", at(6))
        .unwrap_err();
    assert!(matches!(&err, SchemaError::Decode { .. }), "{err}");
    assert!(Rc::ptr_eq(
        &before,
        &store.read::<Vec<Rc<Todo>>>("GET /todos").found()
    ));
}

#[test]
fn a_failed_nested_write_rolls_back_every_level() {
    use fixture::{Projects, User};
    let mut store = Store::new();
    store
        .set("GET /projects", fixture::projects(5), at(1))
        .unwrap();
    let user_before = store.get_entity::<User>(1u64).found();

    let mut text = serde_json::to_string(&fixture::projects(8)).unwrap();
    // Empty the id of the very last build type: everything before it is fine.
    text = text.replace(r#""id":"project-7_bt2""#, r#""id":"""#);
    let err = store
        .set_json::<Projects>("GET /projects?all", &text, at(2))
        .unwrap_err();
    assert!(
        matches!(
            &err,
            SchemaError::MissingPk {
                entity: "BuildType",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.path().unwrap().to_string(),
        "project[7].buildTypes.buildType[2]"
    );

    // A user without its id is a decode error, located as deep.
    let text = serde_json::to_string(&fixture::projects(8)).unwrap();
    let last = text.rfind(r#""owner":{"id":"#).unwrap() + r#""owner":{"#.len();
    let text = format!("{}\"uid\"{}", &text[..last], &text[last + 4..]);
    let err = store
        .set_json::<Projects>("GET /projects?all", &text, at(2))
        .unwrap_err();
    assert!(
        matches!(
            &err,
            SchemaError::Decode {
                entity: Some("User"),
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.path().unwrap().to_string(),
        "project[7].buildTypes.buildType[2].owner"
    );

    assert_eq!(store.entity_count("Project"), 5);
    assert_eq!(store.entity_count("BuildType"), 1 + 2 + 3 + 4 + 5);
    assert!(Rc::ptr_eq(
        &user_before,
        &store.get_entity::<User>(1u64).found()
    ));
    assert_eq!(store.result_count(), 1);
}

#[test]
fn two_types_cannot_share_an_entity_key() {
    #[derive(Entity, Clone, Debug, Default, Deserialize)]
    #[entity(key = "Todo")]
    struct Impostor {
        id: u64,
    }
    let mut store = Store::new();
    store.set_entity(todo(1, ""), at(1)).unwrap();
    let err = store.set_entity(Impostor { id: 2 }, at(2)).unwrap_err();
    assert!(
        matches!(err, SchemaError::KeyConflict { key: "Todo", .. }),
        "{err}"
    );
    assert_eq!(store.entity_count("Todo"), 1);
}

#[test]
fn a_result_read_as_another_schema_is_invalid() {
    let mut store = Store::new();
    store_todos(&mut store, "GET /todos", &[(1, "a")], 1);
    assert!(matches!(
        store.read::<Rc<Todo>>("GET /todos"),
        Lookup::Invalid
    ));
    store.invalidate_result("GET /todos", Timestamp::from_millis(2));
    assert!(matches!(
        store.read::<Vec<Rc<Todo>>>("GET /todos"),
        Lookup::Invalid
    ));
    assert!(store.get_entity::<Todo>(1u64).value().is_some());
}

#[test]
fn a_cloned_store_evolves_on_its_own() {
    let mut store = Store::new();
    store_todos(&mut store, "GET /todos", &[(1, "a")], 1);
    let mut copy = store.clone();
    copy.set_entity(todo(1, "copy"), at(2)).unwrap();
    let mut memo = Memo::new();
    assert_eq!(
        memo.read::<Vec<Rc<Todo>>>(&copy, "GET /todos").found()[0].title,
        "copy"
    );
    assert_eq!(
        memo.read::<Vec<Rc<Todo>>>(&store, "GET /todos").found()[0].title,
        "a"
    );
}

#[test]
fn generic_entities_get_one_table_per_instantiation() {
    // Generic entity types are found by `TypeId` rather than by the index
    // the derive gives each plain type; both paths must keep tables apart.
    #[derive(Entity, Clone, Debug, Default, Deserialize)]
    #[entity(key = "Tagged")]
    struct Tagged<T: Clone + Default + 'static> {
        id: u64,
        tag: T,
    }
    #[derive(Entity, Clone, Debug, Default, Deserialize)]
    #[entity(key = "Labelled")]
    struct Labelled<T: Clone + Default + 'static> {
        id: u64,
        label: T,
    }

    let mut store = Store::new();
    store.set_entity(Tagged { id: 1, tag: 7u8 }, at(1)).unwrap();
    store
        .set_entity(
            Labelled {
                id: 1,
                label: String::from("x"),
            },
            at(1),
        )
        .unwrap();
    store.set_entity(todo(1, ""), at(1)).unwrap();

    assert_eq!(
        store.get_entity::<Tagged<u8>>(1u64).value().map(|t| t.tag),
        Some(7)
    );
    assert_eq!(
        store
            .get_entity::<Labelled<String>>(1u64)
            .value()
            .map(|l| l.label.clone()),
        Some(String::from("x"))
    );
    assert!(store.get_entity::<Todo>(1u64).value().is_some());
    assert!(matches!(
        store.get_entity::<Tagged<u16>>(1u64),
        Lookup::Absent
    ));
}

/// A record keyed by text: short, long, digits that are not a canonical
/// number, and digits that are.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Tag {
    #[entity(pk)]
    slug: String,
    label: String,
}

#[test]
fn text_pks_of_every_length_find_their_records_after_writes_and_a_rollback() {
    let slugs: Vec<String> = (0..300)
        .map(|n| match n % 4 {
            0 => format!("t{n}"),
            1 => format!("project-{n}_bt{}", n % 7),
            2 => format!("0{n}"),
            _ => format!("{n:08x}-1c3f-4e5a-9b7d-{n:012x}"),
        })
        .collect();
    let tags = |label: &str| -> String {
        let items: Vec<String> = slugs
            .iter()
            .map(|slug| format!(r#"{{"slug": "{slug}", "label": "{label} {slug}"}}"#))
            .collect();
        format!("[{}]", items.join(","))
    };
    let mut store = Store::new();
    store
        .set_json::<Vec<Rc<Tag>>>("GET /tags", &tags("a"), at(1))
        .unwrap();

    // A write that fails halfway: its new record is forgotten, the
    // records it met stay as they were.
    let failing = r#"[{"slug": "a-new-tag-with-a-long-slug", "label": "new"},
        {"slug": "t0", "label": "changed"}, {"slug": "", "label": "no slug"}]"#;
    let failed = store
        .set_json::<Vec<Rc<Tag>>>("GET /tags?failing", failing, at(2))
        .unwrap_err();
    assert_eq!(
        failed,
        SchemaError::MissingPk {
            entity: "Tag",
            field: "slug",
            path: vec![restcache::Segment::Index(2)].into(),
        }
    );
    assert_eq!(store.get_entity::<Tag>("t0").found().label, "a t0");
    assert!(matches!(
        store.get_entity::<Tag>("a-new-tag-with-a-long-slug"),
        Lookup::Absent
    ));

    store
        .set_json::<Vec<Rc<Tag>>>("GET /tags", &tags("b"), at(3))
        .unwrap();
    assert_eq!(store.entity_count("Tag"), slugs.len());
    for slug in &slugs {
        let tag = store.get_entity::<Tag>(slug.as_str()).found();
        assert_eq!(tag.label, format!("b {slug}"), "{slug}");
    }
    // "7" and 7 name one record; "07" is another.
    store
        .set_json::<Vec<Rc<Tag>>>("GET /tags?n", r#"[{"slug": "7", "label": "seven"}]"#, at(4))
        .unwrap();
    assert_eq!(store.get_entity::<Tag>(7u64).found().label, "seven");
    assert_eq!(store.get_entity::<Tag>("06").found().label, "b 06");
    let list = store.read::<Vec<Rc<Tag>>>("GET /tags").found();
    assert_eq!(list.len(), slugs.len());
    assert!(list.iter().zip(&slugs).all(|(tag, slug)| &tag.slug == slug));
}

/// The tags `slugs` as a JSON list, each labelled `label`.
fn tags_json(slugs: &[String], label: &str) -> String {
    let items: Vec<String> = slugs
        .iter()
        .map(|slug| format!(r#"{{"slug": "{slug}", "label": "{label}"}}"#))
        .collect();
    format!("[{}]", items.join(","))
}

#[test]
fn a_text_pk_whose_record_is_gone_still_names_its_slot() {
    let slugs: Vec<String> = (0..50).map(|n| format!("tag-{n}")).collect();
    let mut store = Store::new();
    store
        .set_json::<Vec<Rc<Tag>>>("GET /tags", &tags_json(&slugs, "first"), at(10))
        .unwrap();
    let delete = |store: &mut Store, slug: &str, ms: u64| {
        store
            .set(
                &format!("DELETE /tags/{slug}"),
                restcache::rest::Deleted::<Tag>::new(Pk::from(slug)),
                at(ms),
            )
            .unwrap();
    };
    // A record deleted, one invalidated, and one the store never held
    // deleted: none of their slots holds a record to read its pk from.
    delete(&mut store, "tag-5", 20);
    assert!(store.invalidate_entity::<Tag>("tag-6", Timestamp::from_millis(20)));
    delete(&mut store, "never-held", 20);
    // Many more records: the index grows and rehashes every slot's pk.
    let more: Vec<String> = (0..2_000).map(|n| format!("more-{n}")).collect();
    store
        .set_json::<Vec<Rc<Tag>>>("GET /more", &tags_json(&more, "more"), at(30))
        .unwrap();

    // A response that started before the deletes finds their slots by
    // text, so it brings none of them back.
    let early = vec![
        "tag-5".to_owned(),
        "tag-6".to_owned(),
        "never-held".to_owned(),
    ];
    store
        .set_json::<Vec<Rc<Tag>>>("GET /early", &tags_json(&early, "early"), at(15))
        .unwrap();
    for slug in &early {
        assert!(
            matches!(store.get_entity::<Tag>(slug.as_str()), Lookup::Invalid),
            "{slug} stays gone"
        );
    }
    assert_eq!(store.entity_count("Tag"), 50 - 2 + 2_000, "none is back");
    // One that started after them brings them back, in the same slots.
    store
        .set_json::<Vec<Rc<Tag>>>("GET /late", &tags_json(&early, "late"), at(40))
        .unwrap();
    for slug in &early {
        assert_eq!(store.get_entity::<Tag>(slug.as_str()).found().label, "late");
    }
    assert_eq!(store.entity_count("Tag"), 50 + 2_000 + 1);
    assert_eq!(store.get_entity::<Tag>("more-1999").found().label, "more");
}

#[test]
fn numeric_pks_at_both_ends_of_the_range_keep_their_records() {
    // The largest pk, then a small one: the pks cannot run on past it.
    let mut store = Store::new();
    store.set_entity(todo(u64::MAX, "last"), at(1)).unwrap();
    store.set_entity(todo(1, "one"), at(1)).unwrap();
    // A list from the largest pk to 0, then one pk more.
    let mut wrapped = Store::new();
    store_todos(
        &mut wrapped,
        "GET /todos",
        &[(u64::MAX, "last"), (0, "zero")],
        1,
    );
    wrapped.set_entity(todo(5, "five"), at(1)).unwrap();

    for (store, pks) in [
        (&store, &[u64::MAX, 1][..]),
        (&wrapped, &[u64::MAX, 0, 5][..]),
    ] {
        for &pk in pks {
            let found = store.get_entity::<Todo>(pk).value().map(|todo| todo.id);
            assert_eq!(found, Some(pk));
        }
    }
    let list = wrapped.read::<Vec<Rc<Todo>>>("GET /todos").found();
    let ids: Vec<u64> = list.iter().map(|todo| todo.id).collect();
    assert_eq!(ids, [u64::MAX, 0]);
}
