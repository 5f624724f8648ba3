use restcache::prelude::*;

#[derive(Entity, Clone)]
enum Shape {
    Circle { id: u64 },
}

fn main() {}
