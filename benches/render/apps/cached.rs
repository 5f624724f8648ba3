//! The restcache app: every list and detail read through `use_suspense`
//! inside a `CacheProvider` and an `AsyncBoundary`, from endpoints that
//! fetch through the simulated network. A change is written into the
//! cache with `Controller::set_response` on the resource's update, create
//! or delete endpoint, as if the API had answered it, with no network:
//! the cache's own effects do the rest (a record changed everywhere it
//! shows, a created one joining the lists, a deleted one leaving them,
//! an updated one moving between filtered lists).

use std::rc::Rc;
use std::time::Duration;

use restcache::http::{Client, Request, Response, ResponseFuture};
use restcache::prelude::*;
use restcache::rest::{Deleted, JoinAt, KeyArgs, without_param};
use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider, use_suspense};
use web_sys::Element;
use yew::prelude::*;

use super::{AppUnderTest, Change, Mounted};
use crate::data::{Issue, IssueQuery, User};
use crate::network::Network;
use crate::screen::{ListSpec, Screen};
use crate::server::Server;
use crate::views::{DetailView, list_view};

/// The client's base address: nothing is ever sent to it, as every
/// endpoint fetches through the simulated network.
const API: &str = "http://simulated-network.invalid";

/// How long a read stays fresh: longer than the benchmark (the
/// reference's reads never expire).
const FRESH_FOR: Duration = Duration::from_secs(3_600);

resource!(IssueResource {
    path: "/issues/:number",
    schema: Issue,
    data_expiry: FRESH_FOR,
});

resource!(UserResource {
    path: "/users/:login",
    schema: User,
    data_expiry: FRESH_FOR,
});

endpoint!(issue_list {
    path: "/issues",
    schema: Vec<Rc<Issue>>,
    params: IssueQuery,
    data_expiry: FRESH_FOR,
});

/// The key of a list: its URL without `count`. The count only trims the
/// answer (the reference's `nonFilterArgumentKeys`), so a list stays
/// under the collection's URL with its filters alone, and a created or
/// moved issue is judged by its state only.
fn list_key(args: &KeyArgs<'_, IssueQuery>) -> String {
    format!("{} {}", args.method, without_param(args.url, "count"))
}

/// The read endpoints of the app, fetching through the simulated
/// network. Clones share them; two are equal when they are the same.
#[derive(Clone)]
struct Api(Rc<Endpoints>);

struct Endpoints {
    issues: Endpoint<IssueQuery, Vec<Rc<Issue>>>,
    issue: Endpoint<IssueResourceParams, Rc<Issue>>,
}

impl PartialEq for Api {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Api {
    fn new(network: &Network) -> Self {
        let lists = network.clone();
        let issues = issue_list().with_key(list_key).with_fetch(
            move |_: &Client, query: &IssueQuery, _: Request| {
                let (network, query) = (lists.clone(), *query);
                Box::pin(async move { Ok(Response::new(200, network.issues(query).await)) })
                    as ResponseFuture
            },
        );
        let details = network.clone();
        let issue = IssueResource::get().with_fetch(
            move |_: &Client, params: &IssueResourceParams, _: Request| {
                let (network, number) = (details.clone(), params.number);
                Box::pin(async move { Ok(Response::new(200, network.issue(number).await)) })
                    as ResponseFuture
            },
        );
        Api(Rc::new(Endpoints { issues, issue }))
    }
}

#[derive(Properties, PartialEq, Clone)]
struct CachedAppProps {
    ctrl: Controller,
    api: Api,
    screen: Screen,
}

/// What a failed read shows: its error (the simulated API never fails).
fn failed() -> Callback<BoundaryError, Html> {
    Callback::from(|failed: BoundaryError| html! { <p>{ failed.error.to_string() }</p> })
}

#[component]
fn CachedApp(props: &CachedAppProps) -> Html {
    let api = &props.api;
    let shown = match props.screen.detail() {
        Some(number) => html! { <CachedDetail api={api.clone()} {number} /> },
        None => html! {
            { for props.screen.lists().into_iter().map(|spec| html! {
                <CachedList api={api.clone()} {spec} />
            }) }
        },
    };
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}>
                <div style="display: flex">{ shown }</div>
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[derive(Properties, PartialEq)]
struct ListProps {
    api: Api,
    spec: ListSpec,
}

#[component]
fn CachedList(props: &ListProps) -> HtmlResult {
    let issues = use_suspense(&props.api.0.issues, props.spec.query)?;
    Ok(list_view(&props.spec, issues))
}

#[derive(Properties, PartialEq)]
struct DetailProps {
    api: Api,
    number: u64,
}

#[component]
fn CachedDetail(props: &DetailProps) -> HtmlResult {
    let params = IssueResourceParams {
        number: props.number,
    };
    let issue = use_suspense(&props.api.0.issue, params)?;
    Ok(html! { <DetailView {issue} /> })
}

/// The restcache app, mounted.
pub struct Cached {
    app: Mounted<CachedApp>,
    ctrl: Controller,
}

impl Cached {
    /// Writes issue `number` as the cache shows it (a list read it), with
    /// `edit` applied, as the answer of its update; a list it joins puts
    /// it first.
    fn edit_issue(&self, number: u64, edit: impl FnOnce(&mut Issue)) {
        let params = IssueResourceParams { number };
        let cached = self.ctrl.read(&self.app.props.api.0.issue, &params);
        let mut issue = cached
            .data
            .expect("the cache holds every issue a list shows");
        edit(Rc::make_mut(&mut issue));
        let update = IssueResource::update().join_at(JoinAt::Start);
        self.ctrl
            .set_response(&update, &params, issue)
            .expect("an issue with its number stores");
    }
}

impl AppUnderTest for Cached {
    const NAME: &'static str = "restcache";

    fn mount(root: &Element, server: &Server, screen: Screen) -> Self {
        let ctrl = Controller::new(Client::new(API));
        let api = Api::new(&Network::new(server.clone()));
        let props = CachedAppProps {
            ctrl: ctrl.clone(),
            api,
            screen,
        };
        Cached {
            app: Mounted::new(root, props),
            ctrl,
        }
    }

    fn show(&mut self, screen: Screen) {
        self.app.update(|props| props.screen = screen);
    }

    async fn apply(&mut self, change: Change) {
        match change {
            Change::Retitle { number, title } => {
                self.edit_issue(number, |issue| issue.title = title)
            }
            Change::Move { number, state } => self.edit_issue(number, |issue| issue.state = state),
            Change::Rename { login, name } => {
                let params = UserResourceParams { login };
                let user = self.ctrl.read(&UserResource::get(), &params).data;
                let user = user.expect("the cache holds every user an issue shows");
                let renamed = Rc::new(User {
                    name,
                    ..(*user).clone()
                });
                self.ctrl
                    .set_response(&UserResource::update(), &params, renamed)
                    .expect("a user with a login stores");
            }
            Change::Create(issue) => {
                let create = IssueResource::create().join_at(JoinAt::Start);
                self.ctrl
                    .set_response(&create, &(), issue)
                    .expect("an issue with its number stores");
            }
            Change::Delete { number } => {
                let params = IssueResourceParams { number };
                self.ctrl
                    .set_response(
                        &IssueResource::delete(),
                        &params,
                        Deleted::new(Pk::from(number)),
                    )
                    .expect("a deletion stores");
            }
        }
    }
}
