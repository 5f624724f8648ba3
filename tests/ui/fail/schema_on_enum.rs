use restcache::prelude::*;

#[derive(Schema, Clone)]
enum Page {
    Empty,
}

fn main() {}
