use restcache::prelude::*;

endpoint!(pub search { path: "/search/:term", schema: serde_json::Value, params: { term: String, page: u32, page: u64 } });

fn main() {}
