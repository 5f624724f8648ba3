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
//! A reset (a log-out) reaches every tab, and what stood before it stays
//! out: records, optimistic values and answers that a tab sent before it
//! heard of the reset are not taken by a tab that reset already.
//!
//! Records a private endpoint brought travel marked as such: the other
//! tabs show them, and a saved cache there leaves them out as it does
//! in the tab that read them.
//!
//! An optimistic value shows in every tab while its mutation runs: its
//! records travel as a layer that the other tabs show over their
//! confirmed copies, and take away when the mutation ends (after its
//! answer's records, so the answer shows next), or when its tab goes
//! (closed, reloaded, or its link dropped), or a reset. What travels is
//! the records the value shows: an optimistic create's or delete's change
//! to a list, and what an endpoint's updater does to other results, stay
//! in its tab until the answer comes.
//!
//! Two tabs do not send one read request at once: a tab that sends one
//! says so, and a read of the same key in another tab waits for that
//! answer (at most as long as a request may take) and stores it as its
//! own, with no request; if the request fails, is given up, or its tab
//! goes, the waiting read sends its own.
//!
//! `mod.rs` holds the declaration, the controller's entry point and what
//! goes out and comes in; `link` what a tab's sync keeps, `message` what
//! tabs say, `reads` and `optimistic` those two kinds of news, and
//! `channel` the ways tabs talk.
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
mod link;
mod message;
mod optimistic;
mod reads;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::cache::entity::Entity;
use crate::controller::{Controller, Event, EventListener, ReadsElsewhere};
use crate::meta::Timestamp;
use crate::records::Codecs;
pub use channel::{Listener, LocalChannel, OnMessage, TabChannel};
use link::{Link, leaving};
use message::{Message, Sent};

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
    /// a deploy) do not exchange records with this one. A reset (a
    /// log-out) and an invalidation still reach them.
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
        let link = Rc::new(Link::new(
            self,
            Rc::clone(&channel),
            sync.version,
            sync.codecs.clone(),
        ));
        let seat: Rc<dyn ReadsElsewhere> = link.clone();
        self.share_reads(Rc::downgrade(&seat));
        // Reads already on their way (a link made after the first render
        // started them) are shared too.
        reads::tell_in_flight(&link, self);
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

/// Sends the other tabs what `event` changed here.
/// After a reset (here or in another tab): no optimistic value of
/// another tab stays on show, and no read waits for another tab.
fn forget_shared(link: &Link) {
    optimistic::forget(link);
    reads::forget(link);
}

fn tell(link: &Link, event: &Event, ctrl: &Controller) {
    let writes = ctrl.with_store(|store| store.writes());
    if link.applying.get() || applying_to(ctrl) {
        link.sent_up_to.set(writes);
        return;
    }
    reads::tell_request(link, event, ctrl);
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
        link.post_at(Message::Reset, Some(ctrl.reset_at().as_micros()));
        forget_shared(link);
        return;
    }
    // Every record written since the last message (a failed mutation's
    // forgotten target, a listener's write), then the event's own news.
    let since = link.sent_up_to.get();
    let records = ctrl.with_store(|store| link.codecs.collect(store, since));
    link.sent_up_to.set(writes);
    #[cfg(feature = "persist")]
    let (records, private) = ctrl.split_private(records);
    #[cfg(not(feature = "persist"))]
    let private = Vec::new();
    for (records, private) in [(records, false), (private, true)] {
        if !records.is_empty() {
            link.post(Message::Records { records, private });
        }
    }
    match event {
        Event::ResponseStored { key } => reads::tell_answer(link, key, ctrl),
        Event::Invalidated { key } => link.post(Message::Invalidate {
            key: key.clone(),
            tab: link.tab,
            refetching: reads::claim_refetch(link, key, ctrl),
            // An invalidated read's expiry is the time of the invalidation.
            at: ctrl
                .with_store(|store| store.result_meta(key))
                .map_or(0, |meta| meta.expires_at.as_micros()),
        }),
        _ => optimistic::tell(link, event, ctrl),
    }
}

/// Marks `records`, which another tab's private read brought, so that a
/// save here leaves them out (before they are written: a write may save).
#[cfg(feature = "persist")]
fn mark_private(link: &Link, records: &[crate::records::Record], ctrl: &Controller) {
    for record in records {
        let key = link.codecs.key_of(&record.entity);
        if let (Some(key), Some(pk)) = (key, crate::pk::Pk::parse(&record.pk)) {
            ctrl.mark_private(key, pk);
        }
    }
}

/// With nothing saved, there is nothing to leave out.
#[cfg(not(feature = "persist"))]
fn mark_private(_: &Link, _: &[crate::records::Record], _: &Controller) {}

thread_local! {
    /// The controllers a heard message is being written to, innermost
    /// last: while one is, none of its links sends what it changes (two
    /// links of one controller would otherwise echo a reset to each other
    /// without end).
    static APPLYING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Whether a heard message is being written to `ctrl`.
fn applying_to(ctrl: &Controller) -> bool {
    APPLYING.with(|applying| applying.borrow().contains(&ctrl.id()))
}

/// Writes another tab's message here.
fn hear(link: &Link, text: &str, ctrl: &Controller) {
    // Another version of the app (a tab from before a deploy) may read
    // records otherwise: its records are left alone. A reset (a log-out)
    // and an invalidation reach it still: a key names the same read in
    // either version.
    let (message, same_version, at) = match serde_json::from_str::<Sent>(text) {
        // Another link of this tab's own cache: nothing to take.
        Ok(sent) if sent.home == link.home => return,
        Ok(sent) if sent.version == link.version => (sent.message, true, sent.at),
        Ok(Sent {
            message: message @ (Message::Reset | Message::Invalidate { .. }),
            at,
            ..
        }) => (message, false, at),
        _ => return,
    };
    struct Applying<'a>(&'a Cell<bool>);
    impl Drop for Applying<'_> {
        fn drop(&mut self) {
            self.0.set(false);
            APPLYING.with(|applying| applying.borrow_mut().pop());
        }
    }
    link.applying.set(true);
    APPLYING.with(|applying| applying.borrow_mut().push(ctrl.id()));
    let _applying = Applying(&link.applying);
    match message {
        Message::Reset => {
            ctrl.reset();
            // What the other tab wrote since its reset (a new session's
            // records) reaches this one, heard later, all the same.
            if let Some(at) = at {
                ctrl.date_reset(Timestamp::from_micros(at));
            }
            forget_shared(link);
        }
        Message::Invalidate {
            key,
            tab,
            refetching,
            at,
        } => {
            // The tab that invalidated it reads it again: a read here
            // waits for that answer, which started after the invalidation
            // (an answer another version shares, it cannot read).
            if refetching && same_version {
                reads::heard_fetching(link, tab, key.clone(), false);
            }
            let at = match at {
                0 => ctrl.now(),
                at => Timestamp::from_micros(at).min(ctrl.now()),
            };
            ctrl.invalidate_all_at(|stored| stored == key, at);
        }
        Message::Records { records, private } => {
            if private {
                mark_private(link, &records, ctrl);
            }
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
        } => optimistic::heard_shown(link, tab, layer, &records, ctrl),
        Message::Settled { tab, layer } => optimistic::heard_settled(link, tab, layer, ctrl),
        Message::Fetching { tab, key } => reads::heard_fetching(link, tab, key, true),
        Message::Wants { tab, key } => reads::heard_wants(link, tab, &key),
        Message::Fetched {
            tab,
            key,
            response,
            started,
        } => reads::heard_answer(link, tab, &key, Some((response, started)), ctrl),
        Message::FetchEnded { tab, key } => reads::heard_answer(link, tab, &key, None, ctrl),
        Message::Gone { tab } => {
            reads::heard_gone(link, tab);
            optimistic::heard_gone(link, tab, ctrl);
        }
    }
    link.sent_up_to.set(ctrl.with_store(|store| store.writes()));
}
