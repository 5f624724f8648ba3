use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Post {
    id: u64,
}

resource!(pub PostResource { path: "/users/:user_id/posts/:id", schema: Post, params: { user_id: u64 } });

fn main() {
    let _ = PostResource::get().key("http://h", &PostResourceParams { id: 1 });
}
