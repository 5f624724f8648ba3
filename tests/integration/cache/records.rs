//! The six records of the docs' examples: identity, defaults, wire forms, serde
//! attributes, and storing each in the store.

use std::rc::Rc;

use crate::common::*;
use chrono::{TimeZone, Utc};
use restcache::prelude::*;

#[test]
fn keys_default_to_the_struct_name_or_the_attribute() {
    assert_eq!(Todo::KEY, "Todo");
    assert_eq!(Profile::KEY, "Profile");
    assert_eq!(Comment::KEY, "Comment");
    assert_eq!(Birthday::KEY, "Birthday");
    assert_eq!(PaginatedPost::KEY, "PaginatedPost");
    assert_eq!(User::KEY, "User");
}

#[test]
fn todo_defaults_and_camel_case_wire_form() {
    assert_eq!(
        Todo::default(),
        Todo {
            id: 0,
            user_id: 0,
            title: String::new(),
            completed: false
        }
    );
    let todo: Todo =
        serde_json::from_str(r#"{"userId": 3, "id": 5, "title": "x", "completed": true}"#).unwrap();
    assert_eq!(todo.user_id, 3);
    assert_eq!(todo.pk(), Some(Pk::from("5")));
    let partial: Todo = serde_json::from_str(r#"{"id": 6}"#).unwrap();
    assert_eq!(
        partial,
        Todo {
            id: 6,
            ..Todo::default()
        }
    );
}

#[test]
fn profile_id_arrives_as_a_string_and_is_held_as_a_number() {
    let profile: Profile =
        serde_json::from_str(r#"{"id": "42", "img": "a.png", "fullName": "Ada", "bio": "b"}"#)
            .unwrap();
    assert_eq!(profile.id, Some(42));
    assert_eq!(profile.full_name, "Ada");
    assert_eq!(profile.pk(), Some(Pk::from(42u64)));
    assert_eq!(Profile::default().id, None);
    assert_eq!(Profile::default().pk(), None);
    let wire = serde_json::to_value(&profile).unwrap();
    assert_eq!(wire["id"], "42");
}

#[test]
fn comment_body_keeps_its_newlines() {
    let text = r#"[{"postId": 1, "id": 1, "name": "n", "email": "e@x", "body": "line one\nline two\n\nline four"}]"#;
    let mut store = Store::new();
    store
        .set_json::<Vec<Rc<Comment>>>("GET /comments", text, at(1))
        .unwrap();
    let comments = store.read::<Vec<Rc<Comment>>>("GET /comments").found();
    assert_eq!(comments[0].body, "line one\nline two\n\nline four");
    assert_eq!(comments[0].body.lines().count(), 4);
}

#[test]
fn birthday_date_is_a_date_time_defaulting_to_now() {
    let birthday: Birthday =
        serde_json::from_str(r#"{"id": "b1", "name": "Ada", "date": "1815-12-10T00:00:00Z"}"#)
            .unwrap();
    assert_eq!(
        birthday.date,
        Utc.with_ymd_and_hms(1815, 12, 10, 0, 0, 0).unwrap()
    );
    assert_eq!(birthday.pk(), Some(Pk::from("b1")));

    let before = Utc::now();
    let undated: Birthday = serde_json::from_str(r#"{"id": "b2"}"#).unwrap();
    assert!(undated.date >= before && undated.date <= Utc::now());
    assert_eq!(Birthday::default().id, None);

    let err =
        restcache::from_json::<Rc<Birthday>>(r#"{"id": "b3", "date": "not a date"}"#).unwrap_err();
    assert_eq!(err.entity(), Some("Birthday"));
    assert_eq!(err.path().unwrap().to_string(), "date");
}

#[test]
fn paginated_post_id_may_be_null_but_cannot_be_stored_without_one() {
    let post: PaginatedPost = serde_json::from_str(r#"{"id": null, "title": "t"}"#).unwrap();
    assert_eq!(post.id, None);
    assert_eq!(
        PaginatedPost::default(),
        PaginatedPost {
            id: None,
            title: String::new(),
            content: String::new()
        }
    );

    let mut store = Store::new();
    let err = store
        .set_json::<Rc<PaginatedPost>>("GET /post?page=1", r#"{"id": null, "title": "t"}"#, at(1))
        .unwrap_err();
    assert!(
        matches!(
            err,
            SchemaError::MissingPk {
                entity: "PaginatedPost",
                field: "id",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn user_is_identified_by_its_numeric_id() {
    let mut store = Store::new();
    store
        .set_json::<Rc<User>>(
            "POST /current_user/",
            r#"{"id": 9, "username": "ada"}"#,
            at(1),
        )
        .unwrap();
    let by_number = store.get_entity::<User>(9u64).found();
    let by_string = store.get_entity::<User>("9").found();
    assert!(Rc::ptr_eq(&by_number, &by_string));
    assert_eq!(by_number.username, "ada");
}

#[test]
fn a_number_and_its_string_form_name_one_record() {
    // Profile 42 arrives once with a numeric pk, once as the string "42".
    let mut store = Store::new();
    store
        .set_json::<Rc<Profile>>("a", r#"{"id": 42, "fullName": "old"}"#, at(1))
        .unwrap();
    store
        .set_json::<Rc<Profile>>("b", r#"{"id": "42", "fullName": "new"}"#, at(2))
        .unwrap();
    assert_eq!(store.entity_count("Profile"), 1);
    let a = store.read::<Rc<Profile>>("a").found();
    assert_eq!(a.full_name, "new");
}

#[test]
fn serde_deserialize_with_composes() {
    fn upper<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        String::deserialize(d).map(|s| s.to_uppercase())
    }
    #[derive(Entity, Clone, Debug, Default, Deserialize)]
    struct Tag {
        #[entity(pk)]
        #[serde(rename = "tagName", deserialize_with = "upper")]
        name: String,
        #[serde(default)]
        uses: u32,
    }
    let mut store = Store::new();
    store
        .set_json::<Vec<Rc<Tag>>>("tags", r#"[{"tagName": "rust"}]"#, at(1))
        .unwrap();
    let tag = store.get_entity::<Tag>("RUST").found();
    assert_eq!(tag.uses, 0);
    let err = restcache::from_json::<Vec<Rc<Tag>>>(r#"[{"tagName": 5}]"#).unwrap_err();
    assert_eq!(err.path().unwrap().to_string(), "[0].tagName");
}

#[test]
fn a_nested_value_of_another_shape_leaves_the_records_partial() {
    #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Tag {
        id: u64,
    }
    /// `null` read as no tags.
    fn none_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Rc<Tag>>, D::Error> {
        Option::<Vec<Rc<Tag>>>::deserialize(d).map(Option::unwrap_or_default)
    }
    #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Note {
        id: u64,
        title: String,
        body: Option<String>,
        #[entity(nested)]
        #[serde(default, deserialize_with = "none_as_empty")]
        tags: Vec<Rc<Tag>>,
    }
    let mut store = Store::new();
    for id in [1, 2] {
        let note = Note {
            id,
            body: Some(format!("body {id}")),
            ..Note::default()
        };
        store.set_entity(note, at(1)).unwrap();
    }
    let text = r#"[{"id": 1, "title": "a", "tags": null}, {"id": 2, "title": "b"}]"#;
    store
        .set_json::<Vec<Rc<Note>>>("notes", text, at(2))
        .unwrap();
    let body = |id: u64| store.get_entity::<Note>(id).found().body.clone();
    assert_eq!(body(1).as_deref(), Some("body 1"));
    assert_eq!(body(2).as_deref(), Some("body 2"));
}

#[test]
fn a_record_nested_in_one_with_every_field_required_keeps_its_absent_fields() {
    #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Author {
        id: u64,
        bio: Option<String>,
    }
    #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Book {
        id: u64,
        title: String,
        #[entity(nested)]
        author: Rc<Author>,
    }
    let mut store = Store::new();
    let author = Author {
        id: 1,
        bio: Some("poet".into()),
    };
    store.set_entity(author, at(1)).unwrap();
    let text = r#"[{"id": 7, "title": "Odes", "author": {"id": 1}}]"#;
    store
        .set_json::<Vec<Rc<Book>>>("books", text, at(2))
        .unwrap();
    let bio = store.get_entity::<Author>(1).found().bio.clone();
    assert_eq!(bio.as_deref(), Some("poet"), "the book's JSON left it out");
}

#[test]
fn a_field_serde_never_reads_keeps_its_stored_value() {
    #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Todo {
        id: u64,
        title: String,
        /// The app's own mark, never on the wire.
        #[serde(skip)]
        starred: bool,
    }
    let mut store = Store::new();
    let starred = Todo {
        id: 1,
        title: "a".into(),
        starred: true,
    };
    store.set_entity(starred, at(1)).unwrap();
    // Even a response that names it.
    let text = r#"[{"id": 1, "title": "b", "starred": false}]"#;
    store
        .set_json::<Vec<Rc<Todo>>>("todos", text, at(2))
        .unwrap();
    let todo = store.get_entity::<Todo>(1u64).found();
    assert_eq!((todo.title.as_str(), todo.starred), ("b", true));
}

#[test]
fn an_absent_optional_nested_record_writes_no_record() {
    // A required `Rc<Author>` read by serde's `default` is refused at
    // compile time (tests/ui/fail/entity_nested_record_by_default.rs): it
    // would store a made-up author 0 over the real one.
    #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Author {
        id: u64,
        name: String,
    }
    #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Post {
        id: u64,
        #[entity(nested)]
        #[serde(default)]
        author: Option<Rc<Author>>,
    }
    let mut store = Store::new();
    let root = Author {
        id: 0,
        name: "root".into(),
    };
    store.set_entity(root.clone(), at(1)).unwrap();
    store
        .set_json::<Vec<Rc<Post>>>("posts", r#"[{"id": 1}]"#, at(2))
        .unwrap();
    assert_eq!(store.get_entity::<Author>(0u64).found().name, "root");
    let posts = store.read::<Vec<Rc<Post>>>("posts").into_value().unwrap();
    assert_eq!(posts[0].author, None);
}
