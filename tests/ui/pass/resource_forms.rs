//! Every form of `resource!` the docs show.

use std::time::Duration;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Todo {
    id: u64,
}

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Profile {
    id: String,
}

const API: &str = "http://127.0.0.1:9000";

// The plain form.
resource!(pub TodoResource { path: "/todos/:id", schema: Todo });

// Every option.
resource!(
    /// Profiles, on another server.
    pub ProfileResource {
        path: "/profiles/:id",
        schema: Profile,
        url_prefix: API,
        data_expiry: Duration::from_secs(30),
        error_expiry: Duration::from_secs(1),
        invalid_if_stale: false,
        poll_frequency: Duration::from_secs(10),
        timeout: Duration::from_secs(5),
    }
);

// A nested path: placeholders before the pk are typed in `params`, or
// default to `String`.
resource!(pub PostResource {
    path: "/users/:user_id/posts/:id",
    schema: Todo,
    params: { user_id: u64 },
});
resource!(pub CommentResource { path: "/posts/:post/comments/:id", schema: Todo });

// Params named as serde says; the placeholder follows its field.
resource!(pub NoteResource {
    path: "/users/:user_id/notes/:id",
    schema: Todo,
    params: #[serde(rename_all = "camelCase")] { user_id: u64 },
});

// Private to its module.
resource!(ItemResource { path: "/items/:id", schema: Todo });

fn main() {
    let base = "http://127.0.0.1:8080";
    let one = TodoResourceParams { id: 1 };
    assert_eq!(TodoResource::get().key(base, &one).unwrap(), "GET http://127.0.0.1:8080/todos/1");
    assert_eq!(TodoResource::get_list().url(base, &()).unwrap(), "http://127.0.0.1:8080/todos");
    let _ = (TodoResource::create(), TodoResource::update(), TodoResource::partial_update());
    let _ = TodoResource::delete();
    let profile = ProfileResourceParams { id: "ada".into() };
    assert_eq!(ProfileResource::get().url(base, &profile).unwrap(), "http://127.0.0.1:9000/profiles/ada");
    assert!(!ProfileResource::get().options().invalid_if_stale);
    assert_eq!(ProfileResource::get().options().timeout, Some(Duration::from_secs(5)));
    assert_eq!(ProfileResource::update().options().poll_frequency, Some(Duration::from_secs(10)));
    assert_eq!(ProfileResource::update().target().map(|t| t.entity), Some("Profile"));
    let post = PostResourceParams { user_id: 7, id: 1 };
    assert_eq!(PostResource::get().url(base, &post).unwrap(), "http://127.0.0.1:8080/users/7/posts/1");
    let note = NoteResourceParams { user_id: 7, id: 2 };
    assert_eq!(NoteResource::get().url(base, &note).unwrap(), "http://127.0.0.1:8080/users/7/notes/2");
    let posts = PostResourceListParams { user_id: 7 };
    assert_eq!(PostResource::get_list().url(base, &posts).unwrap(), "http://127.0.0.1:8080/users/7/posts");
    let comments = CommentResourceListParams { post: "p".into() };
    assert_eq!(CommentResource::create().url(base, &comments).unwrap(), "http://127.0.0.1:8080/posts/p/comments");
    assert_eq!(ItemResource::PATH, "/items/:id");
}
