//! A record from another tab keeps this tab's own fields (those serde
//! never reads, `#[serde(skip)]`): at its top, and in the records nested
//! in it. Every other field is the other tab's, one it cleared too.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::tabs::{LocalChannel, TabLink, TabSync};

/// A note with a mark this tab keeps for itself (`#[serde(skip)]`).
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Note {
    id: u64,
    text: String,
    #[serde(skip)]
    starred: bool,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    due: Option<String>,
}

fn note(text: &str, starred: bool, due: Option<&str>) -> Note {
    Note {
        id: 1,
        text: text.into(),
        starred,
        due: due.map(str::to_owned),
    }
}

/// A folder holding a note; only folders are synced.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Folder {
    id: u64,
    #[entity(nested)]
    note: Rc<Note>,
}

/// Two tabs syncing the records of `E`, with no server.
fn two_tabs_syncing<E: Entity + Serialize + serde::de::DeserializeOwned>(
    name: &str,
) -> (Controller, Controller, [TabLink; 2]) {
    let channel = LocalChannel::new();
    let sync = TabSync::new(name).entity::<E>();
    let client = || Client::new("http://127.0.0.1:9");
    let (one, two) = (Controller::new(client()), Controller::new(client()));
    let links = [
        one.sync_tabs(&sync.clone().over(channel.clone())),
        two.sync_tabs(&sync.over(channel)),
    ];
    (one, two, links)
}

#[tokio::test]
async fn a_record_from_another_tab_keeps_this_tabs_own_fields() {
    let (one, two, _links) = two_tabs_syncing::<Note>("notes");
    two.set_entity(note("draft", true, Some("monday")), two.write_time())
        .unwrap();
    // Tab one clears the due date: its copy leaves `due` out.
    one.set_entity(note("final", false, None), one.write_time())
        .unwrap();
    let shown = two
        .with_store(|store| store.get_entity::<Note>(1u64).into_value())
        .unwrap();
    assert_eq!(
        (shown.text.as_str(), shown.starred, shown.due.as_deref()),
        ("final", true, None),
        "the other tab's text and cleared date, this tab's star"
    );
}

#[tokio::test]
async fn a_record_nested_in_another_tabs_record_keeps_this_tabs_own_fields() {
    let (one, two, _links) = two_tabs_syncing::<Folder>("folders");
    let folder = |text: &str, starred, due: Option<&str>| Folder {
        id: 7,
        note: Rc::new(note(text, starred, due)),
    };
    two.set_entity(folder("draft", true, Some("monday")), two.write_time())
        .unwrap();
    one.set_entity(folder("final", false, None), one.write_time())
        .unwrap();
    let shown = two
        .with_store(|store| store.get_entity::<Folder>(7u64).into_value())
        .unwrap();
    let note = &shown.note;
    assert_eq!(
        (note.text.as_str(), note.starred, note.due.as_deref()),
        ("final", true, None),
        "the nested note: the other tab's text and cleared date, this tab's star"
    );
}
