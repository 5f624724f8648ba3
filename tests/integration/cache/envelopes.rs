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
