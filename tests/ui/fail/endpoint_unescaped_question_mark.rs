use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Post {
    id: u64,
}

endpoint!(pub post_page { path: "/post?page=:page", schema: Vec<std::rc::Rc<Post>> });

fn main() {}
