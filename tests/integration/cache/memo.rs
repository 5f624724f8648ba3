//! Memoized reads: the same `Rc` while nothing changed; after a change, new
//! values exactly where the changed record is, the old ones everywhere else.

use restcache_demo::fixture;

use std::rc::Rc;

use crate::common::{Found, Todo, at, store_list as list, todo};
use fixture::{BuildType, Project, Projects, User};
use restcache::All;
use restcache::prelude::*;

#[test]
fn a_read_with_nothing_changed_returns_the_same_rc() {
    let mut store = Store::new();
    list(&mut store, "odd", &[1, 3, 5]);
    let mut memo = Memo::new();
    let a = memo.read::<Vec<Rc<Todo>>>(&store, "odd").found();
    let b = memo.read::<Vec<Rc<Todo>>>(&store, "odd").found();
    assert!(Rc::ptr_eq(&a, &b));
    let e1 = memo.entity::<Todo>(&store, 3u64).found();
    let e2 = memo.entity::<Todo>(&store, "3").found();
    assert!(Rc::ptr_eq(&e1, &e2));
    assert!(Rc::ptr_eq(&e1, &a[1]));
}

#[test]
fn a_change_shows_where_the_record_is_and_nowhere_else() {
    let mut store = Store::new();
    list(&mut store, "odd", &[1, 3, 5]);
    list(&mut store, "even", &[2, 4]);
    let mut memo = Memo::new();
    let odd = memo.read::<Vec<Rc<Todo>>>(&store, "odd").found();
    let even = memo.read::<Vec<Rc<Todo>>>(&store, "even").found();
    let five = memo.entity::<Todo>(&store, 5u64).found();

    store.set_entity(todo(3, "changed"), at(2)).unwrap();

    let odd2 = memo.read::<Vec<Rc<Todo>>>(&store, "odd").found();
    assert!(!Rc::ptr_eq(&odd, &odd2));
    assert_eq!(odd2[1].title, "changed");
    assert!(Rc::ptr_eq(&odd[0], &odd2[0]) && Rc::ptr_eq(&odd[2], &odd2[2]));
    // Same table, but none of its records changed.
    let even2 = memo.read::<Vec<Rc<Todo>>>(&store, "even").found();
    assert!(Rc::ptr_eq(&even, &even2));
    assert!(Rc::ptr_eq(
        &five,
        &memo.entity::<Todo>(&store, 5u64).found()
    ));

    // Another, unrelated change: the rebuilt list keeps its new identity.
    store.set_entity(todo(4, "changed too"), at(3)).unwrap();
    let odd3 = memo.read::<Vec<Rc<Todo>>>(&store, "odd").found();
    assert!(Rc::ptr_eq(&odd2, &odd3));
    let even3 = memo.read::<Vec<Rc<Todo>>>(&store, "even").found();
    assert_eq!(even3[1].title, "changed too");
}

#[test]
fn a_change_deep_down_rebuilds_only_the_path_to_it() {
    let mut store = Store::new();
    store
        .set("GET /projects", fixture::projects(30), at(1))
        .unwrap();
    store.set("GET /todos", fixture::todos(10), at(1)).unwrap();
    let mut memo = Memo::new();
    let before = memo.read::<Projects>(&store, "GET /projects").found();
    let p7 = memo.entity::<Project>(&store, "project-7").found();

    // A todo changes: nothing the projects read depends on.
    store.set_entity(fixture::todo(3), at(2)).unwrap();
    assert!(Rc::ptr_eq(
        &before,
        &memo.read::<Projects>(&store, "GET /projects").found()
    ));

    // Of the first 30 projects, user 2 owns project-17_bt0 only.
    let renamed = User {
        name: "Renamed".into(),
        ..fixture::user(1)
    };
    store.set_entity(renamed, at(3)).unwrap();
    let after = memo.read::<Projects>(&store, "GET /projects").found();
    assert!(!Rc::ptr_eq(&before, &after));
    for (i, (old, new)) in before.project.iter().zip(&after.project).enumerate() {
        let touched = new.build_types.build_type.iter().any(|bt| bt.owner.id == 2);
        assert_eq!(!Rc::ptr_eq(old, new), touched, "project-{i}");
        for (old_bt, new_bt) in old
            .build_types
            .build_type
            .iter()
            .zip(&new.build_types.build_type)
        {
            assert_eq!(!Rc::ptr_eq(old_bt, new_bt), new_bt.owner.id == 2);
        }
    }
    assert_eq!(
        after.project[17].build_types.build_type[0].owner.name,
        "Renamed"
    );
    // Entity reads follow the same rule, and share the rebuilt values.
    assert!(Rc::ptr_eq(
        &p7,
        &memo.entity::<Project>(&store, "project-7").found()
    ));
    let p17 = memo.entity::<Project>(&store, "project-17").found();
    assert!(Rc::ptr_eq(&p17, &after.project[17]));
}

#[test]
fn an_equal_copy_deep_down_rebuilds_nothing_in_a_store_that_shares_copies() {
    let mut store = Store::new();
    store.share_equal_copies(true);
    store
        .set("GET /projects", fixture::projects(30), at(1))
        .unwrap();
    let mut memo = Memo::new();
    let before = memo.read::<Projects>(&store, "GET /projects").found();

    // Another response carries user 2 as the projects nest it.
    store
        .set("GET /users/2", Rc::new(fixture::user(1)), at(2))
        .unwrap();

    let after = memo.read::<Projects>(&store, "GET /projects").found();
    assert!(Rc::ptr_eq(&before, &after));
    let user = memo.entity::<User>(&store, 2u64).found();
    let owner = &after.project[17].build_types.build_type[0].owner;
    assert!(Rc::ptr_eq(&user, owner), "one copy of the record");
    assert_eq!(store.entity_meta::<User>(2u64), Some(at(2)));

    // A store that does not share copies takes each one as it comes.
    let mut store = Store::new();
    store
        .set("GET /projects", fixture::projects(30), at(1))
        .unwrap();
    let before = memo.read::<Projects>(&store, "GET /projects").found();
    store
        .set("GET /users/2", Rc::new(fixture::user(1)), at(2))
        .unwrap();
    let after = memo.read::<Projects>(&store, "GET /projects").found();
    assert!(!Rc::ptr_eq(&before, &after));
}

/// A field type with no `PartialEq`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
struct Opaque(#[allow(dead_code)] u8);

#[derive(Entity, Clone, Debug, Default, serde::Deserialize)]
struct Note {
    id: u64,
    text: String,
    extra: Opaque,
}

#[test]
fn a_record_with_a_field_that_cannot_compare_is_always_written_anew() {
    let note = || Note {
        id: 1,
        text: "same".into(),
        extra: Opaque(1),
    };
    let mut store = Store::new();
    store.share_equal_copies(true);
    store.set("one", Rc::new(note()), at(1)).unwrap();
    let mut memo = Memo::new();
    let before = memo.entity::<Note>(&store, 1u64).found();
    store.set("again", Rc::new(note()), at(2)).unwrap();
    let after = memo.entity::<Note>(&store, 1u64).found();
    assert!(!Rc::ptr_eq(&before, &after));
}

#[test]
fn an_invalidated_record_leaves_memoized_lists_and_comes_back() {
    let mut store = Store::new();
    list(&mut store, "all", &[1, 2, 3]);
    let mut memo = Memo::new();
    let first = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
    store.invalidate_entity::<Todo>(2u64, Timestamp::from_millis(5));
    let without = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
    assert_eq!(without.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 3]);
    assert!(matches!(memo.entity::<Todo>(&store, 2u64), Lookup::Invalid));
    assert!(Rc::ptr_eq(
        &without,
        &memo.read::<Vec<Rc<Todo>>>(&store, "all").found()
    ));

    store.set_entity(todo(2, "back"), at(6)).unwrap();
    let with = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
    assert_eq!(
        with.iter().map(|t| t.title.as_str()).collect::<Vec<_>>(),
        ["t", "back", "t"]
    );
    assert!(Rc::ptr_eq(&first[0], &with[0]));
}

#[test]
fn a_rewritten_result_is_read_afresh() {
    let mut store = Store::new();
    list(&mut store, "all", &[1, 2]);
    let mut memo = Memo::new();
    let first = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
    list(&mut store, "all", &[2]);
    let second = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
    assert_eq!(second.len(), 1);
    assert!(!Rc::ptr_eq(&first, &second));
}

#[test]
fn a_memo_used_with_another_store_starts_over() {
    let mut one = Store::new();
    let mut two = Store::new();
    list(&mut one, "all", &[1]);
    list(&mut two, "all", &[1, 2]);
    let mut memo = Memo::new();
    assert_eq!(memo.read::<Vec<Rc<Todo>>>(&one, "all").found().len(), 1);
    assert_eq!(memo.read::<Vec<Rc<Todo>>>(&two, "all").found().len(), 2);
    assert_eq!(memo.read::<Vec<Rc<Todo>>>(&one, "all").found().len(), 1);
}

#[test]
fn a_record_written_back_leaves_the_records_it_nests_as_they_are() {
    let mut store = Store::new();
    store
        .set("GET /projects", fixture::projects(3), at(1))
        .unwrap();
    let mut memo = Memo::new();
    let before = memo.read::<Projects>(&store, "GET /projects").found();
    let build_type = store.get_entity::<BuildType>("project-1_bt0").found();

    // A view renames the project it shows and saves it.
    let mut project = (*before.project[1]).clone();
    project.name = "Renamed".into();
    store.set_entity(project, at(2)).unwrap();

    let after = memo.read::<Projects>(&store, "GET /projects").found();
    assert_eq!(after.project[1].name, "Renamed");
    assert!(Rc::ptr_eq(&before.project[0], &after.project[0]));
    assert!(
        Rc::ptr_eq(
            &build_type,
            &store.get_entity::<BuildType>("project-1_bt0").found()
        ),
        "its build types are the store's own: not copied, not written"
    );
}

#[test]
fn a_long_list_read_after_a_few_writes_changes_exactly_those_items() {
    let mut store = Store::new();
    let ids: Vec<u64> = (1..=100).collect();
    list(&mut store, "all", &ids);
    let mut memo = Memo::new();
    let first = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();

    store.set_entity(todo(7, "seven"), at(2)).unwrap();
    store.set_entity(todo(70, "seventy"), at(2)).unwrap();
    store
        .set_entity(todo(1000, "not in the list"), at(2))
        .unwrap();
    let second = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
    assert_eq!(second.len(), 100);
    for (index, (old, new)) in first.iter().zip(second.iter()).enumerate() {
        let changed = new.id == 7 || new.id == 70;
        assert_eq!(new.id, index as u64 + 1);
        assert_eq!(!Rc::ptr_eq(old, new), changed, "todo {}", new.id);
    }
    assert_eq!(second[6].title, "seven");
    assert_eq!(second[69].title, "seventy");

    // A write to a record the list does not hold keeps the list itself.
    store.set_entity(todo(2000, "elsewhere"), at(3)).unwrap();
    let third = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
    assert!(Rc::ptr_eq(&second, &third));

    // The same record written again, then a record that goes: the list
    // follows each.
    store.set_entity(todo(7, "seven again"), at(4)).unwrap();
    assert_eq!(
        memo.read::<Vec<Rc<Todo>>>(&store, "all").found()[6].title,
        "seven again"
    );
    store.invalidate_entity::<Todo>(50u64, Timestamp::from_millis(5));
    let without = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
    assert_eq!(without.len(), 99);
    assert!(without.iter().all(|t| t.id != 50));
    store.set_entity(todo(50, "back"), at(6)).unwrap();
    let back = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
    assert_eq!(back.len(), 100);
    assert_eq!(back[49].title, "back");
    assert!(Rc::ptr_eq(&back[0], &first[0]));
}

#[test]
fn a_long_list_follows_a_record_its_items_nest() {
    let mut store = Store::new();
    let projects = fixture::projects(40).project;
    store.set("GET /projects", projects, at(1)).unwrap();
    let mut memo = Memo::new();
    let before = memo
        .read::<Vec<Rc<Project>>>(&store, "GET /projects")
        .found();

    let renamed = User {
        name: "Renamed".into(),
        ..fixture::user(1)
    };
    store.set_entity(renamed, at(2)).unwrap();
    let after = memo
        .read::<Vec<Rc<Project>>>(&store, "GET /projects")
        .found();
    let mut touched = 0;
    for (i, (old, new)) in before.iter().zip(after.iter()).enumerate() {
        let owns = new.build_types.build_type.iter().any(|bt| bt.owner.id == 2);
        touched += usize::from(owns);
        assert_eq!(!Rc::ptr_eq(old, new), owns, "project-{i}");
        for bt in &new.build_types.build_type {
            if bt.owner.id == 2 {
                assert_eq!(bt.owner.name, "Renamed");
            }
        }
    }
    assert!(
        touched > 0,
        "user 2 owns a build type of the first 40 projects"
    );
}

#[test]
fn each_write_to_a_long_list_shows_in_exactly_its_item() {
    // 200 records share far fewer change stamps: every item shares its
    // stamp with others, which a write to it must leave as they were.
    let mut store = Store::new();
    let ids: Vec<u64> = (1..=200).collect();
    list(&mut store, "all", &ids);
    let mut memo = Memo::new();
    let mut before = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
    for (round, id) in (1..=200).step_by(3).enumerate() {
        let title = format!("edit {round}");
        store
            .set_entity(todo(id, &title), at(2 + round as u64))
            .unwrap();
        let after = memo.read::<Vec<Rc<Todo>>>(&store, "all").found();
        for (old, new) in before.iter().zip(after.iter()) {
            assert_eq!(
                !Rc::ptr_eq(old, new),
                new.id == id,
                "todo {} after writing {id}",
                new.id
            );
        }
        assert_eq!(after[id as usize - 1].title, title);
        before = after;
    }
}

#[test]
fn a_long_list_follows_each_record_its_items_nest_two_levels_down() {
    // Each project nests build types, which nest one of 50 users: a
    // rename shows in the projects whose build types it owns, and no
    // other project is built again, whichever stamps the users share.
    let mut store = Store::new();
    store
        .set("GET /projects", fixture::projects(100).project, at(1))
        .unwrap();
    let mut memo = Memo::new();
    let mut before = memo
        .read::<Vec<Rc<Project>>>(&store, "GET /projects")
        .found();
    for id in 1..=50_u64 {
        let name = format!("Renamed {id}");
        let renamed = User {
            name: name.clone(),
            ..fixture::user(id as usize - 1)
        };
        store.set_entity(renamed, at(1 + id)).unwrap();
        let after = memo
            .read::<Vec<Rc<Project>>>(&store, "GET /projects")
            .found();
        for (i, (old, new)) in before.iter().zip(after.iter()).enumerate() {
            let owners = new.build_types.build_type.iter().map(|bt| &bt.owner);
            let owns = owners.clone().any(|owner| owner.id == id);
            assert_eq!(!Rc::ptr_eq(old, new), owns, "project-{i}, user {id}");
            for owner in owners.filter(|owner| owner.id <= id) {
                assert_eq!(owner.name, format!("Renamed {}", owner.id), "project-{i}");
            }
        }
        before = after;
    }
}

/// A record that nests users: a few, or more than a read looks at one by
/// one before it builds the record again.
#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Team {
    id: u64,
    #[entity(nested)]
    members: Vec<Rc<User>>,
}

#[test]
fn a_record_follows_each_record_it_nests_few_or_many() {
    // Users 1-49 belong to a team; user 50 to none. Team 1 nests 16,
    // team 2 all 49.
    let mut store = Store::new();
    let user = |u: usize| Rc::new(fixture::user(u));
    let teams = vec![
        Rc::new(Team {
            id: 1,
            members: (0..16).map(user).collect(),
        }),
        Rc::new(Team {
            id: 2,
            members: (0..49).map(user).collect(),
        }),
    ];
    store.set("teams", teams, at(1)).unwrap();
    let mut memo = Memo::new();
    let mut before = memo.read::<Vec<Rc<Team>>>(&store, "teams").found();
    for (round, id) in [16_u64, 1, 49, 33].into_iter().enumerate() {
        let written = 10 * round as u64;
        let renamed = User {
            name: format!("Renamed {id}"),
            ..fixture::user(id as usize - 1)
        };
        store.set_entity(renamed, at(2 + written)).unwrap();
        let after = memo.read::<Vec<Rc<Team>>>(&store, "teams").found();
        for (old, new) in before.iter().zip(after.iter()) {
            let holds = new.members.iter().any(|member| member.id == id);
            assert_eq!(!Rc::ptr_eq(old, new), holds, "team {}, user {id}", new.id);
            if holds {
                assert_eq!(new.members[id as usize - 1].name, format!("Renamed {id}"));
            }
        }
        // A user no team holds leaves every team as it was.
        let outsider = User {
            name: format!("Outsider {round}"),
            ..fixture::user(49)
        };
        store.set_entity(outsider, at(3 + written)).unwrap();
        assert_eq!(
            store.get_entity::<User>(50u64).found().name,
            format!("Outsider {round}")
        );
        let again = memo.read::<Vec<Rc<Team>>>(&store, "teams").found();
        for (old, new) in after.iter().zip(again.iter()) {
            assert!(
                Rc::ptr_eq(old, new),
                "team {}: a user it does not hold",
                new.id
            );
        }
        before = again;
    }
}

/// A record that nests every record of a type, wherever it came from.
#[derive(Entity, Clone, Debug, Deserialize)]
struct Board {
    id: u64,
    #[entity(nested)]
    todos: All<Todo>,
}

#[test]
fn a_record_that_nests_every_record_of_a_type_follows_the_ones_stored_after_it() {
    let mut store = Store::new();
    let board = Board {
        id: 1,
        todos: All::from(vec![Rc::new(todo(1, "one")), Rc::new(todo(2, "two"))]),
    };
    store.set_entity(board, at(1)).unwrap();
    let mut memo = Memo::new();
    let first = memo.entity::<Board>(&store, 1u64).found();
    assert_eq!(first.todos.len(), 2);

    // A todo no write of the board held: the board lists it.
    store.set_entity(todo(3, "three"), at(2)).unwrap();
    let second = memo.entity::<Board>(&store, 1u64).found();
    let titles: Vec<&str> = second.todos.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(titles, ["one", "two", "three"]);

    // Renamed, it shows renamed.
    store.set_entity(todo(3, "three again"), at(3)).unwrap();
    let third = memo.entity::<Board>(&store, 1u64).found();
    assert_eq!(third.todos[2].title, "three again");
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Folder {
    id: u64,
    name: String,
    #[entity(nested)]
    parent: Option<Rc<Folder>>,
}

fn folder(id: u64, name: &str, parent: Option<Rc<Folder>>) -> Rc<Folder> {
    Rc::new(Folder {
        id,
        name: name.to_owned(),
        parent,
    })
}

#[test]
fn a_long_list_follows_records_of_its_own_type_that_its_items_nest() {
    // Folders 101 to 300 are listed; each nests one of folders 1 to 100,
    // unlisted, as its parent (folders 101 and 201 nest folder 1).
    // Records of one type share one range of 16 stamps, so some parents
    // share their child's own stamp (about one child in 16: that none of
    // 200 does has odds of about 1 in 400,000, whatever the stamp hash):
    // a rename of each parent still shows in its two children, and in no
    // other item.
    let mut store = Store::new();
    let parents: Vec<Rc<Folder>> = (1..=100)
        .map(|id| folder(id, &format!("folder {id}"), None))
        .collect();
    let parent_of = |id: u64| (id - 1) % 100 + 1;
    let listed: Vec<Rc<Folder>> = (101..=300)
        .map(|id| {
            let parent = Rc::clone(&parents[parent_of(id) as usize - 1]);
            folder(id, &format!("folder {id}"), Some(parent))
        })
        .collect();
    store.set("GET /folders", listed, at(1)).unwrap();
    let mut memo = Memo::new();
    let read = |memo: &mut Memo, store: &Store| {
        memo.read::<Vec<Rc<Folder>>>(store, "GET /folders").found()
    };
    let mut before = read(&mut memo, &store);
    for id in 1..=100_u64 {
        let name = format!("renamed {id}");
        let renamed = Folder {
            id,
            name: name.clone(),
            parent: None,
        };
        store.set_entity(renamed, at(1 + id)).unwrap();
        let after = read(&mut memo, &store);
        for (old, new) in before.iter().zip(after.iter()) {
            let child = parent_of(new.id) == id;
            assert_eq!(
                !Rc::ptr_eq(old, new),
                child,
                "folder {} after renaming {id}",
                new.id
            );
            let parent = new.parent.as_ref().expect("a parent");
            if child {
                assert_eq!(parent.name, name);
            }
        }
        before = after;
    }
}
