//! URLs and cache keys: placeholders percent-encoded, other params in a
//! sorted query string, one key per method and URL, a resource's own base
//! address.

use std::rc::Rc;
use std::time::Duration;

use mockito::Matcher;
use restcache::http::{Client, ErrorKind};
use restcache::prelude::*;
use serde_json::json;

use super::TODO_1;
use crate::common::mock::{json_response, once, server};
use crate::common::{Birthday, Todo, TodoResource, TodoResourceParams, current_user};

resource!(pub BirthdayResource {
    path: "/birthdays/:id",
    schema: Birthday,
    data_expiry: Duration::from_secs(5),
    invalid_if_stale: true,
});

endpoint!(pub TodoResource::search {
    path: "/todos/search/:term",
    schema: Vec<Rc<Todo>>,
    params: { term: String, user_id: Option<u64>, tags: Vec<String> },
});

const ELSEWHERE: &str = "http://127.0.0.1:9";

resource!(pub RemoteTodo { path: "/todos/:id", schema: Todo, url_prefix: ELSEWHERE });

#[tokio::test]
async fn path_values_are_percent_encoded_and_never_change_the_path() {
    let (mut server, client) = server().await;
    let birthday =
        json!({"id": "x", "name": "n", "image": "", "source": "", "date": "2026-01-01T00:00:00Z"});
    let admin = once(
        server.mock("GET", "/birthdays/..%2Fadmin"),
        200,
        &birthday.to_string(),
    )
    .await;
    let odd = json_response(
        server.mock("GET", "/birthdays/a%20b%3Fc%23d"),
        200,
        &birthday.to_string(),
    )
    .match_query(Matcher::Missing)
    .expect(1)
    .create_async()
    .await;
    let get = BirthdayResource::get();
    for id in ["../admin", "a b?c#d"] {
        let params = BirthdayResourceParams { id: id.into() };
        client.call(&get, &params, None).await.unwrap();
    }
    admin.assert_async().await;
    odd.assert_async().await;

    // `..` itself would climb out of the path: refused before any request.
    let params = BirthdayResourceParams { id: "..".into() };
    let err = client.call(&get, &params, None).await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Url(_)), "{err}");
    assert!(err.is_hard());
    assert_eq!(
        get.options().data_expiry,
        Some(Duration::from_secs(5)),
        "options are declared on the resource"
    );
    assert!(get.options().invalid_if_stale);
}

#[tokio::test]
async fn params_not_in_the_path_make_a_sorted_query() {
    let (mut server, client) = server().await;
    let search = json_response(server.mock("GET", "/todos/search/a%20b"), 200, "[]")
        .match_query(Matcher::Exact("tags=x&tags=y%26z&user_id=3".into()))
        .expect(1)
        .create_async()
        .await;
    let params = TodoResourceSearchParams {
        term: "a b".into(),
        user_id: Some(3),
        tags: vec!["x".into(), "y&z".into()],
    };
    client
        .call(&TodoResource::search(), &params, None)
        .await
        .unwrap();
    search.assert_async().await;

    let base = "http://127.0.0.1:8080";
    let key = TodoResource::search().key(base, &params).unwrap();
    assert_eq!(
        key,
        "GET http://127.0.0.1:8080/todos/search/a%20b?tags=x&tags=y%26z&user_id=3"
    );
    assert_eq!(
        key,
        TodoResource::search().key(base, &params.clone()).unwrap()
    );
    let none = TodoResourceSearchParams {
        user_id: None,
        ..params
    };
    assert_eq!(
        TodoResource::search().key(base, &none).unwrap(),
        "GET http://127.0.0.1:8080/todos/search/a%20b?tags=x&tags=y%26z"
    );
}

#[test]
fn every_endpoint_has_a_method_and_url_key() {
    let base = "http://127.0.0.1:8080";
    let one = TodoResourceParams { id: 1 };
    assert_eq!(
        TodoResource::get().key(base, &one).unwrap(),
        "GET http://127.0.0.1:8080/todos/1"
    );
    assert_eq!(
        TodoResource::delete().key(base, &one).unwrap(),
        "DELETE http://127.0.0.1:8080/todos/1"
    );
    assert_eq!(
        TodoResource::get_list().key(base, &()).unwrap(),
        "GET http://127.0.0.1:8080/todos"
    );
    assert_eq!(
        current_user().key(base, &()).unwrap(),
        "POST http://127.0.0.1:8080/current_user/"
    );
    assert_ne!(
        TodoResource::get().key(base, &one).unwrap(),
        TodoResource::get()
            .key(base, &TodoResourceParams { id: 2 })
            .unwrap()
    );
}

#[tokio::test]
async fn a_url_prefix_beats_the_clients_base_address() {
    let base = "http://127.0.0.1:8080";
    let one = RemoteTodoParams { id: 1 };
    assert_eq!(
        RemoteTodo::get().key(base, &one).unwrap(),
        "GET http://127.0.0.1:9/todos/1"
    );
    let (mut server, client) = server().await;
    let local = TodoResource::get().with_url_prefix(server.url());
    let get = once(server.mock("GET", "/todos/1"), 200, TODO_1).await;
    let other = Client::new("http://127.0.0.1:9");
    other
        .call(&local, &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap();
    get.assert_async().await;
    drop(client);
}

#[test]
fn a_placeholder_in_the_query_may_be_empty() {
    endpoint!(find { path: "/todos\\?q=:q", schema: Vec<Rc<Todo>>, params: { q: String } });
    let cleared = FindParams { q: String::new() };
    assert_eq!(
        find().key("http://h", &cleared).unwrap(),
        "GET http://h/todos?q="
    );
    let up = TodoResourceSearchParams {
        term: "..".into(),
        user_id: None,
        tags: vec![],
    };
    assert!(
        TodoResource::search().key("http://h", &up).is_err(),
        "a path segment may not lead up"
    );
}

#[tokio::test]
async fn a_base_address_with_a_query_keeps_it_after_the_path() {
    let base = "http://127.0.0.1:8080/api?key=K";
    assert_eq!(
        TodoResource::get()
            .key(base, &TodoResourceParams { id: 1 })
            .unwrap(),
        "GET http://127.0.0.1:8080/api/todos/1?key=K"
    );
    let search = TodoResourceSearchParams {
        term: "milk".into(),
        user_id: Some(2),
        tags: vec![],
    };
    assert_eq!(
        TodoResource::search().key(base, &search).unwrap(),
        "GET http://127.0.0.1:8080/api/todos/search/milk?user_id=2&key=K"
    );
    assert_eq!(
        restcache::http::resolve(base, "/todos?done=1"),
        "http://127.0.0.1:8080/api/todos?done=1&key=K"
    );
    let mut server = mockito::Server::new_async().await;
    let get = once(server.mock("GET", "/api/todos/1?key=K"), 200, TODO_1).await;
    let client = Client::new(format!("{}/api?key=K", server.url()));
    client
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap();
    get.assert_async().await;
}

/// GraphQL variables written in the order given, as a map whose order is
/// its own (a `HashMap`) writes them.
struct InOrder(Vec<(&'static str, u64)>);

impl serde::Serialize for InOrder {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(name, value)| (name, value)))
    }
}

#[test]
fn graphql_variables_in_another_order_name_the_same_read() {
    use restcache::rest::{Part, PathTemplate};
    const GRAPHQL: PathTemplate = PathTemplate::new("/graphql", &[Part::Static("/graphql")]);
    let search = Endpoint::<InOrder, serde_json::Value>::new(Method::Post, GRAPHQL).graphql(
        "query Search($first: Int!, $after: Int!) { search(first: $first, after: $after) { id } }",
    );
    let key = |variables: &[(&'static str, u64)]| {
        search
            .key("http://127.0.0.1:9", &InOrder(variables.to_vec()))
            .unwrap()
    };
    let one = key(&[("first", 10), ("after", 20)]);
    assert_eq!(one, key(&[("after", 20), ("first", 10)]));
    assert_ne!(one, key(&[("first", 10), ("after", 21)]), "other values");
}

endpoint!(pub shops { path: "/shops/:rating", schema: serde_json::Value, params: { rating: f32, min_price: Option<f32>, max_price: f64 } });

#[test]
fn an_f32_param_is_written_as_the_f32_writes_it() {
    let params = ShopsParams {
        rating: 4.1,
        min_price: Some(19.99),
        max_price: 20.1,
    };
    assert_eq!(
        shops().url("http://h", &params).unwrap(),
        "http://h/shops/4.1?max_price=20.1&min_price=19.99",
        "not 4.099999904632568: the f32's own digits"
    );
}

endpoint!(pub sizes { path: "/sizes", schema: serde_json::Value, params: { widths: Vec<f32>, most: Option<f64> } });

/// Params of one's own that flatten a struct holding an `f32`.
#[derive(Clone, Serialize)]
struct Near {
    #[serde(flatten)]
    at: Point,
    radius: f32,
}

#[derive(Clone, Serialize)]
struct Point {
    lat: f32,
}

endpoint!(pub near { path: "/near", schema: serde_json::Value, params: Near });

#[test]
fn an_f32_in_a_list_or_a_flattened_struct_keeps_its_own_digits() {
    let params = SizesParams {
        widths: vec![4.1, 0.3],
        most: Some(20.1),
    };
    assert_eq!(
        sizes().url("http://h", &params).unwrap(),
        "http://h/sizes?most=20.1&widths=4.1&widths=0.3"
    );
    let params = Near {
        at: Point { lat: 52.37 },
        radius: 1.1,
    };
    assert_eq!(
        near().url("http://h", &params).unwrap(),
        "http://h/near?lat=52.37&radius=1.1",
        "a flattened struct is read as a map, with the same digits"
    );
}

/// Params of one's own, serialized in camelCase.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct TeamQuery {
    team_id: u64,
    page_size: u32,
}

endpoint!(pub team_users { path: "/teams/:team_id/users", schema: serde_json::Value, params: TeamQuery });

#[derive(Clone, Serialize)]
#[serde(rename_all = "SCREAMING-KEBAB-CASE")]
struct LoudQuery {
    team_id: u64,
}

endpoint!(pub loud_team { path: "/loud/:team_id", schema: serde_json::Value, params: LoudQuery });

#[test]
fn a_placeholder_finds_its_field_under_the_params_rename_all() {
    let params = TeamQuery {
        team_id: 4,
        page_size: 10,
    };
    assert_eq!(
        team_users().url("http://h", &params).unwrap(),
        "http://h/teams/4/users?pageSize=10"
    );
    assert_eq!(
        loud_team()
            .url("http://h", &LoudQuery { team_id: 5 })
            .unwrap(),
        "http://h/loud/5"
    );
}
