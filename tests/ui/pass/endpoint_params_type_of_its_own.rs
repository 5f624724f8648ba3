//! `endpoint!` with a params type of one's own: its placeholders are
//! fields of it.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct User {
    id: u64,
}

#[derive(Clone, Serialize)]
pub struct Filter {
    team: u64,
    #[serde(rename = "q")]
    text: String,
}

endpoint!(pub filtered { path: "/teams/:team/users", schema: Vec<Rc<User>>, params: Filter });

fn main() {
    let filter = Filter { team: 2, text: "ada lovelace".into() };
    let url = filtered().url("http://127.0.0.1:8080", &filter).unwrap();
    assert_eq!(url, "http://127.0.0.1:8080/teams/2/users?q=ada%20lovelace");
}
