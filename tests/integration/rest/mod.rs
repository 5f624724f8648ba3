//! The REST layer through the public API: declared resources and custom
//! endpoints make real HTTP requests to mockito on 127.0.0.1, asserting
//! method, path, query, body, Content-Type and call counts.

mod errors;
mod resources;
mod transport;
mod urls;

/// Todo 1 as the server sends it.
const TODO_1: &str = r#"{"id": 1, "userId": 3, "title": "milk", "completed": false}"#;
