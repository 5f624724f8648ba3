//! `resource!` under a parent: placeholders before the pk are typed in
//! `params`, or default to `String`.

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Post {
    id: u64,
}

resource!(pub PostResource {
    path: "/users/:user_id/posts/:id",
    schema: Post,
    params: { user_id: u64 },
});
resource!(pub CommentResource { path: "/posts/:post/comments/:id", schema: Post });

fn main() {
    let base = "http://127.0.0.1:8080";
    let post = PostResourceParams { user_id: 7, id: 1 };
    assert_eq!(PostResource::get().url(base, &post).unwrap(), "http://127.0.0.1:8080/users/7/posts/1");
    let posts = PostResourceListParams { user_id: 7 };
    assert_eq!(PostResource::get_list().url(base, &posts).unwrap(), "http://127.0.0.1:8080/users/7/posts");
    let comments = CommentResourceListParams { post: "p".into() };
    assert_eq!(CommentResource::create().url(base, &comments).unwrap(), "http://127.0.0.1:8080/posts/p/comments");
}
