//! Calling an endpoint through a client: its request made, its response
//! decoded into its schema. Nothing is cached: the controller does that.

use serde::Serialize;

use crate::cache::schema::Decoded;
use crate::controller::Recorded;
use crate::http::{Attempt, Body, Client, Error, ErrorKind, Request, Response};
use crate::rest::{Effect, Endpoint};

impl Client {
    /// Makes `endpoint`'s request for `params` (and `body`) and decodes
    /// the response into its schema, within the endpoint's time limit
    /// (else the client's). An empty body decodes as JSON `null`, so an
    /// endpoint whose schema allows nothing (a delete, an RPC that answers
    /// 204) accepts it and one that needs a record says so.
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
    /// let client = Client::new(api.url());
    /// let todo = client.call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None).await?;
    /// assert_eq!(todo.id, 1);
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn call<P: Serialize, S, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        body: Option<Body>,
    ) -> Result<S, Error> {
        let request = endpoint
            .request(self.base_url(), params, body)
            .map_err(|e| endpoint.attempt_without_url().failed(ErrorKind::Url(e)))?;
        self.call_with(endpoint, params, request)
            .await
            .map(Decoded::into_value)
    }

    /// [`call`](Self::call) for a caller that already made the request,
    /// handing on what the decoding read of the response beside its
    /// value. A fetch or decode function that panics fails this request
    /// only.
    pub(crate) async fn call_with<P, S, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        request: Request,
    ) -> Result<Decoded<S>, Error> {
        self.call_keeping(endpoint, params, request, &|_| None)
            .await
            .map(|(value, _)| value)
    }

    /// [`call_with`](Self::call_with), keeping the response as a page may
    /// carry it when `keep` says so once it arrives (for a server's cache
    /// handoff, or for other tabs).
    pub(crate) async fn call_keeping<P, S, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        request: Request,
        keep: &dyn Fn(&Response) -> Option<Recorded>,
    ) -> Result<(Decoded<S>, Option<Recorded>), Error> {
        let method = request.method;
        let url = request.url.clone();
        let limit = endpoint.options().timeout.unwrap_or(self.timeout());
        let exchange = guarded(self.exchange(endpoint, params, request, keep), method, &url);
        crate::http::within(limit, method, self.base_url(), &url, exchange).await
    }

    /// The request made and its body decoded. An error about the body
    /// names the request as it was sent, and masks what was sent with it.
    async fn exchange<P, S, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        request: Request,
        keep: &dyn Fn(&Response) -> Option<Recorded>,
    ) -> Result<(Decoded<S>, Option<Recorded>), Error> {
        let (method, url) = (request.method, request.url.clone());
        let mut response = endpoint.send(self, params, request).await?;
        let resolved;
        let attempt = match &response.sent {
            Some(sent) => Attempt::sent(sent),
            None => {
                resolved = crate::http::resolve(self.base_url(), &url);
                Attempt::new(method, &resolved)
            }
        };
        // A GraphQL answer: its `data` is the result, its `errors` fail it.
        match endpoint.graphql_data(&response.body) {
            Some(Ok(data)) => response.body = data,
            Some(Err(errors)) => {
                return Err(attempt.answered(response.status, "", ErrorKind::GraphQl(errors)));
            }
            None => {}
        }
        let decoded = endpoint.decode(&response, params);
        // A PUT replaces the record on the server whole: its answer does
        // too (a field it left out is gone there). The method is the one
        // sent (a fetch function of its own may pick another).
        let sent = response.sent.as_ref().map_or(method, |sent| sent.method);
        let decoded = match sent {
            crate::http::Method::Put => decoded.map(Decoded::replacing_whole),
            _ => decoded,
        };
        // Bytes stay out of a server render's handoff (text only).
        let kept = match response.bytes {
            None => keep(&response),
            Some(_) => None,
        };
        decoded
            .map(|value| (value, kept))
            .map_err(|e| attempt.answered(response.status, &response.body, ErrorKind::Decode(e)))
    }
}

/// `exchange`, with a panic inside it (a custom fetch or decode function's)
/// turned into its request's error.
#[cfg(not(target_arch = "wasm32"))]
async fn guarded<T>(
    exchange: impl Future<Output = Result<T, Error>>,
    method: crate::http::Method,
    url: &str,
) -> Result<T, Error> {
    use futures_util::FutureExt;
    match std::panic::AssertUnwindSafe(exchange).catch_unwind().await {
        Ok(outcome) => outcome,
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            Err(Attempt::new(method, url).failed(ErrorKind::Panicked(what.to_owned())))
        }
    }
}

/// In a browser a panic aborts the program: nothing to catch.
#[cfg(target_arch = "wasm32")]
async fn guarded<T>(
    exchange: impl Future<Output = Result<T, Error>>,
    method: crate::http::Method,
    url: &str,
) -> Result<T, Error> {
    let _ = (method, url);
    exchange.await
}
