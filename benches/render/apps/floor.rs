//! The floor: a hand-written Yew app with no network and no cache. The
//! lists a screen shows are one `use_reducer` state, taken straight from
//! the API's memory when the screen mounts; a change is applied to them
//! directly, as little work as the change needs (a new `Rc` for each
//! changed issue, the others shared). It is what Yew itself costs for
//! each change, the least any data layer can add to.

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::Element;
use yew::prelude::*;

use super::{AppUnderTest, Change, Mounted};
use crate::data::{Issue, IssueQuery, User};
use crate::screen::{ListSpec, Screen};
use crate::server::Server;
use crate::views::{DetailView, Issues, list_view};

/// Where a scenario's changes go: the lists on show, while a screen with
/// lists is mounted. Clones share it; two are equal when they are the
/// same.
#[derive(Clone, Default)]
struct Changes(Rc<RefCell<Option<Callback<Change>>>>);

impl PartialEq for Changes {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Changes {
    /// Sends the changes to `lists` from now on.
    fn hold(&self, lists: Callback<Change>) {
        *self.0.borrow_mut() = Some(lists);
    }

    /// Stops sending the changes to `lists`, unless others took their
    /// place.
    fn release(&self, lists: &Callback<Change>) {
        let mut held = self.0.borrow_mut();
        if held.as_ref() == Some(lists) {
            *held = None;
        }
    }

    /// Sends `change` to the lists on show.
    fn send(&self, change: Change) {
        let lists = self.0.borrow().clone();
        lists.expect("a screen with lists is mounted").emit(change);
    }
}

#[derive(Properties, PartialEq, Clone)]
struct FloorAppProps {
    server: Server,
    screen: Screen,
    changes: Changes,
}

#[component]
fn FloorApp(props: &FloorAppProps) -> Html {
    let shown = match props.screen.detail() {
        Some(number) => html! { <DetailView issue={props.server.issue(number)} /> },
        None => html! {
            <FloorLists
                key={format!("{:?}", props.screen)}
                server={props.server.clone()}
                specs={props.screen.lists()}
                changes={props.changes.clone()}
            />
        },
    };
    html! { <div style="display: flex">{ shown }</div> }
}

/// The lists of one screen, each beside its spec.
struct Lists(Vec<(ListSpec, Issues)>);

impl Lists {
    /// The lists `specs` name, as the API holds them now.
    fn load(server: &Server, specs: &[ListSpec]) -> Self {
        let load = |spec: &ListSpec| (*spec, Rc::new(server.list(spec.query)));
        Lists(specs.iter().map(load).collect())
    }

    /// Every list with `edit` applied to its issues; a list `edit` leaves
    /// alone keeps its `Rc`.
    fn edited(&self, edit: impl Fn(IssueQuery, &[Rc<Issue>]) -> Option<Vec<Rc<Issue>>>) -> Self {
        let lists = self.0.iter().map(|(spec, issues)| {
            let edited = edit(spec.query, issues).map_or_else(|| Rc::clone(issues), Rc::new);
            (*spec, edited)
        });
        Lists(lists.collect())
    }

    /// Issue `number`, from whichever list holds it.
    fn issue(&self, number: u64) -> Rc<Issue> {
        let mut issues = self.0.iter().flat_map(|(_, issues)| issues.iter());
        let issue = issues.find(|issue| issue.number == number);
        Rc::clone(issue.expect("a change names an issue on show"))
    }

    /// The user `login`, from the issues on show.
    fn user(&self, login: &str) -> Rc<User> {
        let mut issues = self.0.iter().flat_map(|(_, issues)| issues.iter());
        let issue = issues.find(|issue| issue.user.login == login);
        Rc::clone(&issue.expect("a change names a user on show").user)
    }
}

/// Whether `issue` belongs in the list `query` names.
fn matches(query: IssueQuery, issue: &Issue) -> bool {
    query.state.is_none_or(|state| issue.state == state)
}

/// `issues` with `changed` in place of the issue of the same number, or
/// `None` when they do not hold it.
fn replaced(issues: &[Rc<Issue>], changed: &Rc<Issue>) -> Option<Vec<Rc<Issue>>> {
    let at = issues
        .iter()
        .position(|issue| issue.number == changed.number)?;
    let mut edited = issues.to_vec();
    edited[at] = Rc::clone(changed);
    Some(edited)
}

/// `issues` with `issue` first.
fn prepended(issues: &[Rc<Issue>], issue: &Rc<Issue>) -> Vec<Rc<Issue>> {
    std::iter::once(Rc::clone(issue))
        .chain(issues.iter().cloned())
        .collect()
}

/// `issues` without issue `number`, or `None` when they do not hold it.
fn without(issues: &[Rc<Issue>], number: u64) -> Option<Vec<Rc<Issue>>> {
    let at = issues.iter().position(|issue| issue.number == number)?;
    let mut edited = issues.to_vec();
    edited.remove(at);
    Some(edited)
}

impl Reducible for Lists {
    type Action = Change;

    fn reduce(self: Rc<Self>, change: Change) -> Rc<Self> {
        let lists = match change {
            Change::Retitle { number, title } => {
                let issue = self.issue(number);
                let retitled = Rc::new(Issue {
                    title,
                    ..(*issue).clone()
                });
                self.edited(|_, issues| replaced(issues, &retitled))
            }
            Change::Rename { login, name } => {
                let user = self.user(&login);
                let renamed = Rc::new(User {
                    name,
                    ..(*user).clone()
                });
                self.edited(|_, issues| {
                    let theirs = |issue: &Rc<Issue>| issue.user.login == login;
                    issues.iter().any(theirs).then(|| {
                        let rename = |issue: &Rc<Issue>| {
                            if theirs(issue) {
                                let user = Rc::clone(&renamed);
                                Rc::new(Issue {
                                    user,
                                    ..(**issue).clone()
                                })
                            } else {
                                Rc::clone(issue)
                            }
                        };
                        issues.iter().map(rename).collect()
                    })
                })
            }
            Change::Create(issue) => self
                .edited(|query, issues| matches(query, &issue).then(|| prepended(issues, &issue))),
            Change::Delete { number } => self.edited(|_, issues| without(issues, number)),
            Change::Move { number, state } => {
                let issue = self.issue(number);
                let moved = Rc::new(Issue {
                    state,
                    ..(*issue).clone()
                });
                self.edited(|query, issues| {
                    if matches(query, &moved) {
                        replaced(issues, &moved).or_else(|| Some(prepended(issues, &moved)))
                    } else {
                        without(issues, number)
                    }
                })
            }
        };
        Rc::new(lists)
    }
}

#[derive(Properties, PartialEq)]
struct ListsProps {
    server: Server,
    specs: Vec<ListSpec>,
    changes: Changes,
}

/// The lists of a screen, in one state that the scenario's changes go to
/// from its first render until it unmounts.
#[component]
fn FloorLists(props: &ListsProps) -> Html {
    let lists = use_reducer(|| Lists::load(&props.server, &props.specs));
    let to_lists = Callback::from(lists.dispatcher());
    props.changes.hold(to_lists.clone());
    use_effect_with(props.changes.clone(), move |changes| {
        let changes = changes.clone();
        move || changes.release(&to_lists)
    });
    html! {
        { for lists.0.iter().map(|(spec, issues)| list_view(spec, Rc::clone(issues))) }
    }
}

/// The floor app, mounted.
pub struct Floor {
    app: Mounted<FloorApp>,
}

impl AppUnderTest for Floor {
    const NAME: &'static str = "floor (b)";

    fn mount(root: &Element, server: &Server, screen: Screen) -> Self {
        let props = FloorAppProps {
            server: server.clone(),
            screen,
            changes: Changes::default(),
        };
        Floor {
            app: Mounted::new(root, props),
        }
    }

    fn show(&mut self, screen: Screen) {
        self.app.update(|props| props.screen = screen);
    }

    async fn apply(&mut self, change: Change) {
        self.app.props.changes.send(change);
    }
}
