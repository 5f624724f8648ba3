use restcache::prelude::*;

endpoint!(pub no_param {
    graphql: "query Todo($id: Int!, $full: Boolean) { todo(id: $id) { id } }",
    path: "/graphql",
    schema: serde_json::Value,
    params: { id: u64, extra: u32 },
});

endpoint!(pub streamed { graphql: "subscription { todos { id } }", path: "/graphql", schema: serde_json::Value });

endpoint!(pub not_a_string { graphql: DOCUMENT, path: "/graphql", schema: serde_json::Value });

endpoint!(pub rest_options {
    graphql: "mutation { reset }",
    method: PUT,
    path: "/graphql/:tenant",
    schema: serde_json::Value,
    side_effect: true,
    params: { tenant: String },
});

endpoint!(pub two_operations {
    graphql: "query A { todos { id } } query B { users { id } }",
    path: "/graphql",
    schema: serde_json::Value,
});

const DOCUMENT: &str = "{ todos { id } }";

fn main() {
    let _ = (no_param(), streamed(), rest_options(), DOCUMENT);
}
