//! Response envelopes: entity fields are normalized, every other field is
//! kept as it came.

use std::rc::Rc;

use crate::common::*;
use restcache::prelude::*;

#[test]
fn wrapped_detail_and_list_share_their_records() {
    let mut store = Store::new();
    store
        .set_json::<TodoList>(
            "GET /todos",
            r#"{"data": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]}"#,
            at(1),
        )
        .unwrap();
    store
        .set_json::<TodoDetail>(
            "GET /todos/2",
            r#"{"data": {"id": 2, "title": "b2", "completed": true}}"#,
            at(2),
        )
        .unwrap();
    assert_eq!(store.entity_count("Todo"), 2);
    let list = store.read::<TodoList>("GET /todos").found();
    let detail = store.read::<TodoDetail>("GET /todos/2").found();
    assert!(Rc::ptr_eq(&list.data[1], &detail.data));
    assert_eq!(list.data[1].title, "b2");
}

#[test]
fn upcoming_birthdays_keep_their_two_lists() {
    let text = r#"{
        "withinSevenDays": [{"id": "1", "name": "Ada", "date": "2026-11-25T00:00:00Z"}],
        "withinThirtyDays": [{"id": "1", "name": "Ada", "date": "2026-11-25T00:00:00Z"},
                             {"id": "2", "name": "Bob", "date": "2026-12-12T00:00:00Z"}]
    }"#;
    let mut store = Store::new();
    store
        .set_json::<UpcomingBirthdays>("POST /api/birthdays/upcoming/", text, at(1))
        .unwrap();
    let upcoming = store
        .read::<UpcomingBirthdays>("POST /api/birthdays/upcoming/")
        .found();
    assert_eq!(upcoming.within_seven_days.len(), 1);
    assert_eq!(upcoming.within_thirty_days.len(), 2);
    assert!(Rc::ptr_eq(
        &upcoming.within_seven_days[0],
        &upcoming.within_thirty_days[0]
    ));
    assert_eq!(store.entity_count("Birthday"), 2);
}

#[test]
fn paginated_posts_keep_their_page_fields() {
    let text = r#"{"results": [{"id": 1, "title": "t1", "content": "c1"}, {"id": 2, "title": "t2", "content": "c2"}],
                   "nextPage": "3", "lastPage": "9"}"#;
    let mut store = Store::new();
    store
        .set_json::<PaginatedPosts>("GET /post?page=2", text, at(1))
        .unwrap();
    let page = store.read::<PaginatedPosts>("GET /post?page=2").found();
    assert_eq!(page.next_page, "3");
    assert_eq!(page.last_page, "9");
    assert_eq!(
        page.results
            .iter()
            .map(|p| p.title.as_str())
            .collect::<Vec<_>>(),
        ["t1", "t2"]
    );

    // A post invalidated elsewhere leaves the page with its other fields.
    store.invalidate_entity::<PaginatedPost>(1u64, Timestamp::from_millis(2));
    let page = store.read::<PaginatedPosts>("GET /post?page=2").found();
    assert_eq!(page.results.len(), 1);
    assert_eq!(
        (page.next_page.as_str(), page.last_page.as_str()),
        ("3", "9")
    );
}

#[test]
fn a_decode_error_in_an_envelope_names_the_innermost_entity() {
    let err = restcache::from_json::<PaginatedPosts>(
        r#"{"results": [{"id": 1}, {"id": 2, "title": false}], "nextPage": "", "lastPage": ""}"#,
    )
    .unwrap_err();
    assert_eq!(err.entity(), Some("PaginatedPost"));
    assert_eq!(err.path().unwrap().to_string(), "results[1].title");

    // A field of the envelope itself is in no entity.
    let err =
        restcache::from_json::<PaginatedPosts>(r#"{"results": [], "nextPage": 3, "lastPage": ""}"#)
            .unwrap_err();
    assert_eq!(err.entity(), None);
    assert_eq!(err.path().unwrap().to_string(), "nextPage");
}

#[test]
fn a_record_missing_its_pk_in_an_envelope_is_located() {
    let mut store = Store::new();
    let err = store
        .set_json::<UpcomingBirthdays>(
            "upcoming",
            r#"{"withinSevenDays": [{"id": "1"}], "withinThirtyDays": [{"id": "2"}, {"name": "no id"}]}"#,
            at(1),
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "`Birthday` record at `withinThirtyDays[1]` has no usable primary key (`id` is missing, null or empty)"
    );
    assert_eq!(store.entity_count("Birthday"), 0);
    assert_eq!(store.result_count(), 0);
}

/// A note whose responses may leave `body` out.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Note {
    id: u64,
    title: String,
    body: Option<String>,
}

/// A store holding note 1 with a body, and `text` (its JSON leaving the
/// body out) written as `S`: the note's body after it.
fn body_after<S: restcache::Schema + serde::de::DeserializeOwned>(text: &str) -> Option<String> {
    let mut store = Store::new();
    let note = Note {
        id: 1,
        title: "first".into(),
        body: Some("kept".into()),
    };
    store.set_entity(note, at(1)).unwrap();
    store.set_json::<S>("notes", text, at(2)).unwrap();
    let note = store.get_entity::<Note>(1u64).into_value().unwrap();
    assert_eq!(note.title, "renamed", "the fields it carries are written");
    note.body.clone()
}

#[test]
fn records_in_generic_flattening_and_nesting_envelopes_keep_what_their_json_left_out() {
    #[derive(Schema, Clone, Debug, Deserialize)]
    struct Envelope<T: restcache::Schema> {
        #[schema(nested)]
        data: T,
        total: u32,
    }
    let text = r#"{"data": [{"id": 1, "title": "renamed"}], "total": 1}"#;
    assert_eq!(
        body_after::<Envelope<Vec<Rc<Note>>>>(text).as_deref(),
        Some("kept")
    );

    #[derive(Schema, Clone, Debug, Deserialize)]
    struct Flattening {
        #[schema(nested)]
        notes: Vec<Rc<Note>>,
        #[serde(flatten)]
        extra: std::collections::HashMap<String, serde_json::Value>,
    }
    let text = r#"{"notes": [{"id": 1, "title": "renamed"}], "cursor": "x"}"#;
    assert_eq!(body_after::<Flattening>(text).as_deref(), Some("kept"));

    #[derive(Schema, Clone, Debug, Deserialize)]
    struct Thread {
        #[schema(nested)]
        note: Rc<Note>,
        #[schema(nested)]
        replies: Vec<Thread>,
    }
    let text = r#"{"note": {"id": 2, "title": "root"}, "replies": [{"note": {"id": 1, "title": "renamed"}, "replies": []}]}"#;
    assert_eq!(body_after::<Thread>(text).as_deref(), Some("kept"));
}

#[test]
fn an_envelope_that_nests_itself_is_read() {
    #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Comment {
        id: u64,
        text: String,
    }
    #[derive(Schema, Clone, Debug, Deserialize)]
    struct Thread {
        #[schema(nested)]
        comment: Rc<Comment>,
        #[schema(nested)]
        replies: Vec<Thread>,
    }
    let text = r#"{"comment": {"id": 1, "text": "a"}, "replies": [{"comment": {"id": 2, "text": "b"}, "replies": []}]}"#;
    let mut store = Store::new();
    let thread = store.set_json::<Thread>("thread", text, at(1)).unwrap();
    assert_eq!(thread.replies[0].comment.text, "b");
    assert_eq!(store.entity_count("Comment"), 2);
}
