//! Saved caches in the browser's IndexedDB: opened (and read whole) once,
//! before the first render, then written in the background.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_futures::js_sys::{Array, Promise};
use web_sys::{IdbDatabase, IdbRequest, IdbTransaction, IdbTransactionMode};

use super::CacheStorage;

/// The object store every saved cache of a database lives in.
const STORE: &str = "caches";

/// Saved caches in the browser's IndexedDB (database `restcache`, one
/// entry a name), the storage to use in a browser: it holds far more
/// than `localStorage`, and writes without holding up the page.
///
/// IndexedDB answers later, and a save must be read back before the
/// first render: [`open`](Self::open) it before the app renders (it reads
/// every saved cache of the database at once), then hand it to
/// [`Persist::to`](super::Persist::to). Each save is one IndexedDB
/// transaction, which is written whole or not at all: a tab closed in the
/// middle of one leaves the save before it. Saves go in order; one that
/// fails (the storage full, say) keeps the last, and
/// [`last_error`](Self::last_error) tells it.
///
/// ```no_run
/// use restcache::persist::{IndexedDb, Persist};
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// async fn persist() -> Persist {
///     let persist = Persist::new("todo-app").version(1).entity::<Todo>();
///     match IndexedDb::open().await {
///         Ok(db) => persist.to(db),
///         Err(_) => persist, // no IndexedDB (a private window, say): localStorage
///     }
/// }
/// // In `main`: `spawn_local(async { let persist = persist().await; /* render with it */ })`.
/// ```
#[derive(Clone)]
pub struct IndexedDb {
    db: IdbDatabase,
    /// Every saved cache, as read at opening and saved since.
    saved: Rc<RefCell<HashMap<String, String>>>,
    /// The error of the last write that failed, if any.
    failed: Rc<RefCell<Option<String>>>,
    /// Writes not yet committed.
    writing: Rc<Cell<usize>>,
}

impl std::fmt::Debug for IndexedDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexedDb")
            .field("database", &self.db.name())
            .field("saved", &self.saved.borrow().len())
            .finish_non_exhaustive()
    }
}

impl IndexedDb {
    /// The database `restcache`, opened and read.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), String> {
    /// let db = restcache::persist::IndexedDb::open().await?;
    /// # let _ = db; Ok(()) }
    /// ```
    pub async fn open() -> Result<IndexedDb, String> {
        IndexedDb::open_database("restcache").await
    }

    /// The database `name`, opened (made when new) and read whole.
    /// `Err` when the browser offers no IndexedDB or refuses it.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), String> {
    /// let db = restcache::persist::IndexedDb::open_database("my-app-cache").await?;
    /// # let _ = db; Ok(()) }
    /// ```
    pub async fn open_database(name: &str) -> Result<IndexedDb, String> {
        let factory = web_sys::window()
            .ok_or("no window")?
            .indexed_db()
            .map_err(js_error)?
            .ok_or("no IndexedDB")?;
        let request = factory.open_with_u32(name, 1).map_err(js_error)?;
        let opening = request.clone();
        let upgrade = Closure::<dyn FnMut()>::new(move || {
            if let Ok(db) = opening.result() {
                let db: IdbDatabase = db.unchecked_into();
                if !db.object_store_names().contains(STORE) {
                    let _ = db.create_object_store(STORE);
                }
            }
        });
        request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
        let db: IdbDatabase = answer(&request).await?.unchecked_into();
        drop(upgrade);

        let reading = db.transaction_with_str(STORE).map_err(js_error)?;
        let store = reading.object_store(STORE).map_err(js_error)?;
        let keys = store.get_all_keys().map_err(js_error)?;
        let values = store.get_all().map_err(js_error)?;
        let keys: Array = answer(&keys).await?.unchecked_into();
        let values: Array = answer(&values).await?.unchecked_into();
        let saved = keys
            .iter()
            .zip(values.iter())
            .filter_map(|(key, value)| Some((key.as_string()?, value.as_string()?)))
            .collect();
        Ok(IndexedDb {
            db,
            saved: Rc::new(RefCell::new(saved)),
            failed: Rc::default(),
            writing: Rc::default(),
        })
    }

    /// The error of the last save (or removal) that failed, once it is
    /// known: at once when IndexedDB refused it, else when its
    /// transaction ended.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), String> {
    /// let db = restcache::persist::IndexedDb::open().await?;
    /// assert_eq!(db.last_error(), None);
    /// # Ok(()) }
    /// ```
    pub fn last_error(&self) -> Option<String> {
        self.failed.borrow().clone()
    }

    /// Whether every save so far has reached the database (committed or
    /// failed).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), String> {
    /// let db = restcache::persist::IndexedDb::open().await?;
    /// assert!(db.written());
    /// # Ok(()) }
    /// ```
    pub fn written(&self) -> bool {
        self.writing.get() == 0
    }

    /// Runs `write` on the object store in a transaction of its own, and
    /// notes how it ends.
    fn write(
        &self,
        write: impl FnOnce(&web_sys::IdbObjectStore) -> Result<IdbRequest, wasm_bindgen::JsValue>,
    ) -> Result<(), String> {
        let transaction = self
            .db
            .transaction_with_str_and_mode(STORE, IdbTransactionMode::Readwrite)
            .map_err(js_error)?;
        let store = transaction.object_store(STORE).map_err(js_error)?;
        write(&store).map_err(js_error)?;
        self.writing.set(self.writing.get() + 1);
        let (failed, writing) = (Rc::clone(&self.failed), Rc::clone(&self.writing));
        let ended = committed(&transaction);
        wasm_bindgen_futures::spawn_local(async move {
            if JsFuture::from(ended).await.is_err() {
                let error = transaction.error().map(|e| e.message());
                *failed.borrow_mut() = Some(error.unwrap_or_else(|| "aborted".to_owned()));
            }
            writing.set(writing.get() - 1);
        });
        Ok(())
    }
}

impl CacheStorage for IndexedDb {
    fn load(&self, name: &str) -> Option<String> {
        self.saved.borrow().get(name).cloned()
    }

    fn save(&self, name: &str, text: &str) -> Result<(), String> {
        self.write(|store| store.put_with_key(&text.into(), &name.into()))
            .inspect_err(|error| *self.failed.borrow_mut() = Some(error.clone()))?;
        self.saved
            .borrow_mut()
            .insert(name.to_owned(), text.to_owned());
        Ok(())
    }

    fn remove(&self, name: &str) {
        match self.write(|store| store.delete(&name.into())) {
            Ok(()) => drop(self.saved.borrow_mut().remove(name)),
            Err(error) => *self.failed.borrow_mut() = Some(error),
        }
    }
}

/// What `request` answers, once it has.
async fn answer(request: &IdbRequest) -> Result<wasm_bindgen::JsValue, String> {
    let settled = Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    let outcome = JsFuture::from(settled).await;
    request.set_onsuccess(None);
    request.set_onerror(None);
    outcome.map_err(|_| {
        request
            .error()
            .ok()
            .flatten()
            .map_or_else(|| "IndexedDB failed".to_owned(), |e| e.message())
    })?;
    request.result().map_err(js_error)
}

/// Settles when `transaction` commits; fails when it is aborted.
fn committed(transaction: &IdbTransaction) -> Promise {
    Promise::new(&mut |resolve, reject| {
        transaction.set_oncomplete(Some(&resolve));
        transaction.set_onerror(Some(&reject));
        transaction.set_onabort(Some(&reject));
    })
}

fn js_error(error: wasm_bindgen::JsValue) -> String {
    match error.dyn_ref::<web_sys::DomException>() {
        Some(exception) => format!("{}: {}", exception.name(), exception.message()),
        None => format!("{error:?}"),
    }
}
