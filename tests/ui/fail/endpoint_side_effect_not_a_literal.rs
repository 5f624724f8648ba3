use restcache::prelude::*;

const MUTATES: bool = true;

endpoint!(pub ping { method: POST, path: "/ping", schema: serde_json::Value, side_effect: MUTATES });

fn main() {
    let _ = ping();
}
