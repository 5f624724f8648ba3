//! The header's count of open todos, and the sidebar: the people with
//! the count of each one's open todos, the profiles, and the demo API's
//! outage switch. Both counts read the list of every todo: the same
//! records as the todo list reads through `?userId=`, so a change there
//! shows here at once.

use restcache::prelude::*;
use restcache::yew::{use_controller, use_suspense};
use yew::prelude::*;

use crate::api::{ProfileResource, Todo, TodoResource, UserResource};
use crate::app::Shell;
use crate::view::View;

/// How many of `todos` are open.
fn open_count<'a>(todos: impl IntoIterator<Item = &'a std::rc::Rc<Todo>>) -> usize {
    todos.into_iter().filter(|t| !t.completed).count()
}

/// "3 open", over every person's todos.
#[component]
pub fn OpenCount() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    let open = open_count(todos.iter());
    Ok(html! {
        <p class="count" aria-live="polite"><strong>{ open }</strong>{ " open" }</p>
    })
}

/// The people, the profiles, and the demo switch.
#[component]
pub fn Sidebar() -> HtmlResult {
    let shell = use_context::<Shell>().expect("the app gives a shell");
    let users = use_suspense(&UserResource::get_list(), ());
    let todos = use_suspense(&TodoResource::get_list(), ());
    let profiles = use_suspense(&ProfileResource::get_list(), ());
    let (users, todos, profiles) = (users?, todos?, profiles?);
    let view = &shell.view;
    let people = users.iter().map(|user| {
        let count = open_count(todos.iter().filter(|t| t.user_id == user.id));
        let to = View {
            user: user.id,
            ..view.clone()
        };
        html! {
            <li key={user.id}>
                <Link {to} current={view.user == user.id}>
                    <span class="name">{ &user.name }</span>
                    <span class="badge">{ count }<span class="visually-hidden">{ " open" }</span></span>
                </Link>
            </li>
        }
    });
    let cards = profiles.iter().map(|profile| {
        let to = View {
            profile: profile.id.clone().into(),
            ..view.clone()
        };
        html! {
            <li key={profile.id.clone()}>
                <Link {to} current={view.profile == profile.id}>{ &profile.full_name }</Link>
            </li>
        }
    });
    // A link to a profile that does not exist (yet): its card's boundary
    // shows the error, with a retry.
    let missing = View {
        profile: "3".into(),
        ..view.clone()
    };
    Ok(html! {
        <>
            <h2>{ "People" }</h2>
            <ul class="people">{ for people }</ul>
            <h2>{ "Profiles" }</h2>
            <ul class="profiles">
                { for cards }
                <li><Link to={missing.clone()} current={view.profile == missing.profile}>{ "A broken link" }</Link></li>
            </ul>
        </>
    })
}

#[derive(Properties, PartialEq)]
pub struct LinkProps {
    pub to: View,
    pub current: bool,
    pub children: Html,
}

/// A link to a view: a plain link to the page's address, which the app
/// follows itself (a click with a modifier key opens it as usual).
#[component]
pub fn Link(props: &LinkProps) -> Html {
    let shell = use_context::<Shell>().expect("the app gives a shell");
    let onclick = {
        let to = props.to.clone();
        Callback::from(move |event: MouseEvent| {
            let modified =
                event.ctrl_key() || event.meta_key() || event.shift_key() || event.alt_key();
            if event.button() == 0 && !modified {
                event.prevent_default();
                shell.go.emit(to.clone());
            }
        })
    };
    let current = props.current.then_some("page");
    html! {
        <a href={props.to.href()} aria-current={current} {onclick}>{ props.children.clone() }</a>
    }
}

#[derive(Properties, PartialEq)]
pub struct OutageSwitchProps {
    /// Whether the outage is on as the page renders.
    pub on: bool,
}

/// Switches the demo API's outage on and off: while on, every request
/// answers 503, and the writes are taken back. It reads nothing through
/// the cache, so it stays when the rest of the sidebar fails.
#[component]
pub fn OutageSwitch(props: &OutageSwitchProps) -> Html {
    let ctrl = use_controller();
    let shell = use_context::<Shell>().expect("the app gives a shell");
    let on = use_state(|| props.on);
    let onchange = {
        let on = on.clone();
        Callback::from(move |event: Event| {
            let wanted = event
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .checked();
            on.set(wanted);
            let (ctrl, on, notify) = (ctrl.clone(), on.clone(), shell.notify.clone());
            yew::platform::spawn_local(async move {
                let url = format!("{}/__demo/switches", ctrl.client().base_url());
                let body = Body::json(&serde_json::json!({ "outage": wanted })).ok();
                let request = restcache::http::Request::new(Method::Put, url).with_body(body);
                if let Err(error) = ctrl.client().send(request).await {
                    on.set(!wanted);
                    notify.emit(format!("Could not switch the outage: {error}"));
                }
            });
        })
    };
    html! {
        <div class="demo">
            <h2>{ "Demo API" }</h2>
            <input type="checkbox" id="outage" checked={*on} {onchange} />
            <label for="outage">{ "Outage: every request answers 503" }</label>
        </div>
    }
}
