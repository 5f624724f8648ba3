//! The records every app shows, and the reference's deterministic
//! fixture rebuilt field for field: 10,000 issues, each with one of 20
//! users (pk `login`) and up to three of 10 labels. The types are the
//! restcache app's entities; the apps without a cache hold the same
//! types, so that all three render them with the same view code.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::rest::{FieldText, QueryText};

/// How many issues the simulated API starts with.
const ISSUES: usize = 10_000;
/// How many users the issues share.
const USERS: usize = 20;

/// The first issue number a created issue gets (the reference's server
/// numbers them from here).
pub const FIRST_CREATED: u64 = 90_000;

/// A label an issue may carry (pk `id`).
#[derive(Entity, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Label {
    pub id: u64,
    pub node_id: String,
    pub name: String,
    pub description: String,
    pub color: String,
    #[serde(rename = "default")]
    pub is_default: bool,
}

/// A user, the author of one issue in 20 (pk `login`).
#[derive(Entity, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: u64,
    #[entity(pk)]
    pub login: String,
    pub node_id: String,
    pub avatar_url: String,
    pub gravatar_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub site_admin: bool,
    pub html_url: String,
    pub name: String,
    pub company: String,
    pub blog: String,
    pub location: String,
    pub email: String,
    pub bio: String,
    pub public_repos: u32,
    pub public_gists: u32,
    pub followers: u32,
    pub following: u32,
    pub created_at: String,
    pub updated_at: String,
}

/// Whether an issue is open; lists filter on it (`?state=open`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IssueState {
    Open,
    Closed,
}

impl IssueState {
    /// The state as the wire and the page write it.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueState::Open => "open",
            IssueState::Closed => "closed",
        }
    }

    /// The other state: where a moved issue goes.
    pub fn other(self) -> IssueState {
        match self {
            IssueState::Open => IssueState::Closed,
            IssueState::Closed => IssueState::Open,
        }
    }
}

/// A list filtered by `?state=open` compares an issue's state as text, so
/// that a created or updated issue joins the lists it now matches.
impl QueryText for IssueState {
    fn query_text(&self) -> FieldText {
        FieldText::Text(self.as_str().to_owned())
    }
}

/// An issue (pk `number`), holding its user and labels: the cache
/// stores them apart and joins them back.
#[derive(Entity, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Issue {
    pub id: u64,
    #[entity(pk)]
    pub number: u64,
    pub title: String,
    pub body: String,
    pub state: IssueState,
    pub locked: bool,
    pub comments: u32,
    #[entity(nested)]
    pub labels: Vec<Rc<Label>>,
    #[entity(nested)]
    pub user: Rc<User>,
    pub html_url: String,
    pub repository_url: String,
    pub author_association: String,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
}

/// Which issues a list shows: the first `count` (of one state, when
/// `state` says so), in the API's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct IssueQuery {
    pub count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<IssueState>,
}

/// The reference's fixture: its issues, pointing at its users and labels.
pub fn fixture() -> Vec<Rc<Issue>> {
    let labels = labels();
    let users: Vec<Rc<User>> = (0..USERS).map(|i| Rc::new(user(i))).collect();
    (0..ISSUES)
        .map(|i| Rc::new(issue(i, &users, &labels)))
        .collect()
}

/// A date as JavaScript's `new Date(year, month, day).toISOString()` in
/// UTC writes it (`month` from 0; every day the fixture uses exists).
fn date(year: u32, month: usize, day: usize) -> String {
    format!("{year}-{:02}-{day:02}T00:00:00.000Z", month + 1)
}

const LABELS: [(&str, &str, &str); 10] = [
    ("bug", "d73a4a", "Something isn't working"),
    ("enhancement", "a2eeef", "New feature or request"),
    (
        "documentation",
        "0075ca",
        "Improvements or additions to documentation",
    ),
    ("good first issue", "7057ff", "Good for newcomers"),
    ("help wanted", "008672", "Extra attention needed"),
    ("performance", "fbca04", "Performance-related issue"),
    ("breaking change", "e11d48", "Introduces a breaking change"),
    (
        "dependencies",
        "0366d6",
        "Pull requests that update a dependency",
    ),
    ("refactor", "c5def5", "Code refactoring"),
    ("testing", "bfd4f2", "Related to testing infrastructure"),
];

fn labels() -> Vec<Rc<Label>> {
    let label = |(i, (name, color, description)): (usize, &(&str, &str, &str))| {
        Rc::new(Label {
            id: i as u64 + 1,
            node_id: format!("MDU6TGFiZWw{}", i + 1),
            name: (*name).to_owned(),
            description: (*description).to_owned(),
            color: (*color).to_owned(),
            is_default: i < 3,
        })
    };
    LABELS.iter().enumerate().map(label).collect()
}

const LOCATIONS: [&str; 5] = ["San Francisco", "London", "Tokyo", "Berlin", "Sydney"];

fn user(i: usize) -> User {
    let n = i as u32;
    User {
        id: 1000 + i as u64,
        login: format!("user{i}"),
        node_id: format!("MDQ6VXNlcjEwMDA{i}"),
        avatar_url: format!("https://avatars.githubusercontent.com/u/{}?v=4", 1000 + i),
        gravatar_id: String::new(),
        kind: "User".to_owned(),
        site_admin: false,
        html_url: format!("https://github.com/user{i}"),
        name: format!("User {i}"),
        company: if i.is_multiple_of(3) { "Acme Corp" } else { "" }.to_owned(),
        blog: if i.is_multiple_of(4) {
            format!("https://user{i}.dev")
        } else {
            String::new()
        },
        location: LOCATIONS[i % LOCATIONS.len()].to_owned(),
        email: format!("user{i}@example.com"),
        bio: format!("Software engineer #{i}. Likes open source and coffee."),
        public_repos: (n * 7 + 3) % 200,
        public_gists: (n * 3 + 1) % 50,
        followers: (n * 137 + 42) % 10_000,
        following: (n * 11 + 5) % 500,
        created_at: date(2015, 0, 1 + i % 365),
        updated_at: date(2024, i % 12, 1 + i % 28),
    }
}

const TITLE_PREFIXES: [&str; 10] = [
    "Add",
    "Deprecate",
    "Fix",
    "Handle",
    "Improve",
    "Migrate",
    "Refactor",
    "Remove",
    "Support",
    "Update",
];

const TITLE_SUBJECTS: [&str; 20] = [
    "type inference for nested schemas",
    "race condition in concurrent fetches",
    "memory leak in subscription manager",
    "cache invalidation after mutation",
    "optimistic update rollback on error",
    "SSR hydration mismatch",
    "pagination with cursor-based endpoints",
    "retry logic for network failures",
    "stale-while-revalidate behavior",
    "normalized entity merging",
    "query parameter serialization",
    "WebSocket reconnection handling",
    "bundle size reduction for tree-shaking",
    "TypeScript strict mode compatibility",
    "React 19 concurrent features",
    "error boundary integration",
    "middleware execution order",
    "batch request coalescing",
    "schema validation at runtime",
    "offline-first data synchronization",
];

const REPOSITORY_URL: &str = "https://api.github.com/repos/owner/repo";

fn issue(i: usize, users: &[Rc<User>], labels: &[Rc<Label>]) -> Issue {
    let number = i as u64 + 1;
    let state = if i % 3 == 2 {
        IssueState::Closed
    } else {
        IssueState::Open
    };
    Issue {
        id: 100_000 + number,
        number,
        title: format!(
            "{} {}",
            TITLE_PREFIXES[i % TITLE_PREFIXES.len()],
            TITLE_SUBJECTS[i % TITLE_SUBJECTS.len()]
        ),
        body: format!(
            "Description for issue #{number}: a moderately long text field that exercises \
             serialization and storage overhead in the benchmark."
        ),
        state,
        locked: i.is_multiple_of(20),
        comments: (i % 15) as u32,
        labels: (0..i % 4)
            .map(|l| Rc::clone(&labels[(i + l) % labels.len()]))
            .collect(),
        user: Rc::clone(&users[i % users.len()]),
        html_url: format!("https://github.com/owner/repo/issues/{number}"),
        repository_url: REPOSITORY_URL.to_owned(),
        author_association: if i.is_multiple_of(5) {
            "MEMBER"
        } else {
            "NONE"
        }
        .to_owned(),
        created_at: date(2023, i % 12, 1 + i % 28),
        updated_at: date(2024, i % 12, 1 + i % 28),
        closed_at: (state == IssueState::Closed).then(|| date(2024, i % 12, 5)),
    }
}

/// The issue the reference's server creates for `New Issue` by `user`:
/// number `number`, open, no labels.
pub fn created_issue(number: u64, user: Rc<User>) -> Issue {
    let now = date(2025, 0, 1);
    Issue {
        id: 300_000 + number,
        number,
        title: "New Issue".to_owned(),
        body: String::new(),
        state: IssueState::Open,
        locked: false,
        comments: 0,
        labels: Vec::new(),
        user,
        html_url: format!("https://github.com/owner/repo/issues/{number}"),
        repository_url: REPOSITORY_URL.to_owned(),
        author_association: "NONE".to_owned(),
        created_at: now.clone(),
        updated_at: now,
        closed_at: None,
    }
}
