use restcache::prelude::*;

#[derive(Entity, Clone)]
struct Id(u64);

fn main() {}
