use restcache::prelude::*;

// A keyword, a name starting with a digit, and a trailing backslash:
// three mistakes, reported together.
endpoint!(pub odd { path: "/a/:type/:1st/\\", schema: serde_json::Value });

fn main() {}
