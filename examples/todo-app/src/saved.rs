//! The page that keeps its cache across reloads (`/saved`): the browser
//! renders it (no server render, no handed cache), takes back what the
//! last load saved in IndexedDB before its first render, and keeps each
//! change; a change made offline waits in the saved queue, through a
//! reload, until the network is back.

use restcache::persist::Persist;

use crate::api::{Post, Profile, Todo, TodoResource, User};

/// The name the cache is saved under (also the IndexedDB database's).
pub const SAVED_AS: &str = "restcache-todo-app";

/// How the page saves its cache: every record type it shows, and the
/// writes it makes, to the database [`open`] opened (in a browser).
///
/// ```
/// let persist = restcache_todo_app::saved::persist();
/// # let _ = persist;
/// ```
pub fn persist() -> Persist {
    let persist = Persist::new(SAVED_AS)
        .version(1)
        .entity::<Todo>()
        .entity::<User>()
        .entity::<Profile>()
        .entity::<Post>()
        .mutation(&TodoResource::partial_update())
        .mutation(&TodoResource::create())
        .mutation(&TodoResource::delete());
    #[cfg(target_arch = "wasm32")]
    if let Some(db) = DATABASE.with(|db| db.borrow().clone()) {
        return persist.to(db);
    }
    persist
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    static DATABASE: std::cell::RefCell<Option<restcache::persist::IndexedDb>> =
        const { std::cell::RefCell::new(None) };
}

/// Opens the page's IndexedDB database and reads what it holds, before
/// the app renders; without one (a browser that refuses it) the cache is
/// saved in `localStorage`.
#[cfg(target_arch = "wasm32")]
pub async fn open() {
    if let Ok(db) = restcache::persist::IndexedDb::open_database(SAVED_AS).await {
        DATABASE.with(|slot| *slot.borrow_mut() = Some(db));
    }
}
