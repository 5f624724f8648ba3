//! `endpoint!` of GraphQL operations: a query (a read, POSTed), a bare
//! `{ .. }` query with no variables, and a mutation (a mutation by its
//! type), their params the operation's variables (by their serialized
//! names).

use std::rc::Rc;

use restcache::prelude::*;
use restcache::rest::{Mutate, Read};

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Todo {
    id: u64,
    title: String,
}

#[derive(Schema, Clone, Debug, Deserialize)]
pub struct TodosOf {
    #[schema(nested)]
    todos: Vec<Rc<Todo>>,
}

#[derive(Schema, Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Updated {
    #[schema(nested)]
    update_todo: Rc<Todo>,
}

endpoint!(pub todos_of {
    graphql: "query TodosOf($userId: Int) { todos(userId: $userId) { id title } }",
    path: "/graphql",
    schema: TodosOf,
    params: #[serde(rename_all = "camelCase")] { user_id: Option<u64> },
});

endpoint!(pub all_todos { graphql: "{ todos { id title } }", path: "/graphql", schema: TodosOf });

endpoint!(pub rename_todo {
    graphql: "mutation Rename($id: Int!, $title: String) { updateTodo(id: $id, title: $title) { id title } }",
    path: "/graphql",
    schema: Updated,
    params: { id: u64, title: String },
});

// Comments, a fragment, a directive's and a default's parentheses and
// strings: the variables are `$id` and `$note`.
endpoint!(pub annotated {
    graphql: r#"
        # One todo, with its title.
        fragment Fields on Todo { id title }
        query Annotated($id: Int! @deprecated(reason: "use ids (plural)"), $note: String = "a ) b $x: c") {
            todo(id: $id) { ...Fields }
        }
    "#,
    path: "/graphql",
    schema: serde_json::Value,
    params: { id: u64, note: Option<String> },
});

fn main() {
    let _: Endpoint<AnnotatedParams, serde_json::Value, Read> = annotated();
    let query: Endpoint<TodosOfParams, TodosOf, Read> = todos_of();
    assert_eq!(query.method(), Method::Post);
    let key = query.key("http://h", &TodosOfParams { user_id: Some(2) }).unwrap();
    assert_eq!(
        key,
        "POST http://h/graphql query TodosOf($userId: Int) { todos(userId: $userId) { id title } } {\"userId\":2}"
    );
    let _: Endpoint<(), TodosOf, Read> = all_todos();
    let mutation: Endpoint<RenameTodoParams, Updated, Mutate> = rename_todo();
    assert!(mutation.graphql_document().unwrap().starts_with("mutation"));
}
