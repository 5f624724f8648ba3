//! What one reading hook keeps between renders, and the steps every
//! reading hook shares: tracking its key (subscribing to it, registering
//! it as mounted), revalidating on mount or a change of params, waiting
//! for a fetch, and reporting a failure to the boundary.

use serde::Serialize;
use yew::functional::UseForceUpdateHandle;
use yew::suspense::Suspension;

use super::boundary::{BoundaryContext, Report};
use super::context::{CacheContext, MountGuard, ON_SERVER, PollGuard};
use crate::cache::schema::Schema;
use crate::controller::{Cached, ExpiryStatus, Subscription};
use crate::http::Error;
use crate::rest::{Endpoint, Read, Readable};

/// What the hook does with its read besides reading it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Watch {
    /// Re-render when the read's data or error changes.
    pub subscribe: bool,
    /// Refetch when stale: on mount, on a change of params, and when the
    /// page comes back into view.
    pub revalidate: bool,
    /// Re-render when a request for the read starts or ends too.
    pub fetching: bool,
}

/// What a reading hook watches: the cache, the endpoint and the params of
/// the last render, and their key.
struct Watched<P> {
    cache: CacheContext,
    /// The endpoint, as far as its keys go.
    endpoint: Endpoint<P, (), Read>,
    params: P,
    key: String,
}

impl<P: PartialEq + Serialize> Watched<P> {
    /// Whether this render reads the same key: the same cache, endpoint
    /// and params.
    fn is<S, E: Readable>(
        &self,
        cache: &CacheContext,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
    ) -> bool {
        self.cache == *cache && self.params == *params && self.endpoint.keys_like(endpoint)
    }
}

/// The state one reading hook keeps between renders.
pub(crate) struct ReadState<P> {
    /// What the last render read.
    last: Option<Watched<P>>,
    subscription: Option<Subscription>,
    mount: Option<MountGuard>,
    poll: Option<PollGuard>,
    /// Whether the stale refetch of this key (on mount or a change of
    /// params) was started.
    revalidated: bool,
    /// The failure reported to the boundary, and what the component waits
    /// on meanwhile.
    failed: Option<Suspension>,
}

impl<P> Default for ReadState<P> {
    fn default() -> Self {
        ReadState {
            last: None,
            subscription: None,
            mount: None,
            poll: None,
            revalidated: false,
            failed: None,
        }
    }
}

/// A read in the middle of a render: its key, and what the cache holds.
pub(crate) struct Tracked<S: Schema> {
    pub key: String,
    pub cached: Cached<S>,
}

impl<P: Serialize + PartialEq + Clone + 'static> ReadState<P> {
    /// Forgets the read (its params are `None`): no subscription, no
    /// mount, no polling.
    pub fn clear(&mut self) {
        *self = ReadState::default();
    }

    /// Reads `endpoint` with `params` for this render: the key comes from
    /// the last render when the params did not change; a new key is
    /// subscribed to and mounted as `watch` says, and a stale read is
    /// refetched once for it.
    pub fn track<S: Schema, E: Readable>(
        &mut self,
        cache: &CacheContext,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        watch: Watch,
        rerender: &UseForceUpdateHandle,
    ) -> Result<Tracked<S>, Error> {
        let controller = cache.controller();
        let key = match &self.last {
            Some(last) if last.is(cache, endpoint, params) => last.key.clone(),
            _ => {
                let key = match controller.key(endpoint, params) {
                    Ok(key) => key,
                    Err(error) => {
                        self.clear();
                        return Err(error);
                    }
                };
                self.start(cache, endpoint, params, &key, watch, rerender);
                key
            }
        };
        let cached = controller.read_key(endpoint, &key);
        // Revalidate on mount and on a change of params: on the first
        // render of the key, when it is stale then.
        if watch.revalidate && !self.revalidated {
            self.revalidated = true;
            if cached.status == ExpiryStatus::Stale {
                cache.revalidate(endpoint, params);
            }
        }
        Ok(Tracked { key, cached })
    }

    /// Starts watching a new key.
    fn start<S: Schema, E: Readable>(
        &mut self,
        cache: &CacheContext,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        key: &str,
        watch: Watch,
        rerender: &UseForceUpdateHandle,
    ) {
        self.clear();
        self.last = Some(Watched {
            cache: cache.clone(),
            endpoint: endpoint.clone().with_decoder(no_decode).with_effect(),
            params: params.clone(),
            key: key.to_owned(),
        });
        // A server renders each component once: the suspension's resume
        // renders it when its data is there, and nothing after.
        if watch.subscribe && !ON_SERVER {
            let rerender = rerender.clone();
            let rerender = move || rerender.force_update();
            let controller = cache.controller();
            self.subscription = Some(if watch.fetching {
                controller.subscribe_fetching(endpoint, params, rerender)
            } else {
                controller.subscribe(endpoint, params, rerender)
            });
        }
        if watch.revalidate {
            self.mount = Some(cache.mount(endpoint, params));
        }
    }

    /// Polls the tracked read at the endpoint's poll frequency while this
    /// state lives (from the first render with this key on).
    pub fn poll<S: Schema, E: Readable>(
        &mut self,
        cache: &CacheContext,
        endpoint: &Endpoint<P, S, E>,
    ) {
        let (Some(every), None, Some(last)) =
            (endpoint.options().poll_frequency, &self.poll, &self.last)
        else {
            return;
        };
        self.poll = Some(cache.poll(&last.key, endpoint, &last.params, every));
    }

    /// What a component waits on after its read `key` failed with `error`:
    /// the failure goes to the boundary once, and the component waits
    /// until the boundary takes its place.
    pub fn fail(
        &mut self,
        cache: &CacheContext,
        boundary: &BoundaryContext,
        key: String,
        error: Error,
    ) -> Suspension {
        if let Some(failed) = &self.failed
            && !failed.resumed()
        {
            return failed.clone();
        }
        if ON_SERVER {
            return boundary.fail_on_server(error);
        }
        let (suspension, waiting) = Suspension::new();
        boundary.report(Report {
            controller: cache.controller().clone(),
            key,
            error,
            waiting,
        });
        self.failed = Some(suspension.clone());
        suspension
    }
}

/// The decoder of an endpoint kept only for its keys: never called.
fn no_decode<P>(
    _: &crate::http::Response,
    _: &P,
) -> Result<crate::cache::schema::Decoded<()>, crate::error::SchemaError> {
    Ok(().into())
}
