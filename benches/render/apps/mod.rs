//! The three apps under test, driven alike by the scenarios: each is
//! mounted into an element of its own on a fresh simulated API, shown a
//! screen, and asked for changes. They render with the same views
//! (`crate::views`) and differ only in how they get and change data:
//!
//! - `cached`: restcache (reads through `use_suspense`, changes written
//!   into the cache with no network);
//! - `baseline`: the reference's baseline, `use_state` filled by a fetch,
//!   and every change sent to the API then every list fetched again;
//! - `floor`: a hand-written `use_reducer` app that applies each change
//!   to the lists it holds, with no network and no cache.

pub mod baseline;
pub mod cached;
pub mod floor;

use std::rc::Rc;

use web_sys::Element;
use yew::{AppHandle, BaseComponent, Renderer};

use crate::data::{Issue, IssueState};
use crate::screen::Screen;
use crate::server::Server;

/// A change to the API's issues, as a scenario asks for it.
#[derive(Clone, Debug)]
pub enum Change {
    /// Issue `number` gets the title `title`.
    Retitle { number: u64, title: String },
    /// The user `login` gets the name `name`.
    Rename { login: String, name: String },
    /// `issue` is created, before every other issue.
    Create(Rc<Issue>),
    /// Issue `number` is deleted.
    Delete { number: u64 },
    /// Issue `number` moves to `state`.
    Move { number: u64, state: IssueState },
}

/// An app under test, mounted.
pub trait AppUnderTest {
    /// Its name in the table.
    const NAME: &'static str;

    /// Whether a change refetches what the app shows (the baseline): its
    /// changes take 140 ms and more each, so a run times fewer of them.
    const REFETCHES: bool = false;

    /// Mounts the app into `root`, on the API `server`, showing `screen`.
    fn mount(root: &Element, server: &Server, screen: Screen) -> Self;

    /// Shows `screen` instead of what it shows.
    fn show(&mut self, screen: Screen);

    /// Makes `change` the app's way; resolves once the app has done its
    /// part (its re-render may come after).
    async fn apply(&mut self, change: Change);
}

/// A Yew app mounted into an element, with the props it last got;
/// unmounted when dropped.
struct Mounted<C: BaseComponent> {
    handle: Option<AppHandle<C>>,
    props: C::Properties,
}

impl<C: BaseComponent> Mounted<C>
where
    C::Properties: Clone,
{
    fn new(root: &Element, props: C::Properties) -> Self {
        let handle = Renderer::<C>::with_root_and_props(root.clone(), props.clone()).render();
        Mounted {
            handle: Some(handle),
            props,
        }
    }

    /// Renders the app again with its props as `edit` leaves them.
    fn update(&mut self, edit: impl FnOnce(&mut C::Properties)) {
        edit(&mut self.props);
        if let Some(handle) = &mut self.handle {
            handle.update(self.props.clone());
        }
    }
}

impl<C: BaseComponent> Drop for Mounted<C> {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.destroy();
        }
    }
}
