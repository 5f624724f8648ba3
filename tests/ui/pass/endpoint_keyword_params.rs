//! `endpoint!` params named by keywords (`type`, or written raw as
//! `r#ref`): each is a raw field (`r#type`) and goes on the wire by its
//! own name (`type=…`), as a page param and a GraphQL variable too.

use restcache::prelude::*;

endpoint!(pub items {
    path: "/items",
    schema: serde_json::Value,
    params: { type: String, r#ref: u32 },
    paginated_by: "ref",
});

endpoint!(pub typed {
    path: "/graphql",
    schema: serde_json::Value,
    params: { type: String },
    graphql: "query Typed($type: String!) { typed(type: $type) { id } }",
});

// A keyword param renamed on the wire, as a GraphQL variable.
endpoint!(pub kinds {
    path: "/graphql",
    schema: serde_json::Value,
    params: { #[serde(rename = "kind")] type: String },
    graphql: "query Kinds($kind: String!) { kinds(kind: $kind) { id } }",
});

fn main() {
    let params = ItemsParams { r#type: "a".into(), r#ref: 2 };
    // The page param stays out of a list's key.
    let key = items().key("http://h", &params).unwrap();
    assert!(key.ends_with("/items?type=a"), "{key}");
    let _ = typed().key("http://h", &TypedParams { r#type: "b".into() }).unwrap();
    let _ = kinds().key("http://h", &KindsParams { r#type: "c".into() }).unwrap();
}
