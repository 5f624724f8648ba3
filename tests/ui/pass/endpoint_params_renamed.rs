//! `endpoint!` with params named as the server names them: serde's
//! attributes on the struct and on each field.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct User {
    id: u64,
}

endpoint!(pub by_team {
    path: "/teams/:team_id/users",
    schema: Vec<Rc<User>>,
    params: #[serde(rename_all = "camelCase")] {
        /// The team.
        team_id: u64,
        #[serde(rename = "active", skip_serializing_if = "Option::is_none")]
        is_active: Option<bool>,
        page_size: u32,
    },
});

fn main() {
    let base = "http://127.0.0.1:8080";
    let team = ByTeamParams { team_id: 4, is_active: None, page_size: 10 };
    assert_eq!(by_team().url(base, &team).unwrap(), "http://127.0.0.1:8080/teams/4/users?pageSize=10");
    let team = ByTeamParams { is_active: Some(false), ..team };
    assert_eq!(
        by_team().url(base, &team).unwrap(),
        "http://127.0.0.1:8080/teams/4/users?active=false&pageSize=10"
    );
}
