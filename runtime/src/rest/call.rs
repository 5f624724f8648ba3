//! Calling an endpoint through a client: its request made, its response
//! decoded into its schema.

use futures_timer::Delay;
use futures_util::future::{Either, select};
use serde::Serialize;

use crate::http::{Attempt, Body, Client, Error, ErrorKind, Request};
use crate::rest::Endpoint;

impl Client {
    /// Makes `endpoint`'s request for `params` (and `body`) and decodes
    /// the response into its schema. An empty body decodes as JSON `null`,
    /// so an endpoint whose schema allows nothing (a delete, an RPC that
    /// answers 204) accepts it and one that needs a record says so.
    pub async fn call<P: Serialize, S>(
        &self,
        endpoint: &Endpoint<P, S>,
        params: &P,
        body: Option<Body>,
    ) -> Result<S, Error> {
        let request = endpoint
            .request(self.base_url(), params, body)
            .map_err(|e| endpoint.attempt_without_url().failed(ErrorKind::Url(e)))?;
        self.send(endpoint, params, request).await
    }

    /// [`call`](Self::call) for a caller that already made the request,
    /// within the endpoint's time limit (else the client's). A fetch or
    /// decode function that panics fails this request only.
    pub(crate) async fn send<P: Serialize, S>(
        &self,
        endpoint: &Endpoint<P, S>,
        params: &P,
        request: Request,
    ) -> Result<S, Error> {
        let method = endpoint.method().as_str();
        let url = request.url.clone();
        let limit = endpoint.options().timeout.unwrap_or(self.timeout());
        let exchange = guarded(self.exchange(endpoint, params, request), method, &url);
        match select(Box::pin(exchange), Delay::new(limit)).await {
            Either::Left((outcome, _)) => outcome,
            Either::Right(((), _)) => {
                Err(Attempt::new(method, &url).failed(ErrorKind::Timeout(limit)))
            }
        }
    }

    /// The request made and its body decoded.
    async fn exchange<P: Serialize, S>(
        &self,
        endpoint: &Endpoint<P, S>,
        params: &P,
        request: Request,
    ) -> Result<S, Error> {
        let url = request.url.clone();
        let response = endpoint.fetch_for(self, params, request).await?;
        endpoint.decode(&response, params).map_err(|e| {
            let secrets = self.secrets();
            let attempt = Attempt {
                method: endpoint.method().as_str(),
                url: &url,
                secrets: &secrets,
            };
            attempt.answered(response.status, &response.body, ErrorKind::Decode(e))
        })
    }
}

/// `exchange`, with a panic inside it (a custom fetch or decode function's)
/// turned into its request's error.
#[cfg(not(target_arch = "wasm32"))]
async fn guarded<T>(
    exchange: impl Future<Output = Result<T, Error>>,
    method: &str,
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
            let message = format!("the request panicked: {what}");
            Err(Attempt::new(method, url).failed(ErrorKind::Request(message)))
        }
    }
}

/// In a browser a panic aborts the program: nothing to catch.
#[cfg(target_arch = "wasm32")]
async fn guarded<T>(
    exchange: impl Future<Output = Result<T, Error>>,
    method: &str,
    url: &str,
) -> Result<T, Error> {
    let _ = (method, url);
    exchange.await
}
