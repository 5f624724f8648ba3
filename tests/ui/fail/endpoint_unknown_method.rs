use restcache::prelude::*;

endpoint!(pub ping { method: FETCH, path: "/ping", schema: serde_json::Value });

fn main() {}
