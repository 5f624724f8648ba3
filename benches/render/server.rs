//! The simulated API's records and what it does with them, in memory: it
//! starts with the fixture, lists issues in its order (created issues
//! first), and applies the changes the baseline app sends it. The apps
//! with a network reach it through [`Network`](crate::network::Network);
//! the floor app takes its first records straight from it.

use std::cell::RefCell;
use std::rc::Rc;

use crate::data::{Issue, IssueQuery, IssueState, User, fixture};

/// The simulated API. Clones share its records.
#[derive(Clone)]
pub struct Server(Rc<RefCell<Vec<Rc<Issue>>>>);

impl PartialEq for Server {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Server {
    /// An API holding the fixture's issues, numbers 1 to 10,000 in order.
    pub fn new() -> Self {
        Server(Rc::new(RefCell::new(fixture())))
    }

    /// The issues `query` names.
    pub fn list(&self, query: IssueQuery) -> Vec<Rc<Issue>> {
        let issues = self.0.borrow();
        let matches = |issue: &&Rc<Issue>| query.state.is_none_or(|state| issue.state == state);
        issues
            .iter()
            .filter(matches)
            .take(query.count)
            .cloned()
            .collect()
    }

    /// Issue `number`.
    pub fn issue(&self, number: u64) -> Rc<Issue> {
        let issues = self.0.borrow();
        let issue = issues.iter().find(|issue| issue.number == number);
        Rc::clone(issue.unwrap_or_else(|| panic!("the API holds no issue {number}")))
    }

    /// The user `login`, as the API's issues hold them.
    pub fn user(&self, login: &str) -> Rc<User> {
        let issues = self.0.borrow();
        let issue = issues.iter().find(|issue| issue.user.login == login);
        Rc::clone(&issue.unwrap_or_else(|| panic!("no issue of {login}")).user)
    }

    /// Replaces issue `number` by what `change` makes of it; returns it.
    fn change_issue(&self, number: u64, change: impl FnOnce(&mut Issue)) -> Rc<Issue> {
        let mut issues = self.0.borrow_mut();
        let issue = issues
            .iter_mut()
            .find(|issue| issue.number == number)
            .unwrap_or_else(|| panic!("the API holds no issue {number}"));
        change(Rc::make_mut(issue));
        Rc::clone(issue)
    }

    /// Gives issue `number` the title `title`; returns it.
    pub fn retitle(&self, number: u64, title: &str) -> Rc<Issue> {
        self.change_issue(number, |issue| issue.title = title.to_owned())
    }

    /// Puts issue `number` in `state`; returns it.
    pub fn set_state(&self, number: u64, state: IssueState) -> Rc<Issue> {
        self.change_issue(number, |issue| issue.state = state)
    }

    /// Gives the user `login` the name `name`, in every issue of theirs;
    /// returns the user.
    pub fn rename(&self, login: &str, name: &str) -> Rc<User> {
        let renamed = Rc::new(User {
            name: name.to_owned(),
            ..(*self.user(login)).clone()
        });
        for issue in self.0.borrow_mut().iter_mut() {
            if issue.user.login == login {
                Rc::make_mut(issue).user = Rc::clone(&renamed);
            }
        }
        renamed
    }

    /// Adds `issue` before every other; returns it.
    pub fn create(&self, issue: Rc<Issue>) -> Rc<Issue> {
        self.0.borrow_mut().insert(0, Rc::clone(&issue));
        issue
    }

    /// Removes issue `number`.
    pub fn delete(&self, number: u64) {
        self.0.borrow_mut().retain(|issue| issue.number != number);
    }
}
