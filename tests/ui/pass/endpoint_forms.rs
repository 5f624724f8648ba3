//! Every form of `endpoint!` the docs show.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::rest::Kind;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct User {
    id: u64,
}

#[derive(Schema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    #[schema(nested)]
    results: Vec<Rc<User>>,
    next_page: String,
}

pub struct UserResource;

// A GET whose path escapes its `?`.
endpoint!(pub user_page { path: "/users\\?page=:page", schema: Page });

// An RPC in another type's impl, its placeholder typed.
endpoint!(pub UserResource::make_manager {
    method: POST,
    path: "/users/:id/make_manager",
    schema: serde_json::Value,
    params: { id: u64 },
});

// A POST that reads (no side effect), with no params.
endpoint!(pub current_user { method: POST, path: "/current_user/", schema: Rc<User>, side_effect: false });

// Params not in the path go into the query string.
endpoint!(pub search {
    path: "/users/search/:term",
    schema: Vec<Rc<User>>,
    params: { limit: Option<u32>, tags: Vec<String> },
});

// Params named as the server names them: serde's attributes on the
// struct and on each field; a placeholder follows its field's name.
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

// A params type of one's own; its placeholders are fields of it.
#[derive(Clone, Serialize)]
pub struct Filter {
    team: u64,
    #[serde(rename = "q")]
    text: String,
}
endpoint!(pub filtered { path: "/teams/:team/users", schema: Vec<Rc<User>>, params: Filter });

// Two owners' endpoints of one name: two params structs.
pub struct TeamResource;
endpoint!(pub UserResource::by_name { path: "/users/by/:name", schema: Vec<Rc<User>> });
endpoint!(pub TeamResource::by_name { path: "/teams/by/:name", schema: serde_json::Value });

// A paginated list: its decoder reads the headers, its page params are
// named as the server names them.
endpoint!(pub UserResource::pages {
    path: "/users",
    schema: restcache::Page<User>,
    params: { #[serde(rename = "_page")] page: u32, #[serde(rename = "_limit")] limit: u32 },
    decode: restcache::Page::from_headers,
    paginated_by: "_page",
    page_size: "_limit",
});

// Other methods, and nothing in the body.
endpoint!(pub touch { method: PUT, path: "/touch", schema: () });
endpoint!(pub rename { method: PATCH, path: "/names/:id", schema: serde_json::Value });
endpoint!(pub forget { method: DELETE, path: "/sessions/:id", schema: () });

fn main() {
    let base = "http://127.0.0.1:8080";
    let page = UserPageParams { page: "2".into() };
    assert_eq!(user_page().url(base, &page).unwrap(), "http://127.0.0.1:8080/users?page=2");
    let id = UserResourceMakeManagerParams { id: 3 };
    assert_eq!(UserResource::make_manager().key(base, &id).unwrap(), "POST http://127.0.0.1:8080/users/3/make_manager");
    assert_eq!(UserResource::make_manager().kind(), Kind::Mutate);
    assert_eq!(current_user().kind(), Kind::Read);
    let query = SearchParams { term: "a".into(), limit: Some(5), tags: vec!["x".into()] };
    assert_eq!(search().url(base, &query).unwrap(), "http://127.0.0.1:8080/users/search/a?limit=5&tags=x");
    assert_eq!(touch().kind(), Kind::Mutate);
    let _ = (rename(), forget(), RenameParams { id: "n".into() }, ForgetParams { id: "s".into() });
    let team = ByTeamParams { team_id: 4, is_active: None, page_size: 10 };
    assert_eq!(by_team().url(base, &team).unwrap(), "http://127.0.0.1:8080/teams/4/users?pageSize=10");
    let team = ByTeamParams { is_active: Some(false), ..team };
    assert_eq!(by_team().url(base, &team).unwrap(), "http://127.0.0.1:8080/teams/4/users?active=false&pageSize=10");
    let filter = Filter { team: 2, text: "ada lovelace".into() };
    assert_eq!(filtered().url(base, &filter).unwrap(), "http://127.0.0.1:8080/teams/2/users?q=ada%20lovelace");
    let _ = (UserResourceByNameParams { name: "a".into() }, TeamResourceByNameParams { name: "b".into() });
    let _ = (UserResource::by_name(), TeamResource::by_name());
    let pages = UserResource::pages();
    let pagination = pages.pagination().unwrap();
    assert_eq!((pagination.field, pagination.size), ("_page", Some("_limit")));
    let (one, two) = (UserResourcePagesParams { page: 1, limit: 9 }, UserResourcePagesParams { page: 2, limit: 9 });
    assert_eq!(pages.key(base, &one).unwrap(), pages.key(base, &two).unwrap());
}
