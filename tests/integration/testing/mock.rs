//! The mock client: fixtures and interceptors answer, newest first;
//! delays; a request nothing answers names itself; hooks rendered alone.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use restcache::http::{Method, Request};
use restcache::testing::{Fixture, MockClient, Reply, render_hook, settled};
use restcache::yew::use_suspense;
use serde_json::json;
use yew::functional::Hook;

use crate::common::{TodoResource, TodoResourceParams};
use restcache::testing::RecordedRequest;

fn one(id: u64) -> TodoResourceParams {
    TodoResourceParams { id }
}

#[tokio::test]
async fn a_request_nothing_answers_fails_hard_and_names_itself() {
    let mock = MockClient::new();
    let ctrl = mock.controller();
    let failed = ctrl
        .fetch(&TodoResource::get(), &one(3), None)
        .await
        .unwrap_err();
    assert!(failed.is_hard());
    assert_eq!(
        failed.to_string(),
        "GET http://restcache.test/todos/3: HTTP 404: restcache::testing: nothing answers \
         GET /todos/3: give the mock a Fixture or an interceptor for it"
    );
}

#[tokio::test]
async fn the_newest_answer_wins_and_an_interceptor_keeps_its_state() {
    let mock = MockClient::new();
    let ctrl = mock.controller();
    mock.answer(Fixture::new(
        &TodoResource::get(),
        one(1),
        json!({"id": 1, "title": "old"}),
    ));
    mock.answer(Fixture::new(
        &TodoResource::get(),
        one(1),
        json!({"id": 1, "title": "new"}),
    ));
    let todo = ctrl
        .fetch(&TodoResource::get(), &one(1), None)
        .await
        .unwrap();
    assert_eq!(todo.title, "new");

    // The first call fails, the second succeeds.
    let calls = Rc::new(Cell::new(0));
    let counted = Rc::clone(&calls);
    mock.intercept(move |request| {
        request.is(&TodoResource::get_list()).then(|| {
            counted.set(counted.get() + 1);
            match counted.get() {
                1 => Reply::status(503, "busy"),
                _ => Reply::json(&json!([{"id": 4, "title": "bread"}])),
            }
        })
    });
    let busy = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap_err();
    assert!(busy.is_soft() && busy.status() == Some(503));
    let list = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    assert_eq!(list[0].title, "bread");
    assert_eq!(calls.get(), 2);
    // Reads the interceptor passes on still reach the fixtures.
    let todo = ctrl
        .fetch(&TodoResource::get(), &one(1), None)
        .await
        .unwrap();
    assert_eq!(todo.title, "new");
    assert_eq!(mock.count(Method::Get, "/todos"), 2);
}

#[tokio::test]
async fn a_delayed_reply_keeps_its_read_on_its_way_until_settled() {
    let mock = MockClient::new();
    let slow = Fixture::new(
        &TodoResource::get(),
        one(1),
        json!({"id": 1, "title": "milk"}),
    )
    .after(Duration::from_millis(30));
    mock.answer(slow);
    let ctrl = mock.controller();
    let (get, params) = (TodoResource::get(), one(1));
    let (fetched, ()) = futures_util::join!(ctrl.fetch(&get, &params, None), async {
        assert_eq!(ctrl.in_flight(), 1);
        settled(&ctrl).await;
        assert!(ctrl.is_idle());
    });
    assert_eq!(fetched.unwrap().title, "milk");
}

#[tokio::test]
async fn a_network_failure_reply_is_a_soft_error() {
    let mock = MockClient::new();
    mock.answer(Fixture::reply(
        &TodoResource::get_list(),
        (),
        Reply::network_error("offline"),
    ));
    let failed = mock
        .client()
        .send(Request::new(Method::Get, "/todos"))
        .await
        .unwrap_err();
    assert!(failed.is_soft());
    assert!(failed.to_string().contains("offline"), "{failed}");
}

#[tokio::test]
async fn a_hook_renders_alone_from_fixtures() {
    let mock = MockClient::new();
    mock.answer(Fixture::new(
        &TodoResource::get_list(),
        (),
        json!([{"id": 1, "title": "milk"}]),
    ));
    let ctrl = mock.controller();
    let todos = render_hook(&ctrl, |ctx| {
        use_suspense(&TodoResource::get_list(), ()).run(ctx)
    })
    .await
    .unwrap();
    assert_eq!(todos[0].title, "milk");
    // A second render reads the cache: no request.
    render_hook(&ctrl, |ctx| {
        use_suspense(&TodoResource::get_list(), ()).run(ctx)
    })
    .await
    .unwrap();
    assert_eq!(mock.requests().len(), 1);
    let failed = render_hook(&ctrl, |ctx| {
        use_suspense(&TodoResource::get(), one(5)).run(ctx)
    })
    .await;
    assert_eq!(failed.unwrap_err().status(), Some(404));
}

restcache::endpoint!(page_of_users {
    path: "/users\\?page=:page",
    schema: serde_json::Value
});
restcache::endpoint!(report {
    path: "/reports/:name.json",
    schema: serde_json::Value
});

#[test]
fn a_request_is_matched_to_templates_with_a_query_or_text_after_a_placeholder() {
    let request = |path: &str| RecordedRequest {
        method: Method::Get,
        url: format!("{}{path}", MockClient::BASE_URL),
        path: path.to_owned(),
        headers: restcache::http::HeaderMap::new(),
        body: None,
    };
    let users = request("/users?page=2&size=10");
    let params = users.params_of(&page_of_users()).unwrap();
    assert_eq!(
        (params["page"].as_str(), params["size"].as_str()),
        ("2", "10")
    );
    let sales = request("/reports/q3%20sales.json");
    assert_eq!(sales.params_of(&report()).unwrap()["name"], "q3 sales");
    assert!(request("/reports/q3.csv").params_of(&report()).is_none());
    assert!(request("/users/2").params_of(&page_of_users()).is_none());
    let tags = request("/todos?tag=a&tag=b");
    assert_eq!(tags.query_all("tag"), ["a", "b"]);
    assert_eq!(
        tags.params_of(&TodoResource::get_list()).unwrap()["tag"],
        "a"
    );
}

#[tokio::test]
async fn an_interceptor_may_give_its_mock_new_answers() {
    let mock = MockClient::new();
    let answers = mock.clone();
    // After a create, the list holds the new todo.
    mock.intercept(move |request| {
        request.is(&TodoResource::create()).then(|| {
            let list = json!([{"id": 1, "title": "milk"}]);
            answers.answer(Fixture::new(&TodoResource::get_list(), (), list));
            Reply::json(&json!({"id": 1, "title": "milk"}))
        })
    });
    let ctrl = mock.controller();
    let body = restcache::http::Body::json(&json!({"title": "milk"})).unwrap();
    ctrl.fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    ctrl.invalidate(&TodoResource::get_list(), &());
    let list = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    assert_eq!(list[0].title, "milk");
    assert_eq!(
        format!("{mock:?}"),
        "MockClient { base_url: \"http://restcache.test\", answers: 2, requests: 2 }"
    );
}

/// GraphQL variables written in the order given, as a map whose order is
/// its own (a `HashMap`) writes them.
#[derive(Clone)]
struct InOrder(Vec<(&'static str, u64)>);

impl serde::Serialize for InOrder {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(name, value)| (name, value)))
    }
}

#[tokio::test]
async fn a_graphql_fixture_answers_its_variables_in_any_order() {
    use restcache::rest::{Part, PathTemplate};
    const GRAPHQL: PathTemplate = PathTemplate::new("/graphql", &[Part::Static("/graphql")]);
    let search = restcache::rest::Endpoint::<InOrder, serde_json::Value>::new(
        Method::Post,
        GRAPHQL,
    )
    .graphql(
        "query Search($first: Int!, $after: Int!) { search(first: $first, after: $after) { id } }",
    );
    let mock = MockClient::new();
    let asked = InOrder(vec![("first", 10), ("after", 20)]);
    mock.answer(Fixture::new(&search, asked, json!({"search": [{"id": 1}]})));
    let ctrl = mock.controller();
    let sent = InOrder(vec![("after", 20), ("first", 10)]);
    let found = ctrl.fetch(&search, &sent, None).await.unwrap();
    assert_eq!(found["search"][0]["id"], 1);
}

#[tokio::test]
async fn a_fixture_answers_an_older_api_shape_whatever_method_it_sends() {
    use crate::common::User;
    use restcache::legacy::Resource;
    let mock = MockClient::new();
    let ada = json!({"id": 1, "username": "ada", "email": "a@x", "isManager": false});
    let update = User::update_shape();
    mock.answer(Fixture::new(
        &update.endpoint::<restcache::rest::Mutate>(),
        1,
        ada.clone(),
    ));
    let ctrl = mock.controller();
    let body = restcache::http::Body::json(&ada).unwrap();
    let updated = update.call(&ctrl, &1, Some(body)).await.unwrap();
    assert_eq!(updated.username, "ada");
}

#[tokio::test]
async fn a_fixture_answers_an_older_api_read_shape_that_posts() {
    use restcache::legacy::Query;
    let mock = MockClient::new();
    let me = crate::legacy::current_user_shape();
    let bret = json!({"id": 1, "username": "Bret", "email": "b@x", "isManager": false});
    mock.answer(Fixture::new(
        &me.endpoint::<restcache::rest::Read>(),
        Query::new(),
        bret,
    ));
    let ctrl = mock.controller();
    let user = me.call(&ctrl, &Query::new(), None).await.unwrap();
    assert_eq!(user.username, "Bret");
    assert_eq!(
        mock.count(restcache::http::Method::Post, "/current_user/"),
        1
    );
}

#[tokio::test]
async fn a_fixture_of_the_method_sent_wins_over_one_that_takes_any_write() {
    use crate::common::User;
    use restcache::legacy::Resource;
    let mock = MockClient::new();
    // Older than the fixtures: they answer first.
    mock.intercept(|_| Some(Reply::status(503, "busy")));
    let user = |name: &str| json!({"id": 1, "username": name, "email": "a@x", "isManager": false});
    let update = User::update_shape();
    mock.answer(Fixture::new(
        &update.endpoint::<restcache::rest::Mutate>(),
        1,
        user("updated"),
    ));
    // Registered later: the detail's read, whose own fetch might send
    // any method to the same URL.
    mock.answer(Fixture::new(
        &User::detail_shape().endpoint::<restcache::rest::Read>(),
        1,
        user("read"),
    ));
    // And a delete's, which never answers another method.
    mock.answer(Fixture::new(
        &User::delete_shape().endpoint::<restcache::rest::Delete>(),
        1,
        json!({}),
    ));
    let ctrl = mock.controller();
    let body = restcache::http::Body::json(&user("updated")).unwrap();
    let updated = update.call(&ctrl, &1, Some(body)).await.unwrap();
    assert_eq!(updated.username, "updated");
}

restcache::endpoint!(posts_by_page {
    path: "/posts",
    schema: crate::common::PaginatedPosts,
    params: { page: String, size: u32 },
    paginated_by: "page",
});

#[tokio::test]
async fn a_fixture_answers_its_url_whatever_the_order_of_its_query() {
    let mock = MockClient::new();
    let page = |page: &str| PostsByPageParams {
        page: page.into(),
        size: 1,
    };
    let posts = |id: u64, next: &str| json!({ "results": [{ "id": id, "title": "", "content": "" }], "nextPage": next, "lastPage": "2" });
    mock.answer(Fixture::new(&posts_by_page(), page("1"), posts(1, "2")));
    mock.answer(Fixture::new(&posts_by_page(), page("2"), posts(2, "")));
    let ctrl = mock.controller();
    ctrl.fetch(&posts_by_page(), &page("1"), None)
        .await
        .unwrap();
    // The next page's URL names its page last: `?size=1&page=2`.
    let more = ctrl.fetch_next_page(&posts_by_page(), &page("1")).await;
    assert!(!more.unwrap(), "page 2, the last");
    let all = ctrl.read(&posts_by_page(), &page("1")).data.unwrap();
    let ids: Vec<Option<u64>> = all.results.iter().map(|post| post.id).collect();
    assert_eq!(ids, [Some(1), Some(2)]);
}

restcache::endpoint!(all_todos {
    graphql: "query { todos { id } }",
    path: "/graphql",
    schema: serde_json::Value,
});

restcache::endpoint!(complete {
    graphql: "mutation Complete($id: ID!) { complete(id: $id) { id } }",
    path: "/graphql",
    schema: serde_json::Value,
    params: { id: u64 },
});

#[tokio::test]
async fn a_graphql_request_is_of_its_own_operation_and_its_variables_are_its_params() {
    let mock = MockClient::new();
    mock.intercept(|_| Some(Reply::json(&json!({ "data": { "todos": [] } }))));
    let ctrl = mock.controller();
    ctrl.fetch(&all_todos(), &(), None).await.unwrap();
    ctrl.fetch(&complete(), &CompleteParams { id: 7 }, None)
        .await
        .unwrap();
    let sent = mock.requests();
    assert!(
        sent[0].is(&all_todos()) && !sent[0].is(&complete()),
        "the query is not the mutation"
    );
    assert!(sent[1].is(&complete()) && !sent[1].is(&all_todos()));
    let params = sent[1].params_of(&complete()).unwrap();
    assert_eq!(params["id"], "7", "its variables");
}
