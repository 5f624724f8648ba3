//! `endpoint!` named with a raw identifier (a keyword as its name): its
//! params type drops the `r#` (`MatchParams`, `SearchTypeParams`).

use restcache::prelude::*;

pub struct Search;

endpoint!(pub r#match { path: "/match/:id", schema: serde_json::Value });
endpoint!(pub Search::r#type { path: "/types/:name", schema: serde_json::Value });

fn main() {
    let _ = r#match();
    let _ = MatchParams { id: "7".into() };
    let _ = Search::r#type();
    let _ = SearchTypeParams { name: "a".into() };
}
