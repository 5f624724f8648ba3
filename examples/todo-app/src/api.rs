//! What the app reads and writes: four record types, the demo API's
//! standard resources, and two custom endpoints (one user's todos, the
//! posts a page at a time).

use std::rc::Rc;
use std::time::Duration;

use restcache::prelude::*;
use restcache::rest::Page;

/// How long the todos and users stay fresh: a view of them older than
/// this refetches when it mounts or when the tab comes back into view.
pub const FRESH_FOR: Duration = Duration::from_secs(10);

/// A todo; `userId` on the wire.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Todo {
    pub id: u64,
    pub user_id: u64,
    pub title: String,
    pub completed: bool,
}

impl Todo {
    /// Whether this is a draft the server has not answered for yet (an
    /// optimistic create, numbered down from the top of the id space).
    pub fn is_draft(&self) -> bool {
        self.id > DRAFTS_FROM
    }
}

/// Drafts are numbered from here up; the server's ids stay far below.
pub const DRAFTS_FROM: u64 = u64::MAX / 2;

/// A person whose todos the app lists.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct User {
    pub id: u64,
    pub name: String,
    pub username: String,
    pub email: String,
}

/// A profile card; its id is a string on the wire (`"1"`).
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Profile {
    pub id: String,
    pub full_name: String,
    pub bio: String,
}

/// A post of the news column.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Post {
    pub id: u64,
    pub user_id: u64,
    pub title: String,
    pub content: String,
}

resource!(pub TodoResource { path: "/todos/:id", schema: Todo, data_expiry: FRESH_FOR });

// One user's todos: `GET /todos?userId=2`. A todo created or changed
// joins or leaves it by its `userId`.
endpoint!(pub TodoResource::of_user {
    path: "/todos",
    schema: Vec<Rc<Todo>>,
    params: #[serde(rename_all = "camelCase")] { user_id: u64 },
    data_expiry: FRESH_FOR,
});

resource!(pub UserResource { path: "/users/:id", schema: User, data_expiry: FRESH_FOR });

resource!(pub ProfileResource { path: "/profiles/:id", schema: Profile });

/// How many posts a page holds.
pub const POSTS_PER_PAGE: u32 = 5;

// The posts, a page at a time (`?_page=2&_limit=5`), the next page named
// by the `Link` header. A visit keeps the pages it loaded.
endpoint!(pub post_pages {
    path: "/posts",
    schema: Page<Post>,
    params: {
        #[serde(rename = "_page")]
        page: u32,
        #[serde(rename = "_limit")]
        limit: u32,
    },
    decode: Page::from_headers,
    paginated_by: "_page",
    page_size: "_limit",
    data_expiry: Duration::from_secs(600),
});

/// The first page of the posts.
pub const FIRST_POSTS: PostPagesParams = PostPagesParams {
    page: 1,
    limit: POSTS_PER_PAGE,
};
