//! The view code all three apps share, the reference's presentational
//! components in Yew: rows of issues, each with a rich user card. Every
//! component takes `Rc`s and compares its props with `PartialEq` (the
//! records are `Eq`, so an unchanged `Rc` compares by pointer), so Yew
//! skips a row whose issue, or a card whose user, did not change. Only
//! the data layer above them differs from app to app.

use std::rc::Rc;

use yew::prelude::*;

use crate::data::{Issue, IssueState, User};
use crate::screen::{Layout, ListSpec};

/// A list of issues as the apps hand them to the views.
pub type Issues = Rc<Vec<Rc<Issue>>>;

#[derive(Properties, PartialEq)]
pub struct UserProps {
    pub user: Rc<User>,
}

/// The djb2 hash of `text`, over its UTF-16 code units as JavaScript's.
fn djb2(text: &str) -> u32 {
    text.encode_utf16().fold(5381u32, |hash, unit| {
        hash.wrapping_mul(33).wrapping_add(u32::from(unit))
    })
}

/// How many words of a bio the card shows.
const BIO_WORDS: usize = 12;

/// A user's card, the reference's deliberately costly one: a colour from
/// a hash, initials, a bio cut to twelve words, a follower count and the
/// year the user joined.
#[component]
pub fn UserView(props: &UserProps) -> Html {
    let user = &props.user;
    let hue = djb2(&format!("{}{}{}", user.login, user.email, user.bio)) % 360;
    let initials: String = user
        .name
        .split(' ')
        .filter_map(|word| word.chars().next())
        .collect::<String>()
        .to_uppercase();
    let words: Vec<&str> = user.bio.split_whitespace().collect();
    let bio = if words.len() > BIO_WORDS {
        format!("{}…", words[..BIO_WORDS].join(" "))
    } else {
        user.bio.clone()
    };
    let followers = if user.followers >= 1000 {
        format!("{:.1}k", f64::from(user.followers) / 1000.0)
    } else {
        user.followers.to_string()
    };
    let joined = user.created_at.get(..4).unwrap_or_default().to_owned();
    html! {
        <span data-user-login={user.login.clone()} style={format!("color: hsl({hue},60%,40%)")}>
            <span data-initials="">{ initials }</span>
            <span data-user-name="">{ &user.name }</span>
            <span data-bio="">{ bio }</span>
            <span data-followers="">{ followers }</span>
            <span data-joined="">{ joined }</span>
        </span>
    }
}

fn state_icon(state: IssueState) -> &'static str {
    match state {
        IssueState::Open => "🟢",
        IssueState::Closed => "🟣",
    }
}

#[derive(Properties, PartialEq)]
pub struct IssueProps {
    pub issue: Rc<Issue>,
}

/// One issue: its title, its user's card, state, comments, labels and
/// body.
#[component]
pub fn IssueRow(props: &IssueProps) -> Html {
    let issue = &props.issue;
    let labels = issue
        .labels
        .iter()
        .map(|label| label.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    html! {
        <div data-issue-number={issue.number.to_string()}>
            <span data-title="">{ &issue.title }</span>
            <UserView user={Rc::clone(&issue.user)} />
            <span data-state="">{ state_icon(issue.state) }</span>
            <span data-comments="">{ issue.comments }</span>
            <span data-labels="">{ labels }</span>
            <span data-body="">{ &issue.body }</span>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct ListProps {
    pub issues: Issues,
    /// How many rows to render (all when `None`).
    pub rows: Option<usize>,
}

/// The first `rows` issues, keyed by number: Yew moves, adds and removes
/// rows by key, and re-renders only a row whose issue changed.
#[component]
pub fn IssueList(props: &ListProps) -> Html {
    let rows = props.rows.unwrap_or(props.issues.len());
    html! {
        <div>
            { for props.issues.iter().take(rows).map(|issue| html! {
                <IssueRow key={issue.number} issue={Rc::clone(issue)} />
            }) }
        </div>
    }
}

/// The issues sorted by title, sorted again only when the list changes.
#[component]
pub fn SortedIssueList(props: &ListProps) -> Html {
    let sorted = use_memo(Rc::clone(&props.issues), |issues| {
        let mut sorted = (**issues).clone();
        sorted.sort_by(|a, b| a.title.cmp(&b.title));
        sorted
    });
    html! {
        <div data-sorted-list="">
            <IssueList issues={sorted} rows={props.rows} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct StateListProps {
    pub state: IssueState,
    pub issues: Issues,
    pub rows: Option<usize>,
}

/// The issues of one state, under it, with their count.
#[component]
pub fn StateIssueList(props: &StateListProps) -> Html {
    html! {
        <div data-state-list={props.state.as_str()}>
            <span data-state-count="">{ props.issues.len() }</span>
            <IssueList issues={Rc::clone(&props.issues)} rows={props.rows} />
        </div>
    }
}

/// The list `spec` describes, showing `issues`.
pub fn list_view(spec: &ListSpec, issues: Issues) -> Html {
    match spec.layout {
        Layout::Plain => html! { <IssueList {issues} rows={spec.rows} /> },
        Layout::Sorted => html! { <SortedIssueList {issues} rows={spec.rows} /> },
        Layout::OfState(state) => html! { <StateIssueList {state} {issues} rows={spec.rows} /> },
    }
}

/// One issue alone, as its detail page.
#[component]
pub fn DetailView(props: &IssueProps) -> Html {
    html! {
        <div data-detail-view={props.issue.number.to_string()}>
            <IssueRow issue={Rc::clone(&props.issue)} />
        </div>
    }
}
