//! The demo API's routes: six standard methods for every collection (lists
//! filtered, paged, embedding and expanding as `query` reads; a create
//! answered `201 Created` with its `Location`; a `PUT` replacing the whole
//! record), the custom endpoints of the docs' examples (current user,
//! upcoming birthdays, make manager, paginated posts), and the switches
//! (delay, outage, hits).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use tower_http::cors::CorsLayer;

use super::Shared;
use super::query::ListQuery;
use super::seed::POSTS_PER_PAGE;

type Answer = Result<(StatusCode, Json<Value>), (StatusCode, Json<Value>)>;

pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/{collection}", get(list).post(create))
        .route(
            "/{collection}/{id}",
            get(one).put(replace).patch(update).delete(remove),
        )
        // The older API generation's URLs: every collection under a root
        // with a trailing `/` as well (`/api/birthdays/`, `/api/birthdays/1`).
        .route("/api/{collection}/", get(list).post(create))
        .route(
            "/api/{collection}/{id}",
            get(one).put(replace).patch(update).delete(remove),
        )
        .route("/api/birthdays/upcoming/", post(upcoming_birthdays))
        .route("/users/{id}/make_manager", post(make_manager))
        .route("/current_user/", post(current_user))
        .route("/post", get(post_page))
        .route(
            "/graphql",
            post(super::graphql::handle)
                .with_state((Arc::clone(&shared), super::graphql::schema())),
        )
        // What a test in another process (a browser) reads and sets.
        .route("/__demo/hits", get(hits))
        .route("/__demo/switches", get(switches_now).put(set_switches))
        .route("/__demo/reset", post(reset))
        .merge(super::live::routes())
        .route("/files", post(super::files::upload))
        .route("/files/{id}", get(super::files::download))
        .route("/images/{name}", get(super::files::image))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&shared),
            switches,
        ))
        // Pages on other origins (a browser test, a web demo) may call it.
        .layer(CorsLayer::permissive())
        .with_state(shared)
}

/// Counts the request, then holds it back or refuses it as switched. The
/// control routes (`/__demo/...`) are neither counted nor switched.
async fn switches(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    if request.uri().path().starts_with("/__demo/") {
        return next.run(request).await;
    }
    let route = format!("{} {}", request.method(), request.uri().path());
    *shared
        .hits
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(route)
        .or_default() += 1;
    shared.until_released().await;
    let delay = shared.delay_ms.load(Ordering::Relaxed);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    if shared.outage.load(Ordering::Relaxed) {
        let body = json!({"detail": "the demo API is down (outage switched on)"});
        return (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response();
    }
    next.run(request).await
}

fn not_found(what: impl std::fmt::Display) -> (StatusCode, Json<Value>) {
    (
        StatusCode::NOT_FOUND,
        Json(json!({"detail": format!("no {what}")})),
    )
}

/// Runs `f` on the collection `name`; an unknown one is a 404.
fn with<T>(
    shared: &Shared,
    name: &str,
    f: impl FnOnce(&mut super::Collection) -> Result<T, (StatusCode, Json<Value>)>,
) -> Result<T, (StatusCode, Json<Value>)> {
    let mut collections = shared.collections();
    let collection = collections
        .get_mut(name)
        .ok_or_else(|| not_found(format!("resource `{name}`")))?;
    f(collection)
}

/// The list, as its query filters, pages, embeds and expands it.
async fn list(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    uri: Uri,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<(HeaderMap, Json<Value>), (StatusCode, Json<Value>)> {
    let collections = shared.collections();
    let (headers, records) = ListQuery::new(pairs).list(uri.path(), &name, &collections)?;
    Ok((headers, Json(Value::Array(records))))
}

/// One record, with what its query embeds and expands.
async fn one(
    State(shared): State<Arc<Shared>>,
    Path((name, id)): Path<(String, u64)>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Answer {
    let collections = shared.collections();
    let record = collections
        .get(name.as_str())
        .and_then(|c| c.records.get(&id))
        .ok_or_else(|| not_found(format!("{name}/{id}")))?;
    let record = ListQuery::new(pairs).related(&name, record, &collections)?;
    Ok((StatusCode::OK, Json(record)))
}

/// The body must be a JSON object; its `id`, if any, is replaced.
fn object(body: Value) -> Result<serde_json::Map<String, Value>, (StatusCode, Json<Value>)> {
    match body {
        Value::Object(fields) => Ok(fields),
        _ => Err((
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"detail": "the body must be a JSON object"})),
        )),
    }
}

fn wire_id(c: &super::Collection, id: u64) -> Value {
    if c.string_ids {
        json!(id.to_string())
    } else {
        json!(id)
    }
}

/// Stores `fields` as record `id` (its `id` field set to the wire form)
/// and returns the record.
fn put(c: &mut super::Collection, id: u64, mut fields: serde_json::Map<String, Value>) -> Value {
    fields.insert("id".into(), wire_id(c, id));
    let record = Value::Object(fields);
    c.records.insert(id, record.clone());
    record
}

/// `201 Created`, the record, and where it lives in `Location`.
async fn create(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    uri: Uri,
    Json(body): Json<Value>,
) -> Result<(StatusCode, HeaderMap, Json<Value>), (StatusCode, Json<Value>)> {
    let fields = object(body)?;
    let (id, record) = with(&shared, &name, |c| {
        let id = c.next_id;
        c.next_id += 1;
        Ok((id, put(c, id, fields)))
    })?;
    shared.live.changed(&name, &record);
    let mut headers = HeaderMap::new();
    let location = format!("{}/{id}", uri.path().trim_end_matches('/'));
    if let Ok(location) = HeaderValue::from_str(&location) {
        headers.insert(header::LOCATION, location);
    }
    Ok((StatusCode::CREATED, headers, Json(record)))
}

/// A full replace: the record becomes the body (fields it leaves out are
/// gone).
async fn replace(
    State(shared): State<Arc<Shared>>,
    Path((name, id)): Path<(String, u64)>,
    Json(body): Json<Value>,
) -> Answer {
    let fields = object(body)?;
    let record = with(&shared, &name, |c| {
        if !c.records.contains_key(&id) {
            return Err(not_found(format!("{name}/{id}")));
        }
        Ok(put(c, id, fields))
    })?;
    shared.live.changed(&name, &record);
    Ok((StatusCode::OK, Json(record)))
}

async fn update(
    State(shared): State<Arc<Shared>>,
    Path((name, id)): Path<(String, u64)>,
    Json(body): Json<Value>,
) -> Answer {
    let fields = object(body)?;
    with(&shared, &name, |c| {
        let Some(Value::Object(record)) = c.records.get_mut(&id) else {
            return Err(not_found(format!("{name}/{id}")));
        };
        for (field, value) in fields.into_iter().filter(|(field, _)| field != "id") {
            record.insert(field, value);
        }
        Ok(Value::Object(record.clone()))
    })
    .map(|record| {
        shared.live.changed(&name, &record);
        (StatusCode::OK, Json(record))
    })
}

async fn remove(
    State(shared): State<Arc<Shared>>,
    Path((name, id)): Path<(String, u64)>,
) -> Response {
    let removed = with(&shared, &name, |c| {
        c.records
            .remove(&id)
            .map(|_| wire_id(c, id))
            .ok_or_else(|| not_found(format!("{name}/{id}")))
    });
    match removed {
        Ok(pk) => {
            shared.live.removed(&name, pk);
            StatusCode::NO_CONTENT.into_response()
        }
        Err(error) => error.into_response(),
    }
}

async fn make_manager(State(shared): State<Arc<Shared>>, Path(id): Path<u64>) -> Answer {
    with(&shared, "users", |c| {
        let Some(Value::Object(user)) = c.records.get_mut(&id) else {
            return Err(not_found(format!("users/{id}")));
        };
        user.insert("isManager".into(), json!(true));
        Ok((StatusCode::OK, Json(Value::Object(user.clone()))))
    })
}

/// The demo's logged-in user is user 1.
async fn current_user(State(shared): State<Arc<Shared>>) -> Answer {
    with(&shared, "users", |c| match c.records.get(&1) {
        Some(user) => Ok((StatusCode::OK, Json(user.clone()))),
        None => Err(not_found("current user")),
    })
}

/// Birthdays within 7 and within 30 days from now.
async fn upcoming_birthdays(State(shared): State<Arc<Shared>>) -> Answer {
    with(&shared, "birthdays", |c| {
        let now = chrono::Utc::now();
        let days_until = |b: &Value| {
            let date = b["date"]
                .as_str()
                .and_then(|d| chrono::DateTime::parse_from_rfc3339(d).ok());
            date.map(|d| (d.with_timezone(&chrono::Utc) - now).num_days())
        };
        let within = |from: i64, to: i64| {
            let picked = c
                .records
                .values()
                .filter(|b| days_until(b).is_some_and(|d| from <= d && d < to));
            Value::Array(picked.cloned().collect())
        };
        let body = json!({"withinSevenDays": within(0, 7), "withinThirtyDays": within(7, 30)});
        Ok((StatusCode::OK, Json(body)))
    })
}

#[derive(serde::Deserialize)]
struct PageQuery {
    page: Option<String>,
}

/// `GET /post?page=N`: ten posts a page, `nextPage` empty on the last.
async fn post_page(State(shared): State<Arc<Shared>>, Query(query): Query<PageQuery>) -> Answer {
    let page: usize = match query.page.as_deref().unwrap_or("1").parse() {
        Ok(page) if page >= 1 => page,
        _ => {
            let body = json!({"detail": "page must be a number from 1"});
            return Err((StatusCode::BAD_REQUEST, Json(body)));
        }
    };
    with(&shared, "posts", |c| {
        let last = c.records.len().div_ceil(POSTS_PER_PAGE).max(1);
        let results: Vec<Value> = c
            .records
            .values()
            .skip((page - 1) * POSTS_PER_PAGE)
            .take(POSTS_PER_PAGE)
            .cloned()
            .collect();
        let next = if page < last {
            (page + 1).to_string()
        } else {
            String::new()
        };
        let body = json!({"results": results, "nextPage": next, "lastPage": last.to_string()});
        Ok((StatusCode::OK, Json(body)))
    })
}

/// `GET /__demo/hits`: how many requests each `METHOD /path` answered.
async fn hits(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let hits = shared.hits.lock().unwrap_or_else(|e| e.into_inner());
    Json(json!(*hits))
}

/// `GET /__demo/switches`: `{"delayMs": 0, "outage": false}`, as set now.
async fn switches_now(State(shared): State<Arc<Shared>>) -> Json<Value> {
    Json(json!({
        "delayMs": shared.delay_ms.load(Ordering::Relaxed),
        "outage": shared.outage.load(Ordering::Relaxed),
    }))
}

/// `PUT /__demo/switches` with `{"delayMs": 200, "outage": false}` (either
/// may be left out): sets the switches.
async fn set_switches(State(shared): State<Arc<Shared>>, Json(body): Json<Value>) -> StatusCode {
    if let Some(delay) = body.get("delayMs").and_then(Value::as_u64) {
        shared.delay_ms.store(delay, Ordering::Relaxed);
    }
    if let Some(outage) = body.get("outage").and_then(Value::as_bool) {
        shared.outage.store(outage, Ordering::Relaxed);
    }
    StatusCode::NO_CONTENT
}

/// `POST /__demo/reset`: the records as seeded, no hits, switches off.
async fn reset(State(shared): State<Arc<Shared>>) -> StatusCode {
    shared.reset();
    StatusCode::NO_CONTENT
}
