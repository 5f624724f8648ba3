//! What one controller's sync keeps between events, and how it speaks.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::TabChannel;
use super::message::{Message, Sent};
use super::reads::Elsewhere;
use crate::controller::{Controller, ForeignLayer};
use crate::records::Codecs;

/// What one controller's sync keeps between events.
pub(super) struct Link {
    /// This tab, among those of the channel.
    pub tab: u64,
    /// This tab's cache, the same for each of its links.
    pub home: u64,
    pub version: u32,
    pub codecs: Codecs,
    pub channel: Rc<dyn TabChannel>,
    /// The store's write count when its changes were last sent (or last
    /// taken from another tab).
    pub sent_up_to: Cell<u64>,
    /// While another tab's message is written here: nothing goes back.
    pub applying: Cell<bool>,
    /// This tab's optimistic values the other tabs were sent.
    pub announced: RefCell<HashSet<u64>>,
    /// Other tabs' optimistic values on show here, by tab and value.
    pub foreign: RefCell<HashMap<(u64, u64), Vec<ForeignLayer>>>,
    /// The keys this tab told the others it fetches, and whether a read
    /// elsewhere waits for the answer.
    pub fetching: RefCell<HashMap<String, bool>>,
    /// The keys other tabs fetch now (or are about to), and the reads
    /// here that wait for the answer.
    pub elsewhere: RefCell<HashMap<String, Elsewhere>>,
}

impl Link {
    /// A link for `ctrl`'s tab on `channel`, nothing sent or heard yet.
    pub fn new(
        ctrl: &Controller,
        channel: Rc<dyn TabChannel>,
        version: u32,
        codecs: Codecs,
    ) -> Self {
        Link {
            tab: tab_id(ctrl),
            home: home_of(ctrl),
            version,
            codecs,
            channel,
            sent_up_to: Cell::new(ctrl.with_store(|store| store.writes())),
            applying: Cell::new(false),
            announced: RefCell::default(),
            foreign: RefCell::default(),
            fetching: RefCell::default(),
            elsewhere: RefCell::default(),
        }
    }

    /// Sends `message` to the other tabs.
    pub fn post(&self, message: Message) {
        self.post_at(message, None);
    }

    /// Sends `message`, dated `at` (a reset's time), to the other tabs.
    pub fn post_at(&self, message: Message, at: Option<u64>) {
        let sent = Sent {
            version: self.version,
            home: self.home,
            at,
            message,
        };
        if let Ok(text) = serde_json::to_string(&sent) {
            self.channel.post(&text);
        }
    }
}

/// An id for a new tab's link: unique among the app's tabs in practice.
fn tab_id(ctrl: &Controller) -> u64 {
    ctrl.fresh_id()
}

/// The number of `ctrl`'s cache, the same for each of its links: a
/// number no other tab's cache has (as the tab ids are made).
fn home_of(ctrl: &Controller) -> u64 {
    thread_local! {
        static HOMES: RefCell<HashMap<usize, u64>> = RefCell::default();
    }
    HOMES.with(|homes| {
        let mut homes = homes.borrow_mut();
        *homes.entry(ctrl.id()).or_insert_with(|| tab_id(ctrl))
    })
}

/// In a browser, the other tabs are told when this page goes (closed,
/// reloaded, navigated away), as no drop runs then.
pub(super) fn leaving(link: &Rc<Link>) -> Option<Box<dyn std::any::Any>> {
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
