use restcache::prelude::*;

#[derive(Entity, Clone)]
struct Reading {
    id: f64,
}

fn main() {}
