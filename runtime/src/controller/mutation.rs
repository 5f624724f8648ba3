//! Mutations: started (an optimistic value on show at once), queued while
//! offline, sent, and their answers stored; a mutation called again from
//! a saved cache after a reload.

use std::any::Any;
use std::rc::{Rc, Weak};

use serde::Serialize;

use super::events::Event;
use super::kept_errors::stored_failed;
use super::lists::lists_under;
use super::offline::{QueuedMutation, Turn};
use super::request::Delivery;
use super::{Controller, Inner, State};
use crate::cache::schema::{Decoded, Schema};
use crate::cache::store::Layer;
use crate::http::{Attempt, Body, Error, ErrorKind, Request};
use crate::meta::Timestamp;
use crate::rest::effect::Action;
use crate::rest::{Effect, Endpoint};

impl Controller {
    /// Starts a mutation: notes when it starts and, with an `optimistic`
    /// value, stores it at once (every view of its records shows it) so
    /// that [`finish_mutation`](Self::finish_mutation) can take it back.
    pub(super) fn start_mutation<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        key: &str,
        url: &str,
        optimistic: Option<S>,
    ) -> Result<Started, Error>
    where
        P: Serialize,
        S: Schema,
        E: Effect,
    {
        self.inner.mutating.set(self.inner.mutating.get() + 1);
        let mut started = Started {
            at: self.start_now(),
            generation: self.inner.state.borrow().generation,
            key: key.to_owned(),
            layer: None,
            optimistic: None,
            abandoned: None,
            inner: Rc::downgrade(&self.inner),
        };
        if let Some(value) = optimistic {
            let mut state = self.state_mut();
            let expected = Delivery::at(key, url, started.at);
            let value = Decoded::from(value);
            let (shown, layer) = self
                .store_success(&mut state, endpoint, params, value, expected, true)
                .map_err(|e| {
                    Attempt::new(endpoint.method(), url).failed(ErrorKind::Optimistic(e))
                })?;
            let id = layer.as_ref().map(Layer::id);
            started.layer = layer;
            started.optimistic = Some(shown as Rc<dyn Any>);
            drop(state);
            if let Some(layer) = id {
                self.emit(|| Event::OptimisticShown {
                    key: key.to_owned(),
                    layer,
                });
            }
            self.notify();
        }
        Ok(started)
    }

    /// Makes a started mutation's request and stores its response (an
    /// optimistic value it stored is taken back first). `turn`: its place
    /// in the queue, when it took one already.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn finish_mutation<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        body: Option<Body>,
        key: String,
        url: String,
        mut started: Started,
        turn: Option<Turn>,
    ) -> Result<Rc<S>, Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Effect,
    {
        // A queued mutation ends, unsent, at a reset (a log-out).
        let unless_reset = |turn: &Turn| {
            if turn.reset_since() {
                Err(ended_by_reset(endpoint.method(), &url))
            } else {
                Ok(())
            }
        };
        // Made before a reset (a log-out), first awaited after it: not
        // sent in the next session's name.
        if self.inner.state.borrow().generation != started.generation {
            return Err(ended_by_reset(endpoint.method(), &url));
        }
        // Offline (or behind mutations that are): wait for the network,
        // and for the ones before it, which the queue keeps in order.
        let turn = turn.or_else(|| {
            self.queue_mutation(&key, false, || called(endpoint, params, &body, &started))
        });
        if let Some(turn) = &turn {
            self.emit(|| Event::MutationQueued { key: key.clone() });
            turn.wait().await;
            // A reset (a log-out) meanwhile: what the last session queued
            // is not sent in the next one's name.
            unless_reset(turn)?;
        }
        // Its answer is as new as its sending, not its making (a read
        // answered between the two knew nothing of it).
        started.at = self.start_now();
        let request = Request::new(endpoint.method(), url.clone()).with_body(body);
        started.abandoned = Some(abandoned(endpoint, params, &key, &url));
        let send = || {
            self.emit(|| Event::RequestStarted {
                key: key.clone(),
                method: endpoint.method(),
                url: url.clone(),
            });
            self.inner
                .client
                .call_with(endpoint, params, request.clone())
        };
        let mut response = send().await;
        if let Some(turn) = &turn {
            // A queued mutation keeps its place while the server cannot be
            // reached: its caller waits for the network already.
            let mut unsent = 0;
            while let Err(error) = &response
                && found_no_server(error)
            {
                unsent += 1;
                self.emit(|| Event::MutationUnsent {
                    key: key.clone(),
                    error: error.clone(),
                });
                // Nothing reached the server: given up while it waits, it
                // leaves what it would change as it was.
                started.abandoned = None;
                turn.wait_to_send_again(unsent).await;
                // A reset meanwhile ends it, unsent.
                unless_reset(turn)?;
                started.at = self.start_now();
                started.abandoned = Some(abandoned(endpoint, params, &key, &url));
                response = send().await;
            }
            turn.answered();
        }
        started.abandoned = None;
        let arrived = self.now();
        let mut ended = None;
        let outcome = {
            let mut state = self.state_mut();
            let layer = started.layer.take();
            if state.generation != started.generation {
                response.map(|value| Rc::new(value.into_value()))
            } else {
                if let Some(layer) = layer {
                    ended = Some(layer.id());
                    state.store.remove_layer(layer);
                }
                let delivery = Delivery {
                    key: &key,
                    url: &url,
                    started: started.at,
                    arrived,
                };
                let stored = response.and_then(|value| {
                    self.store_success(&mut state, endpoint, params, value, delivery, false)
                        .map(|(value, _)| value)
                        .map_err(|e| stored_failed(endpoint, &url, e))
                });
                if let Err(error) = &stored {
                    if may_have_applied(error) {
                        forget_targets(self, &mut state, endpoint, params, delivery);
                    }
                    self.emit(|| Event::RequestFailed {
                        key: key.clone(),
                        error: error.clone(),
                    });
                }
                stored
            }
        };
        // After the answer's own events: what shows now is the answer.
        if let Some(layer) = ended {
            self.emit(|| Event::OptimisticEnded {
                key: key.clone(),
                layer,
            });
        }
        self.notify();
        // The next queued mutation goes once this one is answered.
        drop(turn);
        outcome
    }

    /// A mutation called again from a saved cache, after a reload: its
    /// optimistic value shows at once, and it is sent in its turn after
    /// every mutation queued before it.
    #[cfg(feature = "persist")]
    pub(crate) fn replay_mutation<P, S, E>(
        &self,
        endpoint: Endpoint<P, S, E>,
        params: P,
        body: Option<Body>,
        optimistic: Option<S>,
    ) -> Result<futures_util::future::LocalBoxFuture<'static, Result<Rc<S>, Error>>, Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Effect,
    {
        let (key, url) = self.locate(&endpoint, &params)?;
        let started = self.start_mutation(&endpoint, &params, &key, &url, optimistic)?;
        let turn = self.queue_mutation(&key, true, || called(&endpoint, &params, &body, &started));
        let ctrl = self.clone();
        Ok(Box::pin(async move {
            ctrl.finish_mutation(&endpoint, &params, body, key, url, started, turn)
                .await
        }))
    }
}

/// Whether a mutation that failed this way may have changed the server's
/// data all the same: it answered but the answer cannot be read, or it
/// did not answer in time.
fn may_have_applied(error: &Error) -> bool {
    match error.kind() {
        ErrorKind::Decode(_) | ErrorKind::TooLarge { .. } | ErrorKind::Timeout(_) => true,
        // The answer broke off after its status: the server had it.
        ErrorKind::Network(_) => error.status().is_some(),
        _ => false,
    }
}

/// The error of a queued mutation that a reset (a log-out) ended unsent.
fn ended_by_reset(method: crate::http::Method, url: &str) -> Error {
    Attempt::new(method, url).failed(ErrorKind::Reset)
}

/// Whether a mutation that failed this way found no server: no answer at
/// all (an answer that broke off after its status did reach it). In a
/// browser a request that failed this way was, short of a connection
/// dropped just after it went out, never received: sending it again is
/// what keeps the change.
fn found_no_server(error: &Error) -> bool {
    matches!(error.kind(), ErrorKind::Network(_)) && error.status().is_none()
}

/// After a mutation the server may have applied but whose answer the cache
/// could not store: the record it names is invalidated (its reads refetch
/// before showing it again) and every result holding it expires; after a
/// create, the list it would have joined is invalidated.
fn forget_targets<P: Serialize, S, E: Effect>(
    ctrl: &Controller,
    state: &mut State,
    endpoint: &Endpoint<P, S, E>,
    params: &P,
    delivery: Delivery<'_>,
) {
    if let Some(target) = endpoint.target()
        && let Some(pk) = (target.pk)(params)
    {
        let holding = state.store.expire_holding_keys(target.entity, pk.clone());
        ctrl.detach_requests(state, holding.iter().map(String::as_str));
        state
            .store
            .invalidate_entity_key(target.entity, pk, delivery.started);
    }
    if E::ACTION == Action::Create {
        let lists = lists_under(&state.store, &state.keys, endpoint, params, delivery.url);
        for list in &lists {
            state.store.invalidate_result(&list.key, delivery.started);
        }
        ctrl.detach_requests(state, lists.iter().map(|list| list.key.as_str()));
    }
}

/// What a queued mutation was called with.
fn called<P: Clone + 'static, S, E: Effect>(
    endpoint: &Endpoint<P, S, E>,
    params: &P,
    body: &Option<Body>,
    started: &Started,
) -> QueuedMutation {
    QueuedMutation {
        endpoint: endpoint.replay_name(),
        params: Rc::new(params.clone()),
        body: body.clone(),
        optimistic: started.optimistic.clone(),
    }
}

/// What a mutation whose request went out leaves to do when it is given
/// up before its answer (the state, and when the request started).
type Abandoned = Box<dyn FnOnce(&Controller, &mut State, Timestamp)>;

/// When a mutation started, and the layer of its optimistic value. A
/// mutation dropped before its request ended (its future never awaited to
/// the end) removes its layer: no optimistic value outlives its request.
/// Dropped after its request went out, it may have changed the server's
/// data all the same: the record it names is fetched again before it
/// shows, and its request ends with [`Event::RequestCancelled`].
pub(super) struct Started {
    at: Timestamp,
    generation: u64,
    /// The cache key the mutation answers.
    key: String,
    layer: Option<Layer>,
    /// The optimistic value as stored.
    optimistic: Option<Rc<dyn Any>>,
    /// Set while its request is out.
    abandoned: Option<Abandoned>,
    inner: Weak<Inner>,
}

/// What a mutation of `endpoint` with `params`, given up while its
/// request was out, leaves to do: as after an answer that could not be
/// read, its record is invalidated and the lists holding it (or, after a
/// create, the lists it would join) fetch again.
fn abandoned<P, S, E>(endpoint: &Endpoint<P, S, E>, params: &P, key: &str, url: &str) -> Abandoned
where
    P: Serialize + Clone + 'static,
    S: Schema,
    E: Effect,
{
    let (endpoint, params) = (endpoint.clone(), params.clone());
    let (key, url) = (key.to_owned(), url.to_owned());
    Box::new(
        move |ctrl: &Controller, state: &mut State, started: Timestamp| {
            let delivery = Delivery::at(&key, &url, started);
            forget_targets(ctrl, state, &endpoint, &params, delivery);
        },
    )
}

impl Drop for Started {
    fn drop(&mut self) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        inner.mutating.set(inner.mutating.get() - 1);
        let (layer, abandoned) = (self.layer.take(), self.abandoned.take());
        if layer.is_none() && abandoned.is_none() {
            return;
        }
        let ctrl = Controller { inner };
        let (generation, at, key) = (self.generation, self.at, std::mem::take(&mut self.key));
        let end = move |ctrl: &Controller, state: &mut State| {
            if state.generation != generation {
                return;
            }
            if let Some(layer) = layer {
                let id = layer.id();
                state.store.remove_layer(layer);
                ctrl.emit(|| Event::OptimisticEnded {
                    key: key.clone(),
                    layer: id,
                });
            }
            if let Some(abandoned) = abandoned {
                abandoned(ctrl, state, at);
                ctrl.emit(|| Event::RequestCancelled { key });
            }
        };
        match ctrl.inner.state.try_borrow_mut() {
            Ok(mut state) => {
                end(&ctrl, &mut state);
                drop(state);
                ctrl.notify();
            }
            // Dropped while the cache is in use (by a callback it runs):
            // done at its next use.
            Err(_) => ctrl.inner.dropped_layers.borrow_mut().push(Box::new(end)),
        }
    }
}
