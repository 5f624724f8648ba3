//! `#[derive(Entity)]` with a version field: the server says which copy
//! is newer.

use std::cmp::Ordering;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Doc {
    id: u64,
    #[entity(version)]
    updated_at: Option<String>,
}

fn main() {
    let old = Doc { id: 1, updated_at: Some("2026-01-01".into()) };
    let new = Doc { id: 1, updated_at: Some("2026-02-01".into()) };
    assert_eq!(new.compare_version(&old), Some(Ordering::Greater));
}
