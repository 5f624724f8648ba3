//! The simulated network, as the reference simulates it: every answer of
//! the API is JSON text that arrives 40 ms plus 1 ms per 20 records after
//! the request (a `setTimeout`). The API does its work while the answer
//! travels, as a server on another machine would, so its own time is
//! hidden in the delay.

use std::rc::Rc;

use serde::Serialize;

use crate::data::{Issue, IssueQuery, IssueState};
use crate::server::Server;
use crate::timing::delay;

/// What every answer takes, in milliseconds.
const BASE_LATENCY_MS: usize = 40;
/// How many records one more millisecond carries.
const RECORDS_PER_MS: usize = 20;

/// The milliseconds an answer of `records` records takes to arrive.
fn latency(records: usize) -> i32 {
    let ms = BASE_LATENCY_MS + records.div_ceil(RECORDS_PER_MS);
    i32::try_from(ms).expect("a latency fits a timer")
}

/// The answer `body` of `records` records, once it has arrived: the
/// delay starts before `body` is made.
async fn answer<T: Serialize>(records: usize, body: impl FnOnce() -> T) -> String {
    let arrival = delay(latency(records));
    let text = serde_json::to_string(&body()).expect("records serialize");
    arrival.await.expect("a timer never fails");
    text
}

/// The simulated API, reached over the simulated network.
#[derive(Clone, PartialEq)]
pub struct Network(Server);

impl Network {
    pub fn new(server: Server) -> Self {
        Network(server)
    }

    /// `GET /issues?count=&state=`: the issues `query` names.
    pub async fn issues(&self, query: IssueQuery) -> String {
        let issues = self.0.list(query);
        answer(issues.len(), move || issues).await
    }

    /// `GET /issues/:number`.
    pub async fn issue(&self, number: u64) -> String {
        answer(1, || self.0.issue(number)).await
    }

    // The writes resolve once their answer (the record written, or the
    // deleted issue's number) has arrived; the baseline app, like the
    // reference's, reads nothing from it and fetches its lists again.

    /// `PUT /issues/:number` with a new title.
    pub async fn retitle(&self, number: u64, title: &str) {
        answer(1, || self.0.retitle(number, title)).await;
    }

    /// `PUT /issues/:number` with a new state.
    pub async fn set_state(&self, number: u64, state: IssueState) {
        answer(1, || self.0.set_state(number, state)).await;
    }

    /// `PUT /users/:login` with a new name.
    pub async fn rename(&self, login: &str, name: &str) {
        answer(1, || self.0.rename(login, name)).await;
    }

    /// `POST /issues`.
    pub async fn create(&self, issue: Rc<Issue>) {
        answer(1, || self.0.create(issue)).await;
    }

    /// `DELETE /issues/:number`.
    pub async fn delete(&self, number: u64) {
        answer(1, || {
            self.0.delete(number);
            serde_json::json!({ "number": number })
        })
        .await;
    }
}
