//! Mutations made offline, kept in a saved cache: the endpoints an app
//! names ([`Persist::mutation`]) save each queued call (params, body,
//! optimistic value) as JSON, and the next load calls them again, in
//! their order, their optimistic values on show at once.

use std::any::TypeId;
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::Persist;
use crate::cache::schema::Schema;
use crate::controller::{Controller, QueuedMutation};
use crate::http::{Body, Error};
use crate::rest::{Effect, Endpoint};

/// One queued mutation, as a saved cache keeps it.
#[derive(Serialize, Deserialize)]
pub(super) struct SavedMutation {
    /// The mark of the cache (the tab) whose queue holds it: 0 in a save
    /// from before marks.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub owner: u64,
    endpoint: String,
    params: Box<RawValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<SavedBody>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    optimistic: Option<Box<RawValue>>,
}

/// A request body, as a saved cache keeps it.
#[derive(Serialize, Deserialize)]
enum SavedBody {
    Json(String),
    Text(String),
    Bytes {
        content_type: String,
        bytes: Vec<u8>,
    },
}

impl From<&Body> for SavedBody {
    fn from(body: &Body) -> Self {
        match body {
            Body::Json(text) => SavedBody::Json(text.clone()),
            Body::Text(text) => SavedBody::Text(text.clone()),
            Body::Bytes {
                content_type,
                bytes,
            } => SavedBody::Bytes {
                content_type: content_type.clone(),
                bytes: bytes.clone(),
            },
        }
    }
}

impl From<SavedBody> for Body {
    fn from(body: SavedBody) -> Self {
        match body {
            SavedBody::Json(text) => Body::Json(text),
            SavedBody::Text(text) => Body::Text(text),
            SavedBody::Bytes {
                content_type,
                bytes,
            } => Body::Bytes {
                content_type,
                bytes,
            },
        }
    }
}

/// How the queued calls of one endpoint are saved and called again.
pub(super) struct MutationCodec {
    name: String,
    /// The endpoint's params and schema types.
    types: TypeId,
    save: Box<SaveFn>,
    /// Calls a saved mutation again: its optimistic value shows at once,
    /// and the returned future sends it in its turn.
    replay: Box<ReplayFn>,
}

type SaveFn = dyn Fn(&QueuedMutation) -> Option<SavedMutation>;
type ReplayFn = dyn Fn(&Controller, SavedMutation) -> Option<ReplayFuture>;
type ReplayFuture = std::pin::Pin<Box<dyn Future<Output = Result<(), Error>>>>;

/// What an app is told of a saved mutation that failed when a later load
/// sent it.
pub(super) type ReplayFailed = Rc<dyn Fn(&Error)>;

impl Persist {
    /// Mutations of `endpoint` made while offline are saved too, and a
    /// reload before the network came back loses none: the next load
    /// shows their optimistic values at once and sends them, in the order
    /// they were made, once the network is back. Their params and
    /// optimistic value are saved as JSON, their body as it is.
    ///
    /// A mutation stays saved until its answer comes: one whose page
    /// went while its request was on its way is sent again by the next
    /// load, so give a create an id of the client's making if the server
    /// would make two. With several tabs open, each sends its own queue
    /// (see the [module](super) docs); the queue of a page that crashed
    /// is sent by a load made once its lease has run out, five minutes on. An endpoint is known across loads by its method,
    /// URL prefix and path (not one made with
    /// [`Endpoint::by_url`], which is never saved). A
    /// [private](Endpoint::private) endpoint's mutations are never saved.
    /// Natively, the mutations a restore sends again run on the
    /// controller's spawner (tokio's `spawn_local`: restore within a
    /// `LocalSet`).
    ///
    /// # Panics
    ///
    /// When another endpoint of the same method and path, with other
    /// params or schema types, was named already: the two could not be
    /// told apart after a reload.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::persist::Persist;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let persist = Persist::new("todo-app")
    ///     .entity::<Todo>()
    ///     .mutation(&TodoResource::partial_update())
    ///     .mutation(&TodoResource::create());
    /// # let _ = persist;
    /// ```
    pub fn mutation<P, S, E>(mut self, endpoint: &Endpoint<P, S, E>) -> Self
    where
        P: Serialize + DeserializeOwned + Clone + 'static,
        S: Schema + Serialize + DeserializeOwned,
        E: Effect + 'static,
    {
        let Some(name) = endpoint.replay_name().filter(|_| !endpoint.is_private()) else {
            return self;
        };
        let types = TypeId::of::<(P, S)>();
        if let Some(named) = self.mutations.iter().find(|codec| codec.name == name) {
            assert!(
                named.types == types,
                "Persist::mutation: two endpoints are named `{name}` with other params or schema \
                 types; give one a URL prefix or path of its own"
            );
            return self;
        }
        let saved_name = name.clone();
        let save = move |call: &QueuedMutation| {
            let params = call.params.downcast_ref::<P>()?;
            let optimistic = match &call.optimistic {
                Some(value) => Some(raw(value.downcast_ref::<S>()?)?),
                None => None,
            };
            Some(SavedMutation {
                owner: 0,
                endpoint: saved_name.clone(),
                params: raw(params)?,
                body: call.body.as_ref().map(SavedBody::from),
                optimistic,
            })
        };
        let endpoint = endpoint.clone();
        let replay = move |ctrl: &Controller, saved: SavedMutation| {
            let params: P = serde_json::from_str(saved.params.get()).ok()?;
            // An optimistic value the app's types no longer read (saved
            // by an older version) is left out: the change is still sent,
            // and shows once answered.
            let optimistic = saved
                .optimistic
                .and_then(|value| serde_json::from_str::<S>(value.get()).ok());
            let body = saved.body.map(Body::from);
            let sending = ctrl
                .replay_mutation(endpoint.clone(), params, body, optimistic)
                .ok()?;
            Some(Box::pin(async move { sending.await.map(drop) }) as ReplayFuture)
        };
        self.mutations.push(Rc::new(MutationCodec {
            name,
            types,
            save: Box::new(save),
            replay: Box::new(replay),
        }));
        self
    }

    /// The queued mutations of `ctrl` whose endpoints are named, saved
    /// with the mark `owner`.
    pub(super) fn saved_mutations(&self, ctrl: &Controller, owner: u64) -> Vec<SavedMutation> {
        ctrl.queued_calls()
            .iter()
            .filter_map(|call| {
                let name = call.endpoint.as_deref()?;
                let codec = self.mutations.iter().find(|codec| codec.name == name)?;
                let saved = (codec.save)(call)?;
                Some(SavedMutation { owner, ..saved })
            })
            .collect()
    }

    /// Tells `failed` of each saved mutation that fails when a later load
    /// sends it (the server refuses it: a conflict, a 404, a 503): its
    /// optimistic value is taken back, and no caller of the load that made
    /// it is there to show why. Its error names the method and URL.
    ///
    /// ```
    /// use restcache::persist::Persist;
    ///
    /// let persist = Persist::new("todo-app").on_replay_failure(|error| {
    ///     eprintln!("a change made before the reload was refused: {error}");
    /// });
    /// # let _ = persist;
    /// ```
    pub fn on_replay_failure(mut self, failed: impl Fn(&Error) + 'static) -> Self {
        self.replay_failed = Some(Rc::new(failed));
        self
    }

    /// Calls the saved mutations again on `ctrl`, in their order; returns
    /// how many, and how many were dropped (of an endpoint no longer
    /// named, or no longer fitting its types).
    pub(super) fn replay(&self, ctrl: &Controller, saved: Vec<SavedMutation>) -> (usize, usize) {
        let (mut replayed, mut dropped) = (0, 0);
        for mutation in saved {
            let codec = self
                .mutations
                .iter()
                .find(|codec| codec.name == mutation.endpoint);
            match codec.and_then(|codec| (codec.replay)(ctrl, mutation)) {
                Some(sending) => {
                    // A failure takes its value back and is told to the
                    // controller's listeners (`Event::RequestFailed`), and
                    // to the app's `on_replay_failure`.
                    let failed = self.replay_failed.clone();
                    ctrl.spawn(Box::pin(async move {
                        if let (Err(error), Some(failed)) = (sending.await, failed) {
                            failed(&error);
                        }
                    }));
                    replayed += 1;
                }
                None => dropped += 1,
            }
        }
        (replayed, dropped)
    }
}

fn raw<T: Serialize + ?Sized>(value: &T) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(value).ok()
}

fn is_zero(owner: &u64) -> bool {
    *owner == 0
}
