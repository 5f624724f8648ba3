//! `endpoint!` with the other methods, and nothing in the body.

use restcache::prelude::*;
use restcache::rest::Mutate;

endpoint!(pub touch { method: PUT, path: "/touch", schema: () });
endpoint!(pub rename { method: PATCH, path: "/names/:id", schema: serde_json::Value });
endpoint!(pub forget { method: DELETE, path: "/sessions/:id", schema: () });

fn main() {
    let _: Endpoint<(), (), Mutate> = touch();
    let _ = (rename(), forget(), RenameParams { id: "n".into() }, ForgetParams { id: "s".into() });
    assert_eq!(forget().method(), Method::Delete);
}
