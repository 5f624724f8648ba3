//! `resource!` with params named as serde says: the placeholder follows
//! its field.

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Note {
    id: u64,
}

resource!(pub NoteResource {
    path: "/users/:user_id/notes/:id",
    schema: Note,
    params: #[serde(rename_all = "camelCase")] { user_id: u64 },
});

fn main() {
    let note = NoteResourceParams { user_id: 7, id: 2 };
    let url = NoteResource::get().url("http://127.0.0.1:8080", &note).unwrap();
    assert_eq!(url, "http://127.0.0.1:8080/users/7/notes/2");
}
