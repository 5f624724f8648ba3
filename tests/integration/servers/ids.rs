//! Ids as servers send them: numbers sent as text, text ids mixed with
//! numbers, and one bad id in a list of thousands, named by the error.

use std::rc::Rc;

use restcache::http::{Client, ErrorKind};
use restcache::prelude::*;
use restcache_demo::DemoApi;

use crate::common::mock::{once, server};

#[derive(Entity, Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Todo {
    id: u64,
    title: String,
}

/// A todo whose id some servers send as text (`"7"`).
#[derive(Entity, Clone, Debug, Default, Deserialize)]
#[entity(key = "Todo")]
struct LenientTodo {
    #[serde(with = "restcache::wire::number_as_string")]
    id: u64,
    title: String,
}

/// A record whose id is text, which some rows send as numbers.
#[derive(Entity, Clone, Debug, Default, Deserialize)]
struct Item {
    #[serde(with = "restcache::wire::text_or_number")]
    id: String,
}

endpoint!(todos { path: "/todos", schema: Vec<Rc<Todo>> });
endpoint!(lenient_todos { path: "/todos", schema: Vec<Rc<LenientTodo>> });
endpoint!(items { path: "/items", schema: Vec<Rc<Item>> });

#[tokio::test]
async fn one_bad_id_fails_the_list_and_the_error_names_its_record() {
    let (mut server, client) = server().await;
    let mut rows: Vec<String> = (1..=2000)
        .map(|id| format!(r#"{{"id": {id}, "title": "t{id}"}}"#))
        .collect();
    rows[1234] = r#"{"id": "12x5", "title": "the odd one"}"#.into();
    let _list = once(
        server.mock("GET", "/todos"),
        200,
        &format!("[{}]", rows.join(",")),
    )
    .await;
    let error = Controller::new(client)
        .fetch(&todos(), &(), None)
        .await
        .unwrap_err();
    let ErrorKind::Decode(decode) = error.kind() else {
        panic!("{error}");
    };
    assert_eq!(decode.path().unwrap().to_string(), "[1234].id");
    let text = error.to_string();
    assert!(
        text.contains(r#"in the record {"id":"12x5","title":"the odd one"}"#),
        "{text}"
    );
}

#[tokio::test]
async fn numbers_sent_as_text_and_text_ids_sent_as_numbers_are_read() {
    let (mut server, client) = server().await;
    let _todos = once(
        server.mock("GET", "/todos"),
        200,
        r#"[{"id": 1, "title": "a"}, {"id": "2", "title": "b"}]"#,
    )
    .await;
    let _items = once(
        server.mock("GET", "/items"),
        200,
        r#"[{"id": 7}, {"id": "a1b2"}]"#,
    )
    .await;
    let ctrl = Controller::new(client);
    let list = ctrl.fetch(&lenient_todos(), &(), None).await.unwrap();
    assert_eq!(list.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 2]);
    let list = ctrl.fetch(&items(), &(), None).await.unwrap();
    assert_eq!(list[0].id, "7");
    // `7` and `"7"` name one record.
    let seven = ctrl.with_store(|store| store.get_entity::<Item>(7u64).into_value());
    assert_eq!(seven.unwrap().id, "7");
}

/// The demo API sends profile ids as text.
#[derive(Entity, Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Profile {
    #[serde(with = "restcache::wire::number_as_string")]
    id: u64,
    full_name: String,
}

resource!(ProfileResource {
    path: "/profiles/:id",
    schema: Profile
});

#[tokio::test]
async fn a_server_that_sends_numeric_ids_as_text() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let profiles = ctrl
        .fetch(&ProfileResource::get_list(), &(), None)
        .await
        .unwrap();
    assert_eq!(profiles.iter().map(|p| p.id).collect::<Vec<_>>(), [1, 2]);
    let one = ctrl
        .fetch(
            &ProfileResource::get(),
            &ProfileResourceParams { id: 1 },
            None,
        )
        .await
        .unwrap();
    assert_eq!(one.full_name, "Ada Lovelace");
}

#[test]
fn a_record_missing_a_field_is_quoted_too() {
    let text = r#"[{"id": 1, "title": "a"}, {"id": 2}]"#;
    let error = restcache::from_json::<Vec<Rc<Todo>>>(text).unwrap_err();
    assert!(
        error.to_string().contains(r#"in the record {"id":2}"#),
        "{error}"
    );
}
