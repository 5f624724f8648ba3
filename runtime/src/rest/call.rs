//! Calling an endpoint through a client: its request made, its response
//! decoded into its schema.

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

    /// [`call`](Self::call) for a caller that already made the request.
    pub(crate) async fn send<P: Serialize, S>(
        &self,
        endpoint: &Endpoint<P, S>,
        params: &P,
        request: Request,
    ) -> Result<S, Error> {
        let url = request.url.clone();
        let response = endpoint.fetch_for(self, params, request).await?;
        let text = response.body.as_str();
        let json = if text.trim().is_empty() { "null" } else { text };
        endpoint.decode(json, params).map_err(|e| {
            let attempt = Attempt {
                method: endpoint.method().as_str(),
                url: &url,
            };
            attempt.answered(response.status, text, ErrorKind::Decode(e))
        })
    }
}
