//! The demo API's GraphQL endpoint, `POST /graphql` (async-graphql), over
//! the same records as the REST routes: a todo changed through one shows
//! through the other.
//!
//! ```graphql
//! type Query {
//!   todo(id: Int!): Todo!          # an error when there is none
//!   todos(userId: Int): [Todo!]!
//!   user(id: Int!): User!
//! }
//! type Mutation {
//!   updateTodo(id: Int!, title: String, completed: Boolean): Todo!
//! }
//! type Todo { id: Int! userId: Int! title: String! completed: Boolean! user: User! }
//! type User { id: Int! name: String! username: String! email: String! todos: [Todo!]! }
//! ```

use std::sync::Arc;

use async_graphql::{Context, EmptySubscription, Error, Object, Result, Schema, SimpleObject};
use axum::Json;
use axum::extract::State;
use serde_json::Value;

use super::Shared;

/// The schema, its handlers reading and writing `shared`.
pub type DemoSchema = Schema<QueryRoot, MutationRoot, EmptySubscription>;

pub fn schema() -> DemoSchema {
    Schema::build(QueryRoot, MutationRoot, EmptySubscription).finish()
}

/// `POST /graphql`: one request (`query`, `variables`, `operationName`).
pub async fn handle(
    State((shared, schema)): State<(Arc<Shared>, DemoSchema)>,
    Json(request): Json<async_graphql::Request>,
) -> Json<async_graphql::Response> {
    Json(schema.execute(request.data(shared)).await)
}

#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Todo {
    id: u64,
    user_id: u64,
    title: String,
    completed: bool,
}

#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct User {
    id: u64,
    name: String,
    username: String,
    email: String,
}

fn text(record: &Value, field: &str) -> String {
    record[field].as_str().unwrap_or_default().to_owned()
}

impl Todo {
    fn of(record: &Value) -> Todo {
        Todo {
            id: record["id"].as_u64().unwrap_or_default(),
            user_id: record["userId"].as_u64().unwrap_or_default(),
            title: text(record, "title"),
            completed: record["completed"].as_bool().unwrap_or_default(),
        }
    }
}

impl User {
    fn of(record: &Value) -> User {
        User {
            id: record["id"].as_u64().unwrap_or_default(),
            name: text(record, "name"),
            username: text(record, "username"),
            email: text(record, "email"),
        }
    }
}

fn shared<'a>(ctx: &Context<'a>) -> &'a Arc<Shared> {
    ctx.data_unchecked::<Arc<Shared>>()
}

/// The record `id` of `collection`, or an error naming it.
fn record(ctx: &Context<'_>, collection: &str, id: u64) -> Result<Value> {
    let collections = shared(ctx).collections();
    collections
        .get(collection)
        .and_then(|c| c.records.get(&id))
        .cloned()
        .ok_or_else(|| Error::new(format!("no {collection}/{id}")))
}

/// The todos `keep` holds, by id.
fn todos(ctx: &Context<'_>, keep: impl Fn(&Todo) -> bool) -> Vec<Todo> {
    let collections = shared(ctx).collections();
    let records = collections.get("todos").map(|c| c.records.values());
    records
        .into_iter()
        .flatten()
        .map(Todo::of)
        .filter(|todo| keep(todo))
        .collect()
}

#[async_graphql::ComplexObject]
impl Todo {
    async fn user(&self, ctx: &Context<'_>) -> Result<User> {
        record(ctx, "users", self.user_id).map(|user| User::of(&user))
    }
}

#[async_graphql::ComplexObject]
impl User {
    async fn todos(&self, ctx: &Context<'_>) -> Vec<Todo> {
        todos(ctx, |todo| todo.user_id == self.id)
    }
}

pub struct QueryRoot;

#[Object]
impl QueryRoot {
    async fn todo(&self, ctx: &Context<'_>, id: u64) -> Result<Todo> {
        record(ctx, "todos", id).map(|todo| Todo::of(&todo))
    }

    async fn todos(&self, ctx: &Context<'_>, user_id: Option<u64>) -> Vec<Todo> {
        todos(ctx, |todo| user_id.is_none_or(|user| todo.user_id == user))
    }

    async fn user(&self, ctx: &Context<'_>, id: u64) -> Result<User> {
        record(ctx, "users", id).map(|user| User::of(&user))
    }
}

pub struct MutationRoot;

#[Object]
impl MutationRoot {
    async fn update_todo(
        &self,
        ctx: &Context<'_>,
        id: u64,
        title: Option<String>,
        completed: Option<bool>,
    ) -> Result<Todo> {
        let mut collections = shared(ctx).collections();
        let record = collections
            .get_mut("todos")
            .and_then(|c| c.records.get_mut(&id))
            .ok_or_else(|| Error::new(format!("no todos/{id}")))?;
        if let Some(title) = title {
            record["title"] = Value::String(title);
        }
        if let Some(completed) = completed {
            record["completed"] = Value::Bool(completed);
        }
        let changed = record.clone();
        drop(collections);
        shared(ctx).live.changed("todos", &changed);
        Ok(Todo::of(&changed))
    }
}
