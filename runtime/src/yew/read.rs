//! What one reading hook keeps between renders: a [`ReadObserver`] (the
//! read, and the policy of when it fetches), subscribed in an effect, and
//! the failure it handed to the boundary.

use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;
use yew::prelude::*;
use yew::suspense::Suspension;

use super::boundary::{BoundaryContext, Report};
use super::context::CacheContext;
use super::provider::use_cache_context;
use crate::cache::schema::Schema;
use crate::controller::{Cached, Observe, ReadObserver};
use crate::http::Error;
use crate::rest::{Endpoint, Readable};

/// Whether hooks run on a server: Yew renders natively or on WASI only
/// there (a browser app is wasm32-unknown-unknown). A failed read then
/// goes to the server render pass, which shows its boundary's fallback.
const ON_SERVER: bool = cfg!(any(not(target_arch = "wasm32"), target_os = "wasi"));

/// A reading hook's state: the provider's cache, its observer, and the
/// failure reported to the boundary (with what the component waits on
/// meanwhile).
pub(crate) struct Reader<P, S: Schema> {
    pub cache: CacheContext,
    observer: Rc<RefCell<ReadObserver<P, S>>>,
    failed: Rc<RefCell<Option<Suspension>>>,
}

/// The [`Reader`] of the hook named `hook` (the name a missing provider's
/// panic gives), observing as `options` say. It subscribes in an effect,
/// which Yew runs after the render, in a browser only; the observer then
/// re-reads once, so a change between render and effect re-renders.
#[hook]
pub(crate) fn use_reader<P, S>(hook: &'static str, options: Observe) -> Reader<P, S>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
{
    let cache = use_cache_context(hook);
    let observer = use_mut_ref(|| ReadObserver::new(cache.controller(), options));
    if observer.borrow().controller() != cache.controller() {
        *observer.borrow_mut() = ReadObserver::new(cache.controller(), options);
    }
    let rerender = use_force_update();
    use_effect_with(cache.controller().clone(), {
        let observer = Rc::clone(&observer);
        move |_| {
            observer
                .borrow_mut()
                .subscribe(move || rerender.force_update());
            move || observer.borrow_mut().unsubscribe()
        }
    });
    let failed = use_mut_ref(|| None);
    Reader {
        cache,
        observer,
        failed,
    }
}

impl<P, S> Reader<P, S>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
{
    /// Reads `endpoint` with `params` for this render; `None` params
    /// forget the read and find nothing.
    pub fn read<E: Readable>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: Option<&P>,
    ) -> Option<Cached<S>> {
        let mut observer = self.observer.borrow_mut();
        match params {
            Some(params) => {
                if observer.set(endpoint, params) {
                    *self.failed.borrow_mut() = None;
                }
            }
            None => {
                observer.clear();
                *self.failed.borrow_mut() = None;
            }
        }
        observer.read()
    }

    /// The key of the read, or (when its params make no URL) the
    /// endpoint's path.
    pub fn key<E: Readable>(&self, endpoint: &Endpoint<P, S, E>) -> String {
        match self.observer.borrow().key() {
            Some(key) => key.to_owned(),
            None => endpoint.path().map_or("", |path| path.source()).to_owned(),
        }
    }

    /// Fetches the read in the background (identical reads share one
    /// request).
    pub fn fetch(&self) {
        drop(self.observer.borrow().wait());
    }

    /// What a component waits on while its read is fetched: resumed once
    /// the response (or the error) is stored.
    pub fn wait(&self) -> Suspension {
        let (suspension, handle) = Suspension::new();
        let Some(fetch) = self.observer.borrow().wait() else {
            handle.resume();
            return suspension;
        };
        yew::platform::spawn_local(async move {
            fetch.await;
            // Resumed by a call, not a drop: a component that cannot
            // render now (a failed read on a server, outside
            // `ServerRender`) panics out of this task, never out of a
            // destructor.
            handle.resume();
        });
        suspension
    }

    /// What a component waits on after its read `key` failed with
    /// `error`: the failure goes to the boundary once, and the component
    /// waits until the boundary takes its place.
    pub fn fail(&self, boundary: &BoundaryContext, key: String, error: Error) -> Suspension {
        if let Some(failed) = &*self.failed.borrow()
            && !failed.resumed()
        {
            return failed.clone();
        }
        if ON_SERVER {
            return boundary.fail_on_server(error);
        }
        let (suspension, waiting) = Suspension::new();
        boundary.report(Report {
            controller: self.cache.controller().clone(),
            key,
            error,
            waiting,
        });
        *self.failed.borrow_mut() = Some(suspension.clone());
        suspension
    }
}
