//! Work a controller does on its own: fetches nobody awaits (a stale read
//! revalidating), run on the controller's spawner, and fetches views wait
//! for, run while they wait; one per key at a time.

use futures_util::FutureExt;
use futures_util::future::{LocalBoxFuture, Shared, WeakShared};
use serde::Serialize;

use crate::cache::schema::Schema;
use crate::controller::state::KeyState;
use crate::controller::{Controller, ExpiryStatus, State};
use crate::meta::Timestamp;
use crate::rest::{Endpoint, Readable};

/// Runs a future to its end beside the caller (see
/// [`ControllerBuilder::spawner`](crate::ControllerBuilder::spawner)).
pub(crate) type Spawner = std::rc::Rc<dyn Fn(LocalBoxFuture<'static, ()>)>;

/// A background fetch, shared by everyone waiting for it.
pub(crate) type Background = Shared<LocalBoxFuture<'static, ()>>;

/// A background fetch as the controller knows it: weakly, as the fetch
/// holds the controller. Its task (and whoever waits for it) keeps it
/// alive; a task dropped half-way (its runtime went away) takes the fetch
/// and its hold on the controller with it.
pub(crate) type Running = WeakShared<LocalBoxFuture<'static, ()>>;

/// The default spawner: the browser's microtask queue in wasm, tokio's
/// `spawn_local` (a `LocalSet`) natively.
pub(crate) fn default_spawner() -> Spawner {
    #[cfg(target_arch = "wasm32")]
    {
        std::rc::Rc::new(wasm_bindgen_futures::spawn_local)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::rc::Rc::new(|task| drop(tokio::task::spawn_local(task)))
    }
}

impl Controller {
    /// Runs `task` on the controller's spawner.
    pub(crate) fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        (self.inner.spawner)(task);
    }

    /// Fetches the read `key` in the background, unless it is being
    /// fetched that way already (then it joins that fetch), and runs it to
    /// its end whoever waits for it; resolves once the response (or the
    /// error) is stored.
    pub(crate) fn fetch_in_background<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        key: &str,
    ) -> Background
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Readable,
    {
        let fetch = self.fetch_while_awaited(endpoint, params, key);
        self.spawn(Box::pin(fetch.clone()));
        fetch
    }

    /// Fetches the read `key` for those who await the returned future,
    /// unless it is being fetched in the background already (then it
    /// joins that fetch); resolves once the response (or the error) is
    /// stored. It runs only while awaited: once every copy is dropped
    /// before the answer (the views waiting on it went), the request is
    /// cancelled, unless a background fetch holds it.
    pub(crate) fn fetch_while_awaited<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        key: &str,
    ) -> Background
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Readable,
    {
        let running = self
            .inner
            .background
            .borrow()
            .get(key)
            .and_then(|(_, running)| running.upgrade());
        if let Some(running) = running {
            return running;
        }
        let (ctrl, endpoint, params, done) = (
            self.clone(),
            endpoint.clone(),
            params.clone(),
            key.to_owned(),
        );
        let serial = self.state_mut().next_serial();
        let fetch = async move {
            let _ = ctrl.fetch(&endpoint, &params, None).await;
            let mut background = ctrl.inner.background.borrow_mut();
            // Unless a later fetch took the key.
            if background.get(&done).is_some_and(|(of, _)| *of == serial) {
                background.remove(&done);
            }
        }
        .boxed_local()
        .shared();
        if let Some(running) = fetch.downgrade() {
            self.inner
                .background
                .borrow_mut()
                .insert(key.to_owned(), (serial, running));
        }
        fetch
    }

    /// Lets go of the requests on their way for `keys` (an invalidation
    /// or an expiry made them old): a later read starts a request of its
    /// own instead of joining one from before. An answer that lands from
    /// one of them is stored stale, where the store takes it at all (an
    /// invalidated result turns it down).
    pub(crate) fn detach_requests<'k>(
        &self,
        state: &mut State,
        keys: impl IntoIterator<Item = &'k str>,
    ) {
        let mut background = self.inner.background.borrow_mut();
        for key in keys {
            background.remove(key);
            let let_go = |kept: &mut KeyState| {
                let request = kept.in_flight.take()?;
                kept.let_go.push(request);
                Some(())
            };
            if state.keys.edit(key, let_go).flatten().is_some() {
                state.touch(key);
            }
        }
    }

    /// Fetches the read in the background when it is stale as the request
    /// starts, when its data went at its expiry (an endpoint whose data
    /// must not show once stale), or when its last error expired; its
    /// errors stay beside the data.
    pub(crate) fn revalidate<P, S, E>(&self, endpoint: &Endpoint<P, S, E>, params: &P)
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Readable,
    {
        let Ok(key) = self.key(endpoint, params) else {
            return;
        };
        let named = || endpoint.named_pks(params);
        let read = self.read_key(endpoint, params, &key, &named);
        let refetch = match read.status {
            ExpiryStatus::Stale => true,
            // Invalid: no data on show, and no error that stands.
            ExpiryStatus::Invalid if !read.fetching => {
                // Data it held (an absent read has no expiry), gone at its
                // expiry.
                let expired = endpoint.options().invalid_if_stale
                    && read.expires_at != Timestamp::default()
                    && read.expires_at < self.now();
                // An error that expired: the view shows it still.
                let state = self.inner.state.borrow();
                expired
                    || state
                        .keys
                        .get(&key)
                        .is_some_and(|kept| kept.error.is_some())
            }
            _ => false,
        };
        if refetch {
            drop(self.fetch_in_background(endpoint, params, &key));
        }
    }

    /// Whether the controller is at rest: no read, mutation or next page
    /// on its way, no background fetch waiting to start.
    pub fn is_idle(&self) -> bool {
        let running = self.inner.background.borrow();
        running.values().all(|(_, fetch)| fetch.upgrade().is_none())
            && self.inner.mutating.get() == 0
            && (self.inner.state.borrow().keys)
                .having(|kept| kept.requests().next().is_some() || kept.next_page.is_some())
                .next()
                .is_none()
    }
}
