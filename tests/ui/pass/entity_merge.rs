//! `#[derive(Entity)]` with a merge of its own for partial responses.

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
#[entity(merge = keep_nothing)]
struct Whole {
    id: u64,
    note: Option<String>,
}

fn keep_nothing(_: &mut Whole, _: &Whole, absent: &restcache::Absent) {
    let _ = absent.iter().count();
}

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
#[entity(merge = restcache::replace_whole)]
struct Task {
    id: u64,
    assignee: Option<u64>,
}

fn main() {
    let _ = (Whole::default(), Task::default());
}
