//! The reference's baseline: no cache. Each list and detail holds what it
//! fetched in `use_state`, filled by an effect that fetches through the
//! simulated network and parses the JSON; a change is sent to the API,
//! and once it has answered every component on the page fetches again
//! (a `refetch` counter in the app's props, as the reference's
//! `refetchKey`).

use std::rc::Rc;

use web_sys::Element;
use yew::platform::spawn_local;
use yew::prelude::*;

use super::{AppUnderTest, Change, Mounted};
use crate::network::Network;
use crate::screen::{ListSpec, Screen};
use crate::server::Server;
use crate::views::{DetailView, list_view};

#[derive(Properties, PartialEq, Clone)]
struct BaselineAppProps {
    network: Network,
    screen: Screen,
    /// Bumped after every change: each component fetches again.
    refetch: u32,
}

#[component]
fn BaselineApp(props: &BaselineAppProps) -> Html {
    let (network, refetch) = (&props.network, props.refetch);
    let shown = match props.screen.detail() {
        Some(number) => html! {
            <BaselineDetail network={network.clone()} {number} {refetch} />
        },
        None => html! {
            { for props.screen.lists().into_iter().map(|spec| html! {
                <BaselineList network={network.clone()} {spec} {refetch} />
            }) }
        },
    };
    html! { <div style="display: flex">{ shown }</div> }
}

/// Fetches with `fetch` whenever `deps` change, and holds the parsed
/// answer (nothing until the first one has arrived).
#[hook]
fn use_fetched<D, T, F>(deps: D, fetch: impl Fn(&D) -> F + 'static) -> Option<Rc<T>>
where
    D: PartialEq + 'static,
    T: serde::de::DeserializeOwned + 'static,
    F: Future<Output = String> + 'static,
{
    let fetched = use_state(|| None);
    let setter = fetched.setter();
    use_effect_with(deps, move |deps| {
        let answer = fetch(deps);
        spawn_local(async move {
            let parsed: T = serde_json::from_str(&answer.await).expect("the API answers JSON");
            setter.set(Some(Rc::new(parsed)));
        });
    });
    (*fetched).clone()
}

#[derive(Properties, PartialEq)]
struct ListProps {
    network: Network,
    spec: ListSpec,
    refetch: u32,
}

#[component]
fn BaselineList(props: &ListProps) -> Html {
    let network = props.network.clone();
    let issues = use_fetched((props.spec.query, props.refetch), move |(query, _)| {
        let (network, query) = (network.clone(), *query);
        async move { network.issues(query).await }
    });
    match issues {
        Some(issues) => list_view(&props.spec, issues),
        None => Html::default(),
    }
}

#[derive(Properties, PartialEq)]
struct DetailProps {
    network: Network,
    number: u64,
    refetch: u32,
}

#[component]
fn BaselineDetail(props: &DetailProps) -> Html {
    let network = props.network.clone();
    let issue = use_fetched((props.number, props.refetch), move |(number, _)| {
        let (network, number) = (network.clone(), *number);
        async move { network.issue(number).await }
    });
    match issue {
        Some(issue) => html! { <DetailView {issue} /> },
        None => Html::default(),
    }
}

/// The baseline app, mounted.
pub struct Baseline {
    app: Mounted<BaselineApp>,
}

impl AppUnderTest for Baseline {
    const NAME: &'static str = "baseline (a)";
    const REFETCHES: bool = true;

    fn mount(root: &Element, server: &Server, screen: Screen) -> Self {
        let props = BaselineAppProps {
            network: Network::new(server.clone()),
            screen,
            refetch: 0,
        };
        Baseline {
            app: Mounted::new(root, props),
        }
    }

    fn show(&mut self, screen: Screen) {
        self.app.update(|props| props.screen = screen);
    }

    async fn apply(&mut self, change: Change) {
        let network = self.app.props.network.clone();
        match change {
            Change::Retitle { number, title } => network.retitle(number, &title).await,
            Change::Move { number, state } => network.set_state(number, state).await,
            Change::Rename { login, name } => network.rename(&login, &name).await,
            Change::Create(issue) => network.create(issue).await,
            Change::Delete { number } => network.delete(number).await,
        }
        self.app.update(|props| props.refetch += 1);
    }
}
