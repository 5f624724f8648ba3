//! # restcache
//!
//! Typed REST endpoints and a normalized, suspense-aware data cache for Rust
//! web apps (Yew first).
//!
//! - `#[derive(Entity)]` states a record type and how it is identified.
//! - `#[derive(Schema)]` states an envelope around entities (`{data: [...]}`,
//!   paginated pages, ...).
//! - [`Store`] keeps every record once per (entity key, pk): a response's
//!   entities are split out into their tables and joined back on read, so
//!   a changed record shows in every result that holds it.
//! - [`Memo`] remembers reads: a read with nothing changed hands out the
//!   same `Rc`, so UI props compare in O(1).
//!
//! ```
//! use restcache::prelude::*;
//! use std::rc::Rc;
//!
//! #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
//! #[serde(rename_all = "camelCase")]
//! struct User { id: u64, name: String }
//!
//! #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
//! #[serde(rename_all = "camelCase")]
//! struct Post {
//!     id: u64,
//!     title: String,
//!     #[entity(nested)]
//!     author: Rc<User>,
//! }
//!
//! let mut store = Store::new();
//! let mut memo = Memo::new();
//! let t = |ms| Meta { fetched_at: Timestamp::from_millis(ms), ..Meta::default() };
//!
//! store.set_json::<Vec<Rc<Post>>>(
//!     "GET /posts",
//!     r#"[{"id": 1, "title": "Hello", "author": {"id": 7, "name": "Ada"}},
//!         {"id": 2, "title": "Again", "author": {"id": 7, "name": "Ada"}}]"#,
//!     t(1),
//! )?;
//! assert_eq!(store.entity_count("User"), 1); // Ada is stored once
//!
//! let posts = memo.read::<Vec<Rc<Post>>>(&store, "GET /posts").into_value().unwrap();
//! assert!(Rc::ptr_eq(&posts[0].author, &posts[1].author));
//!
//! // A later response about Ada shows in every post that points at her.
//! store.set_json::<Rc<User>>("GET /users/7", r#"{"id": 7, "name": "Ada L."}"#, t(2))?;
//! let posts = memo.read::<Vec<Rc<Post>>>(&store, "GET /posts").into_value().unwrap();
//! assert_eq!(posts[1].author.name, "Ada L.");
//! # Ok::<(), restcache::SchemaError>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Derives [`Entity`](trait@Entity): a record type with an identity,
/// stored once per (key, pk).
///
/// - `#[entity(key = "Name")]` on the struct: the entity key (default: the
///   struct's name).
/// - `#[entity(pk)]` on a field: the primary key (default: the field `id`).
///   Its type gives the pk param of the record's resource.
/// - `#[entity(nested)]` on a field: it holds entities (`Rc<E>`, or a
///   `Vec`, `Option` or `HashMap<String, _>` of them, or a
///   `#[derive(Schema)]` struct), stored in their own tables and joined
///   back on read.
/// - `#[entity(version)]` on a field: the record's version (an
///   `updatedAt`, a revision number): of two copies, the higher version
///   wins whatever order their requests started in.
/// - `#[entity(merge = path::to::fn)]` on the struct: how a response's
///   copy merges over the stored one (default: a field the response left
///   out keeps its stored value; `restcache::replace_whole` replaces the
///   record whole).
///
/// serde's `rename` and `rename_all` are read, so that error paths name
/// fields as the wire does.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// #[entity(key = "Person")]
/// #[serde(rename_all = "camelCase")]
/// struct User { id: u64, full_name: String }
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Article {
///     #[entity(pk)]
///     slug: String,
///     #[entity(nested)]
///     author: Rc<User>,
/// }
///
/// let mut store = Store::new();
/// store.set_json::<Rc<Article>>(
///     "GET /articles/hello",
///     r#"{"slug": "hello", "author": {"id": 7, "fullName": "Ada"}}"#,
///     Meta::default(),
/// )?;
/// assert_eq!(store.entity_count("Person"), 1);
/// assert_eq!(store.get_entity::<User>(7u64).value().unwrap().full_name, "Ada");
/// # Ok::<(), restcache::SchemaError>(())
/// ```
pub use restcache_macros::Entity;

/// Derives [`Schema`](trait@Schema) for an envelope struct around
/// entities (`{data: [...]}`, a page of results): fields marked
/// `#[schema(nested)]` hold entities and are normalized, every other field
/// is kept as it came.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Post { id: u64, title: String }
///
/// #[derive(Schema, Clone, Debug, Deserialize)]
/// #[serde(rename_all = "camelCase")]
/// struct Page {
///     #[schema(nested)]
///     results: Vec<Rc<Post>>,
///     next_page: Option<String>,
/// }
///
/// let mut store = Store::new();
/// let text = r#"{"results": [{"id": 1, "title": "a"}], "nextPage": "2"}"#;
/// let page = store.set_json::<Page>("GET /posts?page=1", text, Meta::default())?;
/// assert_eq!(page.next_page.as_deref(), Some("2"));
/// assert_eq!(store.entity_count("Post"), 1);
/// # Ok::<(), restcache::SchemaError>(())
/// ```
///
/// On an enum whose variants each hold one schema, it derives a union:
/// polymorphic records (a feed of comments and mentions). The enum's own
/// `Deserialize` tells the variants apart (serde's `tag` for a field of
/// the record, `untagged`, or one written by hand for a function of
/// it); each record goes to its own type's table, and reads give the
/// enum back, following every change to its records. A record read
/// through a union is stored as it came: a field it leaves out is not
/// kept from the stored copy.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Comment { id: u64, text: String }
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Mention { id: u64, who: String }
///
/// #[derive(Schema, Clone, Debug, Deserialize)]
/// #[serde(tag = "type", rename_all = "lowercase")]
/// enum FeedItem {
///     Comment(Rc<Comment>),
///     Mention(Rc<Mention>),
/// }
///
/// let mut store = Store::new();
/// let text = r#"[{"type": "comment", "id": 1, "text": "hi"}, {"type": "mention", "id": 1, "who": "ada"}]"#;
/// store.set_json::<Vec<FeedItem>>("GET /feed", text, Meta::default())?;
/// store.set_entity(Comment { id: 1, text: "edited".into() }, Meta::default())?;
/// let feed = store.read::<Vec<FeedItem>>("GET /feed").into_value().unwrap();
/// assert!(matches!(&feed[0], FeedItem::Comment(c) if c.text == "edited"));
/// assert_eq!((store.entity_count("Comment"), store.entity_count("Mention")), (1, 1));
/// # Ok::<(), restcache::SchemaError>(())
/// ```
pub use restcache_macros::Schema;

/// Declares a REST resource: a unit struct whose functions return the six
/// standard endpoints of one entity and one path pattern, and params
/// structs generated from the path.
///
/// ```text
/// resource!(pub TodoResource {
///     path: "/todos/:id",                   // the last placeholder is the pk
///     schema: Todo,                         // an #[derive(Entity)] type
///     url_prefix: API,                      // optional; else the client's base
///     data_expiry: Duration::from_secs(30), // optional
///     error_expiry: Duration::from_secs(1), // optional
///     invalid_if_stale: false,              // optional
///     poll_frequency: Duration::from_secs(5), // optional
///     timeout: Duration::from_secs(10),     // optional
///     infer: false,                         // optional (default true): a detail read of a
///                                           // record the cache holds is answered from it
///     error_policy: keep_on_show,           // optional: a fn(&Error) -> ErrorPolicy (default:
///                                           // 5xx, network and timeout soft, the rest hard)
///     private: true,                        // optional (default false): a saved cache keeps
///                                           // none of its answers
///     params: { user_id: u64 },             // optional: types of other placeholders
/// });
/// ```
///
/// It generates `TodoResource::{get, get_list, create, update,
/// partial_update, delete}`, `TodoResourceParams` (every placeholder, the
/// pk typed as the entity's pk) and, when the list path keeps
/// placeholders, `TodoResourceListParams`. A mistake in the path or the
/// params is a compile error pointing at it.
///
/// `update` is a `PUT`, a full replace on the server: the server drops the
/// fields its body leaves out. Its answer is merged like any response: a
/// field it carries replaces the cached one, a field it leaves out keeps
/// its cached value (see [`Entity`](trait@restcache_runtime::Entity),
/// "Partial records"). `partial_update` is a `PATCH` of the fields its
/// body names.
///
/// A `pub` resource hands out its schema in `pub` functions: the entity
/// must be as public as the resource (else rustc warns that the type is
/// "more private than the item"). Make the entity `pub`, or the resource
/// private (`resource!(TodoResource { .. })`).
///
/// ```
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Comment { id: u64, body: String }
///
/// resource!(pub CommentResource {
///     path: "/posts/:post_id/comments/:id",
///     schema: Comment,
///     params: { post_id: u64 },
/// });
///
/// let base = "http://127.0.0.1:8080";
/// let one = CommentResourceParams { post_id: 7, id: 3 };
/// assert_eq!(CommentResource::get().url(base, &one)?, "http://127.0.0.1:8080/posts/7/comments/3");
/// let all = CommentResourceListParams { post_id: 7 };
/// assert_eq!(CommentResource::create().key(base, &all)?, "POST http://127.0.0.1:8080/posts/7/comments");
/// # Ok::<(), restcache::rest::UrlError>(())
/// ```
pub use restcache_macros::resource;

/// Declares one custom endpoint: a function returning it and, when it has
/// params, a params struct named after it (`make_manager` ->
/// `MakeManagerParams`; `UserResource::make_manager` ->
/// `UserResourceMakeManagerParams`, so that two resources' endpoints of
/// one name never collide).
///
/// Params are serialized with serde: their serde attributes name them as
/// the server does (`#[serde(rename_all = "camelCase")]` before the braces
/// sends `user_id` as `?userId=`), and `params: MyParams` takes a
/// `Serialize` struct of your own: every placeholder must be one of its
/// fields, named as Rust names it (checked at compile time). A field the
/// struct's `rename_all` renames is found under serde's rule
/// (`:team_id` reads `teamId`); leave a path field out of a `rename` of
/// its own.
///
/// ```text
/// endpoint!(pub UserResource::make_manager {  // `Owner::` is optional
///     method: POST,                           // default GET
///     path: "/users/:id/make_manager",
///     schema: serde_json::Value,              // the whole response's schema
///     params: { id: u64 },                    // with a params block, every placeholder
///                                             // is typed in it (a compile error names
///                                             // one left out); without one, placeholders
///                                             // are Strings; other names go into the
///                                             // query; serde attributes name them on the wire
///     side_effect: true,                      // optional, `true` or `false`: a mutation or a
///                                             // read (default: a mutation unless GET); part
///                                             // of the endpoint's type (`Mutate` or `Read`)
///     decode: Page::from_headers,             // optional: a DecodeFn that sees status,
///                                             // headers and body (default: JSON of schema)
///     paginated_by: "_page",                  // optional: the page param (its wire name)
///     page_size: "_limit",                    // optional: the page-size param
///     // and resource!'s shared options: url_prefix, data_expiry,
///     // error_expiry, invalid_if_stale, poll_frequency, timeout, infer,
///     // error_policy, private
/// });
///
/// endpoint!(pub todos_of {                    // a GraphQL operation
///     graphql: "query TodosOf($userId: Int) { todos(userId: $userId) { id title } }",
///     path: "/graphql",                       // POSTed here, with no placeholders
///     schema: TodosOf,                        // the answer's `data`, normalized
///     params: #[serde(rename_all = "camelCase")] { user_id: u64 },
///                                             // exactly its variables, by their
///                                             // wire names (compile errors say
///                                             // which is missing or extra); a
///                                             // `mutation` mutates, a query reads
/// });
/// ```
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::Read;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct User { id: u64 }
///
/// // A `?` in the path is escaped; params not in the path go into the query.
/// endpoint!(pub user_page { path: "/users\\?page=:page", schema: Vec<Rc<User>>, params: { page: u32, size: u32 } });
/// // A POST that reads: its type says so, and the reading hooks take it.
/// endpoint!(pub current_user { method: POST, path: "/current_user/", schema: Rc<User>, side_effect: false });
/// let _: Endpoint<(), Rc<User>, Read> = current_user();
///
/// // Params named as the server names them.
/// endpoint!(pub by_team {
///     path: "/teams/:team_id/users",
///     schema: Vec<Rc<User>>,
///     params: #[serde(rename_all = "camelCase")] {
///         team_id: u64,
///         #[serde(skip_serializing_if = "Option::is_none")]
///         is_active: Option<bool>,
///     },
/// });
///
/// // A params type of your own.
/// #[derive(Serialize)]
/// struct Filter { #[serde(rename = "q")] text: String, limit: u32 }
/// endpoint!(pub search { path: "/users", schema: Vec<Rc<User>>, params: Filter });
///
/// let base = "http://127.0.0.1:8080";
/// let page = UserPageParams { page: 2, size: 20 };
/// assert_eq!(user_page().url(base, &page)?, "http://127.0.0.1:8080/users?page=2&size=20");
/// let team = ByTeamParams { team_id: 4, is_active: Some(true) };
/// assert_eq!(by_team().url(base, &team)?, "http://127.0.0.1:8080/teams/4/users?isActive=true");
/// let filter = Filter { text: "ada".into(), limit: 5 };
/// assert_eq!(search().url(base, &filter)?, "http://127.0.0.1:8080/users?limit=5&q=ada");
/// # Ok::<(), restcache::rest::UrlError>(())
/// ```
pub use restcache_macros::endpoint;

pub use restcache_runtime::{
    Absent, All, Blob, Cached, Clock, Collected, Controller, ControllerBuilder,
    DEFAULT_DATA_EXPIRY, DEFAULT_ERROR_EXPIRY, Decoded, Entity, EntityQuery, Event, EventListener,
    ExpiryStatus, FieldPath, HANDOFF_SCRIPT_ID, HandoffError, Lazy, Lookup, MAX_HANDOFF_BYTES,
    ManualClock, Memo, Meta, Observe, PageListener, Pk, PkValue, Query, QueryReader, ReadObserver,
    RecordChange, Retention, Retry, Schema, SchemaError, Segment, Store, Subscription, SystemClock,
    Timestamp, WriteError, from_json, handoff_script, replace_whole,
};
pub use restcache_runtime::{http, rest, wire};

#[cfg(feature = "legacy")]
pub use restcache_runtime::legacy;
#[cfg(feature = "live")]
pub use restcache_runtime::live;
#[cfg(feature = "persist")]
pub use restcache_runtime::persist;
#[cfg(feature = "tabs")]
pub use restcache_runtime::tabs;
#[cfg(feature = "testing")]
pub use restcache_runtime::testing;
#[cfg(feature = "yew")]
pub use restcache_runtime::yew;

/// What the macros expand to. Not public API: it may change in any
/// release.
#[doc(hidden)]
pub use restcache_runtime::__private;

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Everything a program that declares entities and reads them needs.
///
/// ```
/// use restcache::prelude::*;
/// let _store = Store::new();
/// ```
pub mod prelude {
    pub use restcache_macros::{Entity, Schema, endpoint, resource};
    pub use restcache_runtime::http::{Body, Client, Method};
    pub use restcache_runtime::rest::Endpoint;
    pub use restcache_runtime::{
        Cached, Controller, Decoded, Entity, EntityQuery, ExpiryStatus, Lookup, ManualClock, Memo,
        Meta, Pk, PkValue, Schema, SchemaError, Store, Subscription, Timestamp,
    };
    pub use serde::{Deserialize, Serialize};
}
