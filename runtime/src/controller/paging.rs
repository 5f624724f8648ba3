//! Fetching the next page of a paginated list and appending it to the
//! cached list: one list, grown page by page, whose records are stored
//! once like any others.

use std::rc::{Rc, Weak};

use serde::Serialize;

use super::{Controller, Inner};
use crate::cache::schema::Schema;
use crate::cache::store::Lookup;
use crate::http::{Attempt, Error, ErrorKind, resolve};
use crate::meta::Meta;
use crate::rest::{Endpoint, NextPage, Paged, Request, with_param};

impl Controller {
    /// Fetches the page after the last one of the list `endpoint` caches
    /// for `params`, and appends it: the cached list grows (its records
    /// stored once, like any others), and its total and next page become
    /// the new page's. Resolves to whether another page follows.
    ///
    /// With nothing cached yet, it fetches the first page. A call while
    /// one for the same list is on its way does nothing (a double click
    /// fetches one page). A refetch of the list (when it goes stale)
    /// starts over from its first page.
    ///
    /// The next page is where the cached list says ([`Paged`]): a URL (a
    /// `Link` header's) or the value of the endpoint's page param
    /// ([`Endpoint::paginated_by`]).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Page;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// #[serde(rename_all = "camelCase")]
    /// struct Todo { id: u64, title: String }
    ///
    /// endpoint!(pub todo_pages {
    ///     path: "/todos",
    ///     schema: Page<Todo>,
    ///     params: { #[serde(rename = "_page")] page: u32, #[serde(rename = "_limit")] limit: u32 },
    ///     decode: Page::from_headers,
    ///     paginated_by: "_page",
    ///     page_size: "_limit",
    /// });
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(async {
    /// let ctrl = Controller::new(Client::new(api.url()));
    /// let (pages, two) = (todo_pages(), TodoPagesParams { page: 1, limit: 2 });
    /// ctrl.fetch(&pages, &two, None).await?;
    /// while ctrl.fetch_next_page(&pages, &two).await? {}
    /// let all = ctrl.read(&pages, &two).data.unwrap();
    /// assert_eq!(all.items.len() as u64, all.total.unwrap());
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn fetch_next_page<P, S>(
        &self,
        endpoint: &Endpoint<P, S>,
        params: &P,
    ) -> Result<bool, Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema + Paged,
    {
        let (key, url) = self.locate(endpoint, params)?;
        let Some(list) = self.cached::<S>(&key) else {
            self.fetch(endpoint, params, None).await?;
            return Ok(self
                .cached::<S>(&key)
                .is_some_and(|l| l.next_page().is_some()));
        };
        let Some(next) = list.next_page() else {
            return Ok(false);
        };
        let next_url = match next {
            NextPage::Url(next) => {
                let base = endpoint
                    .url_prefix()
                    .unwrap_or(self.inner.client.base_url());
                resolve(base, &next)
            }
            NextPage::Param(value) => match endpoint.pagination() {
                Some(pagination) => with_param(&url, pagination.field, &value),
                None => {
                    let message = "the list names its next page by a param value, but the endpoint has no page param: declare it with `paginated_by`";
                    let attempt = Attempt::new(endpoint.method().as_str(), &url);
                    return Err(attempt.failed(ErrorKind::Request(message.into())));
                }
            },
        };
        let Some(_paging) = Paging::start(&self.inner, &key) else {
            return Ok(true); // this list's next page is on its way
        };
        let (started, generation) = (self.start_now(), self.inner.state.borrow().generation);
        let request = Request {
            method: endpoint.method(),
            url: next_url.clone(),
            body: None,
        };
        let page: S = self.inner.client.send(endpoint, params, request).await?;
        let more = page.next_page().is_some();
        let arrived = self.now();
        {
            let mut state = self.inner.state.borrow_mut();
            if state.generation != generation {
                return Ok(more); // a reset came between: store nothing
            }
            let meta = Meta::fetched(started, arrived, self.data_expiry(endpoint));
            let written = state.store.write(None, page, meta, false).map_err(|e| {
                let attempt = Attempt::new(endpoint.method().as_str(), &next_url);
                attempt.failed(ErrorKind::Decode(e))
            })?;
            state
                .store
                .extend_result(&key, &*written.value, &written.refs);
        }
        self.notify();
        Ok(more)
    }

    /// The list cached under `key`, if readable.
    fn cached<S: Schema>(&self, key: &str) -> Option<Rc<S>> {
        let mut state = self.inner.state.borrow_mut();
        let super::State { store, memo, .. } = &mut *state;
        match memo.read::<S>(store, key) {
            Lookup::Found(list, _) => Some(list),
            Lookup::Invalid | Lookup::Absent => None,
        }
    }
}

/// A next page on its way for one list; the list is free again when it
/// ends (or its future is dropped).
struct Paging {
    inner: Weak<Inner>,
    key: String,
}

impl Paging {
    /// Marks `key`'s next page on its way; `None` when one already is.
    fn start(inner: &Rc<Inner>, key: &str) -> Option<Paging> {
        let mut state = inner.state.borrow_mut();
        if !state.paging.insert(key.to_owned()) {
            return None;
        }
        Some(Paging {
            inner: Rc::downgrade(inner),
            key: key.to_owned(),
        })
    }
}

impl Drop for Paging {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade()
            && let Ok(mut state) = inner.state.try_borrow_mut()
        {
            state.paging.remove(&self.key);
        }
    }
}
