//! The public fetches: [`Controller::fetch`] makes an endpoint's request
//! and stores what it answers, [`Controller::fetch_optimistic`] shows a
//! mutation's expected result while it is on its way, and
//! [`Controller::ensure`] fetches only what the cache has no fresh copy of.

use std::future::Future;
use std::rc::Rc;

use futures_util::FutureExt;
use futures_util::future::LocalBoxFuture;
use serde::Serialize;

use super::{Controller, ExpiryStatus, request};
use crate::cache::schema::Schema;
use crate::http::{Body, Error};
use crate::rest::effect::Action;
use crate::rest::{Effect, Endpoint, Readable};

impl Controller {
    /// Makes `endpoint`'s request for `params` (and `body`) and stores the
    /// response; resolves to the result as the cache now shows it.
    ///
    /// - A read ([`Read`](crate::rest::Read)) is stored under its key (with
    ///   `body`, a key of that body's, unless the endpoint has a key
    ///   function of its own: a `POST` search sent with another query is
    ///   another read). While one is on its
    ///   way, every other read of the same key waits for it instead of
    ///   making its own request. A failure is kept beside the cached data
    ///   for the error expiry; the data stays.
    /// - A mutation is never shared. Its response's records are merged into
    ///   the store (every result that holds them shows the change); a
    ///   create's record joins the cached `GET` lists of the same URL whose
    ///   query params its fields match (one it cannot judge goes stale); a
    ///   delete's record becomes Invalid and leaves every list.
    /// - A response to a request that started before a [`reset`](Self::reset)
    ///   is handed back but not stored.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(async {
    /// let ctrl = Controller::new(Client::new(api.url()));
    /// let list = ctrl.fetch(&TodoResource::get_list(), &(), None).await?;
    ///
    /// let body = Body::json(&serde_json::json!({"title": "renamed"})).unwrap();
    /// let todo = ctrl.fetch(&TodoResource::partial_update(), &TodoResourceParams { id: 1 }, Some(body)).await?;
    /// assert_eq!(todo.title, "renamed");
    /// // The cached list shows the change, with no refetch.
    /// let cached = ctrl.read(&TodoResource::get_list(), &());
    /// assert_eq!(cached.data.unwrap()[0].title, "renamed");
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn fetch<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        body: Option<Body>,
    ) -> Result<S::Handle, Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Effect,
    {
        let (key, url) = self.locate(endpoint, params)?;
        // Each kind's request is boxed apart, so a read's code carries no
        // mutation's future (nor a mutation's a read's): with both in one
        // state machine, every read linked the mutation path's drop glue.
        let fetched: LocalBoxFuture<'_, Result<Rc<S>, Error>> = match E::ACTION {
            Action::Read => {
                // A body is part of what is asked (a search's query): two
                // bodies, two reads; an endpoint's own key function
                // names its reads as it says.
                let key = match &body {
                    Some(body) if !endpoint.has_own_key() => request::key_with_body(key, body),
                    _ => key,
                };
                self.fetch_read(endpoint, params, body, (key, url), false)
                    .boxed_local()
            }
            Action::Mutate | Action::Create | Action::Delete => {
                let started = self.start_mutation(endpoint, params, &key, &url, None)?;
                self.finish_mutation(endpoint, params, body, key, url, started, None)
                    .boxed_local()
            }
        };
        fetched.await.map(S::into_handle)
    }

    /// A mutation whose expected result `optimistic` is applied at once,
    /// when this is called (every view of its records shows it), then
    /// replaced by the real response when the returned future is awaited,
    /// or taken back if the request fails.
    ///
    /// The optimistic value is a layer over the confirmed data: responses
    /// that land while it shows update the data beneath it, later
    /// optimistic writes go on top of it, and when its request ends the
    /// layer goes and what lies beneath shows (an earlier write still
    /// under way, or the newest confirmed copy). A failed write never
    /// brings back a copy older than one the server has sent since.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// #[serde(rename_all = "camelCase")]
    /// struct Todo { id: u64, user_id: u64, title: String, completed: bool }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(async {
    /// let ctrl = Controller::new(Client::new(api.url()));
    /// let params = TodoResourceParams { id: 1 };
    /// let todo = ctrl.fetch(&TodoResource::get(), &params, None).await?;
    ///
    /// let done = Todo { completed: true, ..(*todo).clone() };
    /// let body = Body::json(&done).unwrap();
    /// let update = TodoResource::update();
    /// let request = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(done));
    /// // Shown at once, before the server answers.
    /// assert!(ctrl.read(&TodoResource::get(), &params).data.unwrap().completed);
    /// request.await?;
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fetch_optimistic<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        body: Option<Body>,
        optimistic: S,
    ) -> impl Future<Output = Result<S::Handle, Error>>
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Effect,
    {
        let started = self.locate(endpoint, params).and_then(|(key, url)| {
            let started = self.start_mutation(endpoint, params, &key, &url, Some(optimistic))?;
            Ok((key, url, started))
        });
        async move {
            let (key, url, started) = started?;
            self.finish_mutation(endpoint, params, body, key, url, started, None)
                .await
                .map(S::into_handle)
        }
    }

    /// The read's data, fetched only when the cache has no fresh copy:
    /// the cached data when it is Valid; otherwise (Invalid, Stale) a
    /// [`fetch`](Self::fetch). A read whose last request failed, while the
    /// error has not expired, gives the error unless it is soft and data
    /// is cached.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let params = TodoResourceParams { id: 1 };
    /// ctrl.set_response(&TodoResource::get(), &params, Rc::new(Todo { id: 1, title: "a".into() }))?;
    /// # answered_at_once(async {
    /// let todo = ctrl.ensure(&TodoResource::get(), &params).await?; // fresh: no request
    /// assert_eq!(todo.title, "a");
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # fn answered_at_once<F: std::future::Future>(f: F) -> F::Output {
    /// #     futures_util::FutureExt::now_or_never(f).expect("answered from the cache")
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn ensure<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
    ) -> Result<S::Handle, Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Readable,
    {
        let cached = self.read(endpoint, params);
        if cached.status == ExpiryStatus::Valid
            && let Some(settled) = cached.settled()
        {
            return settled;
        }
        self.fetch(endpoint, params, None).await
    }
}
