//! Fetching the next page of a paginated list and appending it to the
//! cached list: one list, grown page by page, whose records are stored
//! once like any others.

use std::any::Any;
use std::rc::{Rc, Weak};

use futures_util::FutureExt;
use serde::Serialize;

use super::events::Event;
use super::state::{KeyState, NextPageFetch};
use super::{Controller, Inner};
use crate::cache::schema::Schema;
use crate::cache::store::Lookup;
use crate::http::{Attempt, Error, ErrorKind, Request};
use crate::meta::Meta;
use crate::rest::{Endpoint, NextPage, Paged, Readable, with_param};

impl Controller {
    /// Fetches the page after the last one of the list `endpoint` caches
    /// for `params`, and appends it: the cached list grows (its records
    /// stored once, like any others), and its total and next page become
    /// the new page's. Resolves to whether another page follows.
    ///
    /// With nothing cached yet, it fetches the first page. A call while
    /// one for the same list is on its way waits for that page and
    /// resolves to its answer (a double click fetches one page), and the
    /// page keeps coming while any caller still waits on it. A refetch
    /// of the list (when it goes stale) starts over from its first page.
    ///
    /// The next page is where the cached list says ([`Paged`]): a URL (a
    /// `Link` header's) or the value of the endpoint's page param
    /// ([`Endpoint::paginated_by`]).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::Page;
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
    pub async fn fetch_next_page<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
    ) -> Result<bool, Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema + Paged,
        E: Readable,
    {
        let (key, url) = self.locate(endpoint, params)?;
        // This list's next page is on its way: wait for it too (not for
        // one of the list from before a reset).
        let on_its_way = {
            let mut state = self.inner.state.borrow_mut();
            let generation = state.generation;
            state
                .keys
                .get_mut(&key)
                .and_then(|kept| kept.next_page.as_mut())
                .filter(|page| page.generation == generation)
                .map(|page| {
                    page.waiters += 1;
                    (page.id, page.fetch.clone())
                })
        };
        if let Some((id, page)) = on_its_way {
            let _waiting = Paging {
                inner: Rc::downgrade(&self.inner),
                key,
                id,
            };
            return page.await;
        }
        let Some(list) = self.cached::<S>(&key) else {
            self.fetch(endpoint, params, None).await?;
            return Ok(self
                .cached::<S>(&key)
                .is_some_and(|l| l.next_page().is_some()));
        };
        let Some(next) = list.next_page() else {
            return Ok(false);
        };
        let attempt = Attempt::new(endpoint.method(), &url);
        let next_url = match next {
            NextPage::Url(next) => link_target(&url, &next)
                .ok_or_else(|| attempt.failed(ErrorKind::ForeignNextPage { next }))?,
            NextPage::Param(value) => match endpoint.pagination() {
                Some(pagination) => with_param(&url, pagination.field, &value),
                None => return Err(attempt.failed(ErrorKind::NoPageParam)),
            },
        };
        let (id, page) = {
            let mut state = self.inner.state.borrow_mut();
            let (id, generation) = (state.next_serial(), state.generation);
            let page = {
                let (ctrl, endpoint, params, key) =
                    (self.clone(), endpoint.clone(), params.clone(), key.clone());
                async move {
                    let grown = ctrl.append_page(&endpoint, &params, &key, next_url).await;
                    // Ended: the next call fetches the page after this one.
                    let mut state = ctrl.inner.state.borrow_mut();
                    state.keys.edit(&key, |kept| {
                        kept.next_page.take_if(|page| page.id == id);
                    });
                    grown
                }
            };
            let page = page.boxed_local().shared();
            state.keys.state_mut(&key).next_page = Some(NextPageFetch {
                id,
                generation,
                fetch: page.clone(),
                waiters: 1,
            });
            (id, page)
        };
        let _waiting = Paging {
            inner: Rc::downgrade(&self.inner),
            key,
            id,
        };
        page.await
    }

    /// Whether the list `endpoint` caches for `params` has a page after
    /// the ones it holds: what a "load more" button asks before showing.
    /// `false` while nothing readable is cached. Never fetches.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::Page;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    ///
    /// endpoint!(pub todo_pages {
    ///     path: "/todos",
    ///     schema: Page<Todo>,
    ///     params: { #[serde(rename = "_page")] page: u32, #[serde(rename = "_limit")] limit: u32 },
    ///     decode: Page::from_headers,
    ///     paginated_by: "_page",
    /// });
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(async {
    /// let ctrl = Controller::new(Client::new(api.url()));
    /// let (pages, three) = (todo_pages(), TodoPagesParams { page: 1, limit: 3 });
    /// assert!(!ctrl.has_next_page(&pages, &three), "nothing cached yet");
    /// ctrl.fetch(&pages, &three, None).await?;
    /// assert!(ctrl.has_next_page(&pages, &three), "3 of the 5 todos");
    /// ctrl.fetch_next_page(&pages, &three).await?;
    /// assert!(!ctrl.has_next_page(&pages, &three), "all 5");
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn has_next_page<P, S, E>(&self, endpoint: &Endpoint<P, S, E>, params: &P) -> bool
    where
        P: Serialize,
        S: Schema + Paged,
        E: Readable,
    {
        let Ok((key, _)) = self.locate(endpoint, params) else {
            return false;
        };
        self.cached::<S>(&key)
            .is_some_and(|list| list.next_page().is_some())
    }

    /// Fetches the page at `url` and appends it to the list cached under
    /// `key`, telling listeners. Resolves to whether another page follows.
    async fn append_page<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        key: &str,
        url: String,
    ) -> Result<bool, Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema + Paged,
        E: Readable,
    {
        self.emit(|| Event::RequestStarted {
            key: key.to_owned(),
            method: endpoint.method(),
            url: url.clone(),
        });
        let outcome = self.fetch_page(endpoint, params, key, url).await;
        let key = key.to_owned();
        match &outcome {
            Ok((_, true)) => self.emit(|| Event::ResponseStored { key }),
            Ok((_, false)) => self.emit(|| Event::RequestCancelled { key }),
            Err(error) => self.emit(|| Event::RequestFailed {
                key,
                error: error.clone(),
            }),
        }
        outcome.map(|(more, _)| more)
    }

    /// [`append_page`](Self::append_page)'s work: whether another page
    /// follows, and whether this one was stored (a list reset, collected
    /// or fetched again meanwhile takes nothing).
    async fn fetch_page<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        key: &str,
        url: String,
    ) -> Result<(bool, bool), Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema + Paged,
        E: Readable,
    {
        let (started, generation) = (self.start_now(), self.inner.state.borrow().generation);
        // The list this page follows, as of now: its first page's fetch
        // (a write that edits the list since leaves it the same list).
        let list_fetched = |ctrl: &Self| {
            let state = ctrl.inner.state.borrow();
            state.keys.get(key).map(|kept| kept.fetches)
        };
        let follows = list_fetched(self);
        let counted_before = {
            let state = self.inner.state.borrow();
            state.keys.get(key).map(|kept| kept.counted_to_come.get())
        };
        let request = Request::new(endpoint.method(), url.clone());
        let page = self
            .inner
            .client
            .call_with(endpoint, params, request)
            .await?;
        let more = page.next_page().is_some();
        let arrived = self.now();
        let attempt = || Attempt::new(endpoint.method(), &url);
        if self.inner.state.borrow().generation != generation || self.cached::<S>(key).is_none() {
            return Ok((more, false)); // reset, or collected, meanwhile: nothing to grow
        }
        if list_fetched(self) != follows {
            // The list was fetched again meanwhile (from its first page):
            // this page follows pages it no longer holds.
            let more = self
                .cached::<S>(key)
                .is_some_and(|list| list.next_page().is_some());
            return Ok((more, false));
        }
        {
            let mut state = self.state_mut();
            let meta = Meta::fetched(started, arrived, self.data_expiry(endpoint));
            let written = state
                .store
                .write(None, page, meta, false)
                .map_err(|e| attempt().failed(ErrorKind::Decode(e)))?;
            let page = &*written.value;
            let grow = |stored: &dyn Any, keep: &[bool]| {
                let longer = stored.downcast_ref::<S>()?.extend_page(page, keep)?;
                Some(Rc::new(longer) as Rc<dyn Any>)
            };
            if !state
                .store
                .extend_result(key, &written.refs, S::LIST_OF_RECORDS, grow)
            {
                return Err(attempt().failed(ErrorKind::NotPageable));
            }
            // The last page, asked for before a create was counted to
            // come with a page: the record may be on none loaded, so the
            // list is fetched again to bring it.
            let counted_now = state.keys.get(key).map(|kept| kept.counted_to_come.get());
            if !more && counted_now != counted_before {
                state.store.expire_result(key);
            }
            // Loading a page uses the list, as a read does.
            state.note_use(key, arrived, self.data_expiry(endpoint));
        }
        self.notify();
        Ok((more, true))
    }

    /// The list cached under `key`, if readable.
    fn cached<S: Schema>(&self, key: &str) -> Option<Rc<S>> {
        self.look_through_memo(|store, memo| match memo.read::<S>(store, key) {
            Lookup::Found(list, _) => Some(list),
            Lookup::Invalid | Lookup::Absent => None,
        })
    }
}

/// A caller waiting on a list's next page: when the last one gives up
/// before the page comes, the fetch is cancelled and the list is free
/// again. The fetch frees it itself when it ends.
struct Paging {
    inner: Weak<Inner>,
    key: String,
    /// Its fetch's number: a later one for the same list stays.
    id: u64,
}

impl Drop for Paging {
    fn drop(&mut self) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        let Ok(mut state) = inner.state.try_borrow_mut() else {
            return;
        };
        let last = |kept: &mut KeyState| {
            let page = kept.next_page.as_mut().filter(|page| page.id == self.id)?;
            page.waiters -= 1;
            (page.waiters == 0).then(|| kept.next_page.take()).flatten()
        };
        let Some(cancelled) = state.keys.edit(&self.key, last).flatten() else {
            return;
        };
        // Outside the borrow: the fetch it drops may hold one.
        drop(state);
        drop(cancelled);
        let key = &self.key;
        Controller { inner }.emit(|| Event::RequestCancelled { key: key.clone() });
    }
}

/// The URL of a next page's link `target`, read against `list`, the URL
/// of the list it came with, when it is relative still (a page fetched
/// names its next one as read against its own URL); `None` when it is
/// on another origin (the client's headers are not sent there). A list
/// at a path (a client on the page's own origin, `/api`) takes a link
/// to that origin as its path.
fn link_target(list: &str, target: &str) -> Option<String> {
    link_target_on(list, target, crate::http::page_origin().as_deref())
}

/// [`link_target`], with `page` the page's origin, if any.
fn link_target_on(list: &str, target: &str, page: Option<&str>) -> Option<String> {
    let target = crate::http::resolve_link(list, target);
    let on = |origin: &str| {
        target.starts_with(origin)
            && matches!(
                target.as_bytes().get(origin.len()),
                None | Some(b'/' | b'?' | b'#')
            )
    };
    if crate::http::is_path(list) {
        return match (crate::http::is_path(&target), page) {
            (true, _) => Some(target),
            (false, Some(page)) if on(page) => match &target[page.len()..] {
                "" => Some("/".to_owned()),
                rest if rest.starts_with('/') => Some(rest.to_owned()),
                rest => Some(format!("/{rest}")),
            },
            (false, _) => None,
        };
    }
    let (origin, _) = crate::http::split_origin(list);
    on(origin).then_some(target)
}

#[cfg(test)]
mod tests {
    use super::{link_target, link_target_on};

    #[test]
    fn link_targets_are_read_against_the_list_url() {
        let list = "https://api.example/v1/todos?_page=1";
        let at = |target| link_target(list, target);
        assert_eq!(
            at("https://api.example/v1/todos?_page=2").as_deref(),
            Some("https://api.example/v1/todos?_page=2")
        );
        assert_eq!(
            at("/v1/todos?_page=2").as_deref(),
            Some("https://api.example/v1/todos?_page=2")
        );
        assert_eq!(
            at("?_page=2").as_deref(),
            Some("https://api.example/v1/todos?_page=2")
        );
        assert_eq!(
            at("todos?_page=2").as_deref(),
            Some("https://api.example/v1/todos?_page=2")
        );
        assert_eq!(at("https://elsewhere.example/v1/todos?_page=2"), None);
        assert_eq!(at("https://api.example.evil/x"), None);
        assert_eq!(at("//elsewhere.example/x"), None);
        // An address in a relative link's query leaves it relative.
        assert_eq!(
            at("?_page=2&from=https://elsewhere.example/").as_deref(),
            Some("https://api.example/v1/todos?_page=2&from=https://elsewhere.example/")
        );
    }

    #[test]
    fn a_list_at_a_path_takes_links_to_the_pages_origin_as_paths() {
        let list = "/api/todos?_page=1";
        let page = Some("https://app.example");
        let at = |target| link_target_on(list, target, page);
        assert_eq!(
            at("https://app.example/api/todos?_page=2").as_deref(),
            Some("/api/todos?_page=2")
        );
        assert_eq!(
            at("/api/todos?_page=2").as_deref(),
            Some("/api/todos?_page=2")
        );
        assert_eq!(at("?_page=2").as_deref(), Some("/api/todos?_page=2"));
        assert_eq!(
            at("https://app.example?_page=2").as_deref(),
            Some("/?_page=2")
        );
        assert_eq!(at("https://app.example.evil/api/todos"), None);
        assert_eq!(at("https://elsewhere.example/api/todos"), None);
        assert_eq!(at("//elsewhere.example/api/todos"), None);
        // As a page's decoder read it first, against the list's URL.
        let read = crate::http::resolve_link(list, "//elsewhere.example/api/todos");
        assert_eq!(at(&read), None);
        // With no page (natively), only a path is the list's origin.
        assert_eq!(
            link_target_on(list, "https://app.example/api/todos", None),
            None
        );
    }
}
