//! A cache that survives a reload (feature `persist`): the records and
//! reads a controller holds are saved (throttled, after changes) and read
//! back before the first render of the next load, so the page shows its
//! last data at once and revalidates it by its age.
//!
//! What is saved: every record of the entity types named (as JSON, with
//! the time its data stood), and each read's last response, by key (with
//! when it came). On the next load the records are written back first,
//! and each response waits for its first typed read, which decodes it
//! with its own endpoint, as a server's handoff is: records changed after
//! a response (by a mutation, a stream) keep their newer copy, a read
//! whose result changed after its response (a record joined or left the
//! list) shows and refetches at once, and expiry runs from the original
//! fetch, so nothing old shows as fresh.
//!
//! Mutations made while offline are saved too for the endpoints named
//! with [`Persist::mutation`], and sent after a reload. Endpoints marked
//! [`private`](crate::rest::Endpoint::private) leave nothing in a save.
//! With several tabs open, one save holds every tab's queue: each tab
//! keeps the others' as it found them, and a page that loads sends again
//! only those no live tab holds (its own after a reload, those of tabs
//! closed meanwhile, and those of a tab that died without a word once its
//! lease, renewed every minute while it lives, has run out five minutes
//! on; natively, where nothing renews it between saves, a second process
//! on one file may take a first one's queue once it has been quiet that
//! long). A storage that reads every tab's writes as they land
//! (`localStorage`, a file) keeps the tabs' queues apart. `IndexedDb` is
//! read once as a tab opens: with it, a tab's save may write back a
//! queue another tab has sent since, or over its newer one, so an app
//! whose users make changes offline in several tabs keeps its cache in
//! `localStorage`. A reset forgets every tab's saved queue (the live
//! tabs save theirs again with their next change).
//!
//! Saved caches carry the app's schema [`version`](Persist::version):
//! the records and responses of one saved under another version are
//! discarded, but its offline mutations are still sent (those whose
//! endpoint still reads their params). Under the same
//! version, each record that no longer fits its type and each response
//! its endpoint can no longer decode is dropped alone (the read fetches).
//! What is saved is bounded by the store's retention (only what it still
//! holds) and by [`max_bytes`](Persist::max_bytes) (the oldest responses,
//! then the oldest records, go first). A [reset](Controller::reset) (a
//! log-out) forgets the saved cache at once; with several tabs open,
//! sync them too ([`tabs`](crate::tabs), when enabled), or another tab's
//! next save writes its cache back.
//!
//! ```
//! use restcache::prelude::*;
//! use restcache::persist::{MemoryStorage, Persist};
//! use std::rc::Rc;
//!
//! #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
//! struct Todo { id: u64, title: String }
//! resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
//!
//! let storage = MemoryStorage::new();
//! let persist = Persist::new("doc").version(1).entity::<Todo>().to(storage.clone());
//! let before = Controller::new(Client::new("http://127.0.0.1:8080"));
//! let link = before.persist(&persist);
//! before.set_entity(Todo { id: 1, title: "milk".into() }, before.write_time())?;
//! drop(link); // saves what is left to save
//!
//! let after = Controller::new(Client::new("http://127.0.0.1:8080")); // the next load
//! let link = after.persist(&persist);
//! assert_eq!(link.restored().records, 1);
//! assert_eq!(after.with_store(|s| s.get_entity::<Todo>(1u64).value().unwrap().title.clone()), "milk");
//! # Ok::<(), restcache::WriteError>(())
//! ```

#[cfg(target_arch = "wasm32")]
mod indexed_db;
mod mutations;
mod queue;
mod restore;
mod save;
mod storage;

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::cache::entity::Entity;
use crate::controller::{Controller, Event, EventListener, SavedResponse};
use crate::records::{Codecs, Record};
#[cfg(target_arch = "wasm32")]
pub use indexed_db::IndexedDb;
use mutations::SavedMutation;
use restore::restore;
use save::{changed, renew_later, save};
use serde_json::value::RawValue;
#[cfg(not(target_arch = "wasm32"))]
pub use storage::FileStorage;
#[cfg(target_arch = "wasm32")]
pub use storage::LocalStorage;
pub use storage::{CacheStorage, MemoryStorage};

/// The format of a saved text.
const FORMAT: u32 = 1;

/// The most a saved cache holds unless told: 2 MiB (`localStorage`
/// holds about 5 MB an origin).
///
/// ```
/// assert_eq!(restcache::persist::DEFAULT_MAX_BYTES, 2 * 1024 * 1024);
/// ```
pub const DEFAULT_MAX_BYTES: usize = 2 * 1024 * 1024;

/// How a controller's cache is saved: its name, the app's schema
/// version, the entity types whose records are kept, where, and how
/// often. Cheap to clone.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::persist::Persist;
/// use std::time::Duration;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// let persist = Persist::new("todo-app")
///     .version(2)
///     .entity::<Todo>()
///     .max_bytes(512 * 1024)
///     .throttle(Duration::from_millis(500));
/// assert_eq!(persist.name(), "todo-app");
/// ```
#[derive(Clone)]
pub struct Persist {
    name: Rc<str>,
    version: u32,
    codecs: Codecs,
    storage: Option<Rc<dyn CacheStorage>>,
    max_bytes: usize,
    throttle: Duration,
    /// The endpoints whose mutations made offline are saved.
    mutations: Vec<Rc<mutations::MutationCodec>>,
    /// Told of a saved mutation that failed when a later load sent it.
    replay_failed: Option<mutations::ReplayFailed>,
}

impl std::fmt::Debug for Persist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Persist")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("entities", &self.codecs.keys())
            .field("max_bytes", &self.max_bytes)
            .field("throttle", &self.throttle)
            .finish_non_exhaustive()
    }
}

impl Persist {
    /// A cache saved under `name` (one name per app), schema version 0,
    /// in the default storage (`localStorage` in a browser, a file in the
    /// user's cache folder natively), at most [`DEFAULT_MAX_BYTES`], saved at
    /// most once a second.
    ///
    /// ```
    /// assert_eq!(restcache::persist::Persist::new("app").name(), "app");
    /// ```
    pub fn new(name: &str) -> Self {
        Persist {
            name: name.into(),
            version: 0,
            codecs: Codecs::default(),
            storage: None,
            max_bytes: DEFAULT_MAX_BYTES,
            throttle: Duration::from_secs(1),
            mutations: Vec::new(),
            replay_failed: None,
        }
    }

    /// The app's schema version: bump it when an entity's shape changes,
    /// and the records and responses saved under another version are
    /// discarded. Mutations made offline under it are still sent: an
    /// optimistic value the new types cannot read is left out, params
    /// they cannot read drop the mutation (counted in
    /// [`Restored::dropped_mutations`]).
    ///
    /// ```
    /// let persist = restcache::persist::Persist::new("app").version(3);
    /// # let _ = persist;
    /// ```
    pub fn version(mut self, version: u32) -> Self {
        self.version = version;
        self
    }

    /// The records of `E` are saved.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::persist::Persist;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct User { id: u64, name: String }
    /// let persist = Persist::new("app").entity::<User>();
    /// # let _ = persist;
    /// ```
    pub fn entity<E: Entity + Serialize + DeserializeOwned>(mut self) -> Self {
        self.codecs.add::<E>();
        self
    }

    /// Saved in `storage` instead.
    ///
    /// ```
    /// use restcache::persist::{MemoryStorage, Persist};
    /// let persist = Persist::new("app").to(MemoryStorage::new());
    /// # let _ = persist;
    /// ```
    pub fn to(mut self, storage: impl CacheStorage + 'static) -> Self {
        self.storage = Some(Rc::new(storage));
        self
    }

    /// At most `bytes` are saved: past it, the oldest responses go first,
    /// then the oldest records.
    ///
    /// ```
    /// let persist = restcache::persist::Persist::new("app").max_bytes(64 * 1024);
    /// # let _ = persist;
    /// ```
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// Saves at most once per `every`: the first change after a quiet
    /// spell saves at once, the changes of a busy spell together at its
    /// end (natively, with the next change or as the link goes).
    ///
    /// ```
    /// use std::time::Duration;
    /// let persist = restcache::persist::Persist::new("app").throttle(Duration::from_millis(200));
    /// # let _ = persist;
    /// ```
    pub fn throttle(mut self, every: Duration) -> Self {
        self.throttle = every;
        self
    }

    /// The name it is saved under.
    ///
    /// ```
    /// assert_eq!(restcache::persist::Persist::new("app").name(), "app");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    fn storage(&self) -> Rc<dyn CacheStorage> {
        self.storage
            .clone()
            .unwrap_or_else(storage::default_storage)
    }
}

/// A saved cache (written with each item's JSON made beforehand).
#[derive(Serialize, Deserialize)]
struct Saved<R = Record, S = SavedResponse, M = SavedMutation> {
    restcache_saved: u32,
    version: u32,
    records: Vec<R>,
    responses: Vec<S>,
    /// Mutations made offline and not answered yet, in order, each
    /// marked with the tab whose queue holds it.
    #[serde(default = "Vec::new")]
    mutations: Vec<M>,
    /// The live tabs' holds on their marked mutations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    leases: Vec<queue::Lease>,
}

/// What a controller took back from a saved cache.
///
/// ```
/// use restcache::persist::Restored;
/// let nothing = Restored::default();
/// assert_eq!((nothing.records, nothing.responses, nothing.discarded), (0, 0, false));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Restored {
    /// Records written back.
    pub records: usize,
    /// Responses waiting for their first read.
    pub responses: usize,
    /// Records that no longer fit their type, dropped.
    pub dropped_records: usize,
    /// Mutations made offline before the reload, called again (sent once
    /// the network is back).
    pub mutations: usize,
    /// Saved mutations that could not be called again, dropped: their
    /// endpoint is no longer named ([`Persist::mutation`]), or their
    /// params no longer fit its types (the app changed them since). The
    /// next save leaves them out. A saved optimistic value that no longer
    /// fits is left out alone: its mutation is still sent.
    pub dropped_mutations: usize,
    /// Whether a saved cache was there but its records and responses
    /// were discarded (another schema version, whose offline mutations
    /// are still sent, or not a saved cache this version reads).
    pub discarded: bool,
}

/// What a controller's persistence keeps between events.
struct Saving {
    persist: Persist,
    storage: Rc<dyn CacheStorage>,
    /// Something changed since the last save.
    dirty: Cell<bool>,
    /// A save is on its way (throttled).
    #[cfg(target_arch = "wasm32")]
    scheduled: Cell<bool>,
    /// When it last saved.
    saved_at: Cell<Option<crate::meta::Timestamp>>,
    /// How many queued mutations the controller had at the last save: a
    /// change of the queue saves at once, whatever the throttle.
    queue_saved: Cell<usize>,
    /// Why the storage refused the last save, if it did.
    last_error: std::cell::RefCell<Option<String>>,
    /// The mark on this cache's saved mutations.
    owner: u64,
    /// The marks whose mutations this cache took at its restore (its
    /// queue holds them now), until a save has written them out: a mark
    /// may come back later (a closed tab reopened with its
    /// `sessionStorage`).
    taken: std::cell::RefCell<Vec<u64>>,
    /// The page went (or the cache's last link): the lease on this
    /// cache's saved mutations is let go, so the next load takes them.
    released: Cell<bool>,
    /// A renewal of the lease is on its way.
    #[cfg(target_arch = "wasm32")]
    renewing: Cell<bool>,
}

/// Keeps a controller's cache saved while it lives; dropping it saves
/// what is left to save (see [`Controller::persist`]).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::persist::{CacheStorage, MemoryStorage, Persist};
///
/// let storage = MemoryStorage::new();
/// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
/// let link = ctrl.persist(&Persist::new("app").to(storage.clone()));
/// ctrl.reset(); // a change
/// drop(link);
/// assert_eq!(storage.load("app"), None, "a reset leaves nothing saved");
/// ```
#[must_use = "dropping the link stops saving (after a last save)"]
pub struct PersistLink {
    controller: Controller,
    saving: Rc<Saving>,
    restored: Restored,
    _listener: EventListener,
    /// Saves what is left to save as the page goes (`pagehide`).
    #[cfg(target_arch = "wasm32")]
    _pagehide: Option<gloo_events::EventListener>,
}

impl std::fmt::Debug for PersistLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PersistLink")
            .field("restored", &self.restored)
            .finish_non_exhaustive()
    }
}

impl PersistLink {
    /// What was taken back from the saved cache.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::persist::{MemoryStorage, Persist};
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let link = ctrl.persist(&Persist::new("empty").to(MemoryStorage::new()));
    /// assert_eq!(link.restored().records, 0);
    /// ```
    pub fn restored(&self) -> Restored {
        self.restored
    }

    /// Why the storage refused the last save (a browser's quota, a full
    /// disk), if it did; `None` once a save goes through. What it held is
    /// saved again with the next change, or as the link goes.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::persist::{MemoryStorage, Persist};
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let link = ctrl.persist(&Persist::new("fine").to(MemoryStorage::new()));
    /// link.save_now();
    /// assert_eq!(link.last_error(), None);
    /// ```
    pub fn last_error(&self) -> Option<String> {
        self.saving.last_error.borrow().clone()
    }

    /// Saves now, whatever the throttle.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::persist::{CacheStorage, MemoryStorage, Persist};
    /// let storage = MemoryStorage::new();
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let link = ctrl.persist(&Persist::new("now").to(storage.clone()));
    /// link.save_now();
    /// assert!(storage.load("now").is_some());
    /// ```
    pub fn save_now(&self) {
        save(&self.controller, &self.saving);
    }
}

impl Drop for PersistLink {
    fn drop(&mut self) {
        let saving = &self.saving;
        // The cache's last link lets go of its queue's lease (another of
        // its links still holds it).
        if self.controller.count_persist_link(-1) == 0 {
            saving.released.set(true);
        }
        if saving.dirty.get() || self.controller.queued_call_count() > 0 {
            save(&self.controller, saving);
        }
    }
}

impl Controller {
    /// Takes back the cache `persist` saved (call it before the first
    /// render), then saves this controller's cache after its changes
    /// until the returned link is dropped.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::persist::{MemoryStorage, Persist};
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let link = ctrl.persist(&Persist::new("app").to(MemoryStorage::new()));
    /// assert!(!link.restored().discarded);
    /// ```
    pub fn persist(&self, persist: &Persist) -> PersistLink {
        let storage = persist.storage();
        let (restored, owner, taken) = restore(self, persist, storage.as_ref());
        self.record_responses();
        let saving = Rc::new(Saving {
            persist: persist.clone(),
            storage,
            dirty: Cell::new(false),
            #[cfg(target_arch = "wasm32")]
            scheduled: Cell::new(false),
            saved_at: Cell::new(None),
            queue_saved: Cell::new(self.queued_call_count()),
            last_error: std::cell::RefCell::new(None),
            owner,
            taken: std::cell::RefCell::new(taken),
            released: Cell::new(false),
            #[cfg(target_arch = "wasm32")]
            renewing: Cell::new(false),
        });
        // Another version's save is gone from the storage, and the
        // mutations it held are in the queue alone: saved again at once.
        // So are mutations taken from a tab that went (marked as ours),
        // and a queue a link made later (its component mounted again)
        // finds: its lease held again.
        if restored.mutations > 0 || self.queued_call_count() > 0 {
            save(self, &saving);
            renew_later(&saving, self);
        }
        let heard = Rc::clone(&saving);
        let listener = self.on_event(move |event, ctrl| changed(&heard, event, ctrl));
        #[cfg(target_arch = "wasm32")]
        let pagehide = web_sys::window().map(|window| {
            let (ctrl, saving) = (self.downgrade(), Rc::downgrade(&saving));
            gloo_events::EventListener::new(&window, "pagehide", move |event| {
                use wasm_bindgen::JsCast;
                if let (Some(ctrl), Some(saving)) = (ctrl.upgrade(), saving.upgrade()) {
                    // The next load (a reload) takes this tab's queue; a
                    // page the back-forward cache keeps may come back with
                    // it, and holds it (if it never does, its lease runs
                    // out).
                    let kept = event
                        .dyn_ref::<web_sys::PageTransitionEvent>()
                        .is_some_and(web_sys::PageTransitionEvent::persisted);
                    if !kept {
                        saving.released.set(true);
                        queue::keep_tab_mark(&saving.persist.name, saving.owner, true);
                    }
                    if saving.dirty.get() || ctrl.queued_call_count() > 0 {
                        save(&ctrl, &saving);
                    }
                }
            })
        });
        self.count_persist_link(1);
        PersistLink {
            controller: self.clone(),
            saving,
            restored,
            _listener: listener,
            #[cfg(target_arch = "wasm32")]
            _pagehide: pagehide,
        }
    }
}
