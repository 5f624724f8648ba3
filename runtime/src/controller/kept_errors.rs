//! Keeping a request's error beside the data: soft or hard by the
//! endpoint's policy, for its error expiry, unless an answer to a later
//! request is stored already.

use std::time::Duration;

use super::request::{Delivery, newer_stored};
use super::{Controller, State, StoredError};
use crate::error::SchemaError;
use crate::http::{Attempt, Error, ErrorKind};
use crate::meta::Meta;
use crate::rest::{Effect, Endpoint, ErrorPolicy};

impl Controller {
    /// Keeps `error` as the outcome of the read `delivery.key`, unless a
    /// response that started later is stored.
    pub(super) fn store_error<P, S, E: Effect>(
        &self,
        state: &mut State,
        endpoint: &Endpoint<P, S, E>,
        error: Error,
        delivery: Delivery<'_>,
    ) {
        let kept = self.kept_error(endpoint, &error);
        keep_error(state, error, delivery, kept);
    }

    /// How `error`, an outcome of `endpoint`, is kept.
    pub(super) fn kept_error<P, S, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        error: &Error,
    ) -> KeptError {
        KeptError {
            soft: endpoint.error_policy(error) == ErrorPolicy::Soft,
            expiry: endpoint
                .options()
                .error_expiry
                .unwrap_or(self.inner.error_expiry),
            data_expiry: self.data_expiry(endpoint),
        }
    }
}

/// How an endpoint keeps its errors: what [`keep_error`] needs of it, so
/// that one copy of that serves every endpoint of an app.
#[derive(Clone, Copy)]
pub(super) struct KeptError {
    /// Whether the error is soft: the data stays on show.
    soft: bool,
    /// How long the error stays.
    expiry: Duration,
    /// How long the endpoint's data stays (the key's use lasts as long).
    data_expiry: Duration,
}

/// Keeps `error` as the outcome of the read `delivery.key`, as `kept`
/// says, unless a response that started later is stored.
pub(super) fn keep_error(state: &mut State, error: Error, delivery: Delivery<'_>, kept: KeptError) {
    let Delivery {
        key,
        started,
        arrived,
        ..
    } = delivery;
    if newer_stored(state, key, started) {
        return;
    }
    let serial = state.next_serial();
    let stored = StoredError {
        soft: kept.soft,
        error,
        meta: Meta::fetched(started, arrived, kept.expiry),
        serial,
        polled: false,
    };
    state.note_use(key, arrived, kept.data_expiry).error = Some(stored);
    state.touch(key);
}

/// The error of a response the store refused (a record without its pk):
/// the request happened, and its answer could not be stored.
pub(super) fn stored_failed<P, S, E: Effect>(
    endpoint: &Endpoint<P, S, E>,
    url: &str,
    error: SchemaError,
) -> Error {
    Attempt::new(endpoint.method(), url).failed(ErrorKind::Decode(error))
}
