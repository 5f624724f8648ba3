use restcache::prelude::*;

// Only serde's attributes and docs go on params.
endpoint!(pub search { path: "/search", schema: serde_json::Value, params: { #[allow(unused)] page: u32 } });

fn main() {}
