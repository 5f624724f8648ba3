use restcache::prelude::*;

#[derive(Serialize)]
pub struct Filter {
    team_id: u64,
}

// `:team` is not a field of `Filter`.
endpoint!(pub by_team { path: "/teams/:team/users", schema: serde_json::Value, params: Filter });

fn main() {}
