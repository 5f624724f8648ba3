//! Tabs that agree (feature `tabs`): what one tab's cache learns (a
//! response's records, a mutation's, a record pushed or written by hand,
//! an invalidation, a reset such as a log-out) reaches the other tabs of
//! the app, which write it into their own caches with no request.
//!
//! In a browser the tabs talk over a `BroadcastChannel` of the app's
//! name; natively, the controllers of one thread that sync under one
//! name talk in memory (a desktop app's windows, a test). Records
//! travel as JSON, so the entity types that sync are named, as a live
//! stream's are: `TabSync::new("todo-app").entity::<Todo>()`.
//!
//! Each record carries the time its data stood, so the cache's rule of
//! order holds across tabs: a copy another tab fetched earlier does not
//! replace one fetched later here. A record another tab dropped (deleted
//! or invalidated) is dropped here as of that time, as a delete is: lists
//! let it go, a view of it alone fetches it again, and an answer whose
//! request started earlier does not bring it back, whether or not this
//! tab held it.
//!
//! An optimistic value shows in every tab while its mutation runs: its
//! records travel as a layer that the other tabs show over their
//! confirmed copies, and take away when the mutation ends (after its
//! answer's records, so the answer shows next), or when its tab goes
//! (closed, reloaded, or its link dropped). An optimistic create's or
//! delete's change to a list stays in its tab until its answer comes.
//!
//! `mod.rs` holds the declaration, the controller's entry point and the
//! messages; `channel` the ways tabs talk.
//!
//! ```
//! use restcache::prelude::*;
//! use restcache::tabs::TabSync;
//! use std::rc::Rc;
//!
//! #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
//! struct Todo { id: u64, title: String }
//! resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
//!
//! let sync = TabSync::new("doc-example").entity::<Todo>();
//! let (here, there) = (Controller::new(Client::new("http://127.0.0.1:8080")), Controller::new(Client::new("http://127.0.0.1:8080")));
//! let (_a, _b) = (here.sync_tabs(&sync), there.sync_tabs(&sync));
//! there.set_response(&TodoResource::get_list(), &(), vec![Rc::new(Todo { id: 1, title: "milk".into() })])?;
//! here.set_entity(Todo { id: 1, title: "oat milk".into() }, here.write_time())?;
//! assert_eq!(there.read(&TodoResource::get_list(), &()).data.unwrap()[0].title, "oat milk");
//! # Ok::<(), restcache::WriteError>(())
//! ```

mod channel;

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::cache::entity::Entity;
use crate::controller::{Controller, Event, EventListener, ForeignLayer};
use crate::records::{Codecs, Record};
pub use channel::{Listener, LocalChannel, OnMessage, TabChannel};

/// A message, with the version of the app that sent it.
#[derive(Serialize, Deserialize)]
struct Sent {
    version: u32,
    message: Message,
}

/// What a message says.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Message {
    /// Records written (or dropped: `data` null) since the last message.
    Records { records: Vec<Record> },
    /// A read was invalidated.
    Invalidate { key: String },
    /// The cache was emptied (a log-out).
    Reset,
    /// An optimistic value on show in tab `tab`: the records it shows.
    Optimistic {
        tab: u64,
        layer: u64,
        records: Vec<Record>,
    },
    /// Tab `tab`'s optimistic value `layer` is no longer on show (its
    /// answer, if any, came in the records before).
    Settled { tab: u64, layer: u64 },
    /// Tab `tab` stops syncing (closed): its optimistic values go.
    Gone { tab: u64 },
}

/// How an app's tabs keep their caches in agreement: the channel's name
/// and the entity types whose records travel. Cheap to clone.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::tabs::TabSync;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// let sync = TabSync::new("todo-app").entity::<Todo>();
/// assert_eq!(sync.name(), "todo-app");
/// ```
#[derive(Clone)]
pub struct TabSync {
    name: Rc<str>,
    version: u32,
    codecs: Codecs,
    channel: Option<Rc<dyn TabChannel>>,
}

impl std::fmt::Debug for TabSync {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TabSync")
            .field("name", &self.name)
            .field("entities", &self.codecs.keys())
            .finish_non_exhaustive()
    }
}

impl TabSync {
    /// Tabs that sync under `name` (the `BroadcastChannel`'s name in a
    /// browser; one name per app).
    ///
    /// ```
    /// assert_eq!(restcache::tabs::TabSync::new("shop").name(), "shop");
    /// ```
    pub fn new(name: &str) -> Self {
        TabSync {
            name: name.into(),
            version: 0,
            codecs: Codecs::default(),
            channel: None,
        }
    }

    /// The records of `E` travel between the tabs.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::tabs::TabSync;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct User { id: u64, name: String }
    /// let sync = TabSync::new("app").entity::<User>();
    /// # let _ = sync;
    /// ```
    pub fn entity<E: Entity + Serialize + DeserializeOwned>(mut self) -> Self {
        self.codecs.add::<E>();
        self
    }

    /// The app's schema version: tabs of another version (opened before
    /// a deploy) do not exchange records with this one.
    ///
    /// ```
    /// let sync = restcache::tabs::TabSync::new("app").version(2);
    /// # let _ = sync;
    /// ```
    pub fn version(mut self, version: u32) -> Self {
        self.version = version;
        self
    }

    /// The tabs talk over `channel` instead (another transport, or a
    /// test's [`LocalChannel`]: give each tab its own clone).
    ///
    /// ```
    /// use restcache::tabs::{LocalChannel, TabSync};
    /// let sync = TabSync::new("app").over(LocalChannel::new());
    /// # let _ = sync;
    /// ```
    pub fn over(mut self, channel: impl TabChannel + 'static) -> Self {
        self.channel = Some(Rc::new(channel));
        self
    }

    /// The name the tabs sync under.
    ///
    /// ```
    /// assert_eq!(restcache::tabs::TabSync::new("app").name(), "app");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// What one controller's sync keeps between events.
struct Link {
    /// This tab, among those of the channel.
    tab: u64,
    version: u32,
    codecs: Codecs,
    channel: Rc<dyn TabChannel>,
    /// The store's write count when its changes were last sent (or last
    /// taken from another tab).
    sent_up_to: Cell<u64>,
    /// While another tab's message is written here: nothing goes back.
    applying: Cell<bool>,
    /// This tab's optimistic values the other tabs were sent.
    announced: RefCell<HashSet<u64>>,
    /// Other tabs' optimistic values on show here, by tab and value.
    foreign: RefCell<HashMap<(u64, u64), Vec<ForeignLayer>>>,
}

impl Link {
    fn post(&self, message: Message) {
        let sent = Sent {
            version: self.version,
            message,
        };
        if let Ok(text) = serde_json::to_string(&sent) {
            self.channel.post(&text);
        }
    }
}

/// Keeps a controller in sync with the other tabs while it lives (see
/// [`Controller::sync_tabs`]).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::tabs::TabSync;
/// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
/// let link = ctrl.sync_tabs(&TabSync::new("tab-link-doc"));
/// drop(link); // this tab stops syncing
/// ```
#[must_use = "dropping the link stops the sync at once"]
pub struct TabLink {
    link: Rc<Link>,
    _listener: EventListener,
    _subscription: Box<dyn std::any::Any>,
    /// In a browser: tells the other tabs when the page goes.
    _leaving: Option<Box<dyn std::any::Any>>,
}

/// The other tabs stop showing this one's optimistic values.
impl Drop for TabLink {
    fn drop(&mut self) {
        self.link.post(Message::Gone { tab: self.link.tab });
    }
}

impl std::fmt::Debug for TabLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TabLink").finish_non_exhaustive()
    }
}

impl Controller {
    /// Syncs this controller's cache with the other tabs of `sync` until
    /// the returned link is dropped: what it learns goes to them, what
    /// they learn is written here.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::tabs::TabSync;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let link = ctrl.sync_tabs(&TabSync::new("sync_tabs-doc").entity::<Todo>());
    /// drop(link); // stops
    /// ```
    pub fn sync_tabs(&self, sync: &TabSync) -> TabLink {
        let channel = sync
            .channel
            .clone()
            .unwrap_or_else(|| channel::named(&sync.name));
        let link = Rc::new(Link {
            tab: tab_id(self),
            version: sync.version,
            codecs: sync.codecs.clone(),
            channel: Rc::clone(&channel),
            sent_up_to: Cell::new(self.with_store(|store| store.writes())),
            applying: Cell::new(false),
            announced: RefCell::default(),
            foreign: RefCell::default(),
        });
        let told = Rc::clone(&link);
        let listener = self.on_event(move |event, ctrl| tell(&told, event, ctrl));
        // Weak: the channel may outlive the controller's last handle.
        let weak = self.downgrade();
        let heard = Rc::clone(&link);
        let subscription = channel.listen(Rc::new(move |text: &str| {
            if let Some(ctrl) = weak.upgrade() {
                hear(&heard, text, &ctrl);
            }
        }));
        TabLink {
            _leaving: leaving(&link),
            link,
            _listener: listener,
            _subscription: subscription,
        }
    }
}

/// An id for a new tab's link: unique among the app's tabs in practice
/// (the time, a random number in a browser, the process and a count).
fn tab_id(ctrl: &Controller) -> u64 {
    thread_local! {
        static LINKS: Cell<u64> = const { Cell::new(0) };
    }
    let count = LINKS.with(|links| {
        links.set(links.get() + 1);
        links.get()
    });
    #[cfg(target_arch = "wasm32")]
    let salt = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
    #[cfg(not(target_arch = "wasm32"))]
    let salt = u64::from(std::process::id()) << 32;
    ctrl.now().as_micros() ^ salt ^ count.rotate_right(16)
}

/// In a browser, the other tabs are told when this page goes (closed,
/// reloaded, navigated away), as no drop runs then.
fn leaving(link: &Rc<Link>) -> Option<Box<dyn std::any::Any>> {
    #[cfg(target_arch = "wasm32")]
    {
        let window = web_sys::window()?;
        let weak = Rc::downgrade(link);
        let listener = gloo_events::EventListener::new(&window, "pagehide", move |_| {
            if let Some(link) = weak.upgrade() {
                link.post(Message::Gone { tab: link.tab });
            }
        });
        Some(Box::new(listener))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = link;
        None
    }
}

/// Sends the other tabs what `event` changed here.
fn tell(link: &Link, event: &Event, ctrl: &Controller) {
    let writes = ctrl.with_store(|store| store.writes());
    if link.applying.get() {
        link.sent_up_to.set(writes);
        return;
    }
    // Events that write nothing leave the records for the next one.
    if matches!(
        event,
        Event::RequestStarted { .. }
            | Event::RequestCancelled { .. }
            | Event::MutationQueued { .. }
            | Event::MutationUnsent { .. }
    ) {
        return;
    }
    if let Event::Reset = event {
        link.sent_up_to.set(writes);
        link.announced.borrow_mut().clear();
        link.foreign.borrow_mut().clear();
        return link.post(Message::Reset);
    }
    // Every record written since the last message (a failed mutation's
    // forgotten target, a listener's write), then the event's own news.
    let since = link.sent_up_to.get();
    let records = ctrl.with_store(|store| link.codecs.collect(store, since));
    link.sent_up_to.set(writes);
    if !records.is_empty() {
        link.post(Message::Records { records });
    }
    match event {
        Event::Invalidated { key } => link.post(Message::Invalidate { key: key.clone() }),
        Event::OptimisticShown { layer, .. } => {
            let records = ctrl.with_store(|store| link.codecs.collect_layer(store, *layer));
            if !records.is_empty() {
                link.announced.borrow_mut().insert(*layer);
                link.post(Message::Optimistic {
                    tab: link.tab,
                    layer: *layer,
                    records,
                });
            }
        }
        Event::OptimisticEnded { layer, .. } if link.announced.borrow_mut().remove(layer) => {
            link.post(Message::Settled {
                tab: link.tab,
                layer: *layer,
            });
        }
        _ => {}
    }
}

/// Writes another tab's message here.
fn hear(link: &Link, text: &str, ctrl: &Controller) {
    // Another version of the app (a tab from before a deploy) may read
    // records otherwise: its messages are left alone.
    let message = match serde_json::from_str::<Sent>(text) {
        Ok(sent) if sent.version == link.version => sent.message,
        _ => return,
    };
    struct Applying<'a>(&'a Cell<bool>);
    impl Drop for Applying<'_> {
        fn drop(&mut self) {
            self.0.set(false);
        }
    }
    link.applying.set(true);
    let _applying = Applying(&link.applying);
    match message {
        Message::Reset => {
            link.foreign.borrow_mut().clear();
            ctrl.reset();
        }
        Message::Invalidate { key } => {
            ctrl.invalidate_all(|stored| stored == key);
        }
        Message::Records { records } => {
            ctrl.batch(|| {
                for record in &records {
                    link.codecs.apply(ctrl, record);
                }
            });
        }
        Message::Optimistic {
            tab,
            layer,
            records,
        } => {
            let shown: Vec<ForeignLayer> = ctrl.batch(|| {
                records
                    .iter()
                    .filter_map(|record| link.codecs.apply_layer(ctrl, record))
                    .collect()
            });
            link.foreign.borrow_mut().insert((tab, layer), shown);
        }
        Message::Settled { tab, layer } => {
            let shown = link.foreign.borrow_mut().remove(&(tab, layer));
            remove_foreign(ctrl, shown.into_iter().flatten());
        }
        Message::Gone { tab } => {
            let shown: Vec<ForeignLayer> = {
                let mut foreign = link.foreign.borrow_mut();
                let gone: Vec<(u64, u64)> = foreign
                    .keys()
                    .filter(|(of, _)| *of == tab)
                    .copied()
                    .collect();
                gone.iter()
                    .filter_map(|key| foreign.remove(key))
                    .flatten()
                    .collect()
            };
            remove_foreign(ctrl, shown);
        }
    }
    link.sent_up_to.set(ctrl.with_store(|store| store.writes()));
}

/// Takes other tabs' optimistic values away here, newest first.
fn remove_foreign(ctrl: &Controller, shown: impl IntoIterator<Item = ForeignLayer>) {
    let mut shown: Vec<ForeignLayer> = shown.into_iter().collect();
    ctrl.batch(|| {
        while let Some(layer) = shown.pop() {
            ctrl.remove_foreign_layer(layer);
        }
    });
}
