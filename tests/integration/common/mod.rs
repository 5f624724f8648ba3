//! What the integration tests share: the records, envelopes and custom
//! endpoints of the docs' examples, a todo resource, mock-server helpers
//! and a read helper.

use std::rc::Rc;

pub mod controller;
pub mod heap;
pub mod mock;
mod read;

pub use read::Found;

use chrono::{DateTime, Utc};
use restcache::prelude::*;
use restcache::rest::Page;

/// A request that started at `ms` milliseconds.
pub fn at(ms: u64) -> Meta {
    Meta {
        fetched_at: Timestamp::from_millis(ms),
        date: Timestamp::from_millis(ms),
        expires_at: Timestamp::from_millis(ms + 60_000),
    }
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[entity(key = "Todo")]
pub struct Todo {
    pub id: u64,
    pub user_id: u64,
    pub title: String,
    pub completed: bool,
}

/// Todo `id` titled `title`, its other fields default.
pub fn todo(id: u64, title: &str) -> Todo {
    Todo {
        id,
        title: title.into(),
        ..Todo::default()
    }
}

/// Stores todos `ids`, each titled "t", as the list under `key`, fetched
/// at 1 ms.
pub fn store_list(store: &mut Store, key: &str, ids: &[u64]) {
    let todos: Vec<Rc<Todo>> = ids.iter().map(|&id| Rc::new(todo(id, "t"))).collect();
    store.set(key, todos, at(1)).unwrap();
}

/// The wire form carries `id` as a string; the record holds an optional number.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Profile {
    #[serde(with = "restcache::wire::opt_number_as_string")]
    pub id: Option<u64>,
    pub img: String,
    pub full_name: String,
    pub bio: String,
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    pub post_id: u64,
    pub id: u64,
    pub name: String,
    pub email: String,
    pub body: String,
}

/// `date` is parsed as a date-time; a record without one is dated now.
#[derive(Entity, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Birthday {
    pub id: Option<String>,
    pub name: String,
    pub image: String,
    pub source: String,
    pub date: DateTime<Utc>,
}

impl Default for Birthday {
    fn default() -> Self {
        Birthday {
            id: None,
            name: String::new(),
            image: String::new(),
            source: String::new(),
            date: Utc::now(),
        }
    }
}

/// The older API generation's Birthday resource.
impl restcache::legacy::Resource for Birthday {
    const URL_ROOT: &'static str = "/api/birthdays/";
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PaginatedPost {
    pub id: Option<u64>,
    pub title: String,
    pub content: String,
}

/// The docs show only a numeric `id`; the rest is what a user record
/// plausibly holds, all optional on the wire.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct User {
    pub id: u64,
    pub username: String,
    pub email: String,
    pub is_manager: bool,
}

/// The older API generation's User resource.
impl restcache::legacy::Resource for User {
    const URL_ROOT: &'static str = "/users/";
}

/// Wrapped detail: `{data: Todo}`.
#[derive(Schema, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TodoDetail {
    #[schema(nested)]
    pub data: Rc<Todo>,
}

/// Wrapped list: `{data: [Todo]}`.
#[derive(Schema, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TodoList {
    #[schema(nested)]
    pub data: Vec<Rc<Todo>>,
}

/// Upcoming birthdays: `{withinSevenDays: [Birthday], withinThirtyDays: [Birthday]}`.
#[derive(Schema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpcomingBirthdays {
    #[schema(nested)]
    pub within_seven_days: Vec<Rc<Birthday>>,
    #[schema(nested)]
    pub within_thirty_days: Vec<Rc<Birthday>>,
}

/// Paginated posts: `{results: [PaginatedPost], nextPage, lastPage}`.
#[derive(Schema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaginatedPosts {
    #[schema(nested)]
    pub results: Vec<Rc<PaginatedPost>>,
    pub next_page: String,
    pub last_page: String,
}

resource!(pub TodoResource { path: "/todos/:id", schema: Todo });

// The todos of one user: `GET /todos?userId=..`.
endpoint!(pub TodoResource::for_user {
    path: "/todos",
    schema: Vec<Rc<Todo>>,
    params: #[serde(rename_all = "camelCase")] { user_id: u64 },
});

// The todos in pages named by `Link` headers, counted by `X-Total-Count`.
endpoint!(pub TodoResource::pages {
    path: "/todos",
    schema: Page<Todo>,
    params: {
        #[serde(rename = "_page")]
        page: u32,
        #[serde(rename = "_limit")]
        limit: u32,
    },
    decode: Page::from_headers,
    paginated_by: "_page",
    page_size: "_limit",
});

// The custom endpoints every test shares.
endpoint!(pub current_user { method: POST, path: "/current_user/", schema: Rc<User>, side_effect: false });
endpoint!(pub upcoming_birthdays {
    method: POST,
    path: "/api/birthdays/upcoming/",
    schema: UpcomingBirthdays,
    side_effect: false,
});
endpoint!(pub post_page { path: "/post\\?page=:page", schema: PaginatedPosts });

/// The demo API, and a controller that has read its todo list.
pub async fn reading_todos() -> (restcache_demo::DemoApi, Controller) {
    let api = restcache_demo::DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    (api, ctrl)
}

/// Polls until `done` holds, on the test's own runtime; panics past a
/// generous bound (a hang, not a timing claim).
pub async fn until(mut done: impl FnMut() -> bool) {
    for _ in 0..2_500 {
        if done() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    panic!("never came to pass");
}
