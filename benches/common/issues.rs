//! The shapes of the render benchmark's issues (`benches/render`), made
//! small: each issue nests one of 20 users and up to three of 10 labels.
//! `benches/controller.rs` times edits to a watched list of them.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::rest::JoinAt;

#[derive(Entity, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Label {
    pub id: u64,
    pub name: String,
}

#[derive(Entity, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Person {
    #[entity(pk)]
    pub login: String,
    pub name: String,
}

#[derive(Entity, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Issue {
    #[entity(pk)]
    pub number: u64,
    pub title: String,
    pub body: String,
    #[entity(nested)]
    pub labels: Vec<Rc<Label>>,
    #[entity(nested)]
    pub user: Rc<Person>,
}

resource!(pub IssueResource {
    path: "/issues/:number",
    schema: Issue
});
resource!(pub PersonResource {
    path: "/users/:login",
    schema: Person
});
endpoint!(pub issue_list {
    path: "/issues",
    schema: Vec<Rc<Issue>>
});

/// `count` issues as the render benchmark's list holds them.
pub fn issues(count: usize) -> Vec<Rc<Issue>> {
    let users: Vec<Rc<Person>> = (0..20)
        .map(|i| {
            Rc::new(Person {
                login: format!("user{i}"),
                name: format!("User {i}"),
            })
        })
        .collect();
    let labels: Vec<Rc<Label>> = (0..10)
        .map(|id| {
            Rc::new(Label {
                id,
                name: format!("label {id}"),
            })
        })
        .collect();
    (0..count)
        .map(|i| {
            Rc::new(Issue {
                number: i as u64 + 1,
                title: format!("Issue {}", i + 1),
                body: format!("The body of issue {}", i + 1),
                labels: (0..i % 4)
                    .map(|l| Rc::clone(&labels[(i + l) % 10]))
                    .collect(),
                user: Rc::clone(&users[i % 20]),
            })
        })
        .collect()
}

/// Retitles issue `number` as the render benchmark's update-entity does:
/// read from the cache, edited, and written back as the answer of its
/// update (which puts an issue joining a list at its start).
pub fn retitle(ctrl: &Controller, number: u64, round: u64) {
    let params = IssueResourceParams { number };
    let mut issue = ctrl
        .read(&IssueResource::get(), &params)
        .data
        .expect("the list holds the issue");
    Rc::make_mut(&mut issue).title = format!("edit {round}");
    let update = IssueResource::update().join_at(JoinAt::Start);
    ctrl.set_response(&update, &params, issue)
        .expect("an issue with its number stores");
}

/// Renames user `login` as the render benchmark's update-user does: read
/// from the cache, renamed, and written back as the answer of its update.
pub fn rename(ctrl: &Controller, login: &str, round: u64) {
    let params = PersonResourceParams {
        login: login.to_owned(),
    };
    let user = ctrl
        .read(&PersonResource::get(), &params)
        .data
        .expect("the list holds the user");
    let renamed = Person {
        name: format!("edit {round}"),
        ..(*user).clone()
    };
    ctrl.set_response(&PersonResource::update(), &params, Rc::new(renamed))
        .expect("a user with a login stores");
}

/// What the render benchmark's hand-written floor does for the same
/// rename, with no cache: `issues` with each issue of user `login`
/// rebuilt around the renamed user, every other issue shared.
pub fn renamed_by_hand(issues: &[Rc<Issue>], login: &str, round: u64) -> Vec<Rc<Issue>> {
    let theirs = |issue: &Rc<Issue>| issue.user.login == login;
    let user = issues
        .iter()
        .find(|issue| theirs(issue))
        .map(|issue| &issue.user);
    let renamed = Rc::new(Person {
        name: format!("edit {round}"),
        ..(**user.expect("the list holds the user")).clone()
    });
    let rename = |issue: &Rc<Issue>| match theirs(issue) {
        true => Rc::new(Issue {
            user: Rc::clone(&renamed),
            ..(**issue).clone()
        }),
        false => Rc::clone(issue),
    };
    issues.iter().map(rename).collect()
}
