//! `resource!` with every option, documented, on another server.

use std::time::Duration;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Profile {
    id: String,
}

const API: &str = "http://127.0.0.1:9000";

resource!(
    /// Profiles, on another server.
    pub ProfileResource {
        path: "/profiles/:id",
        schema: Profile,
        url_prefix: API,
        data_expiry: Duration::from_secs(30),
        error_expiry: Duration::from_secs(1),
        invalid_if_stale: false,
        poll_frequency: Duration::from_secs(10),
        timeout: Duration::from_secs(5),
        infer: false,
        private: true,
    }
);

fn main() {
    let profile = ProfileResourceParams { id: "ada".into() };
    let url = ProfileResource::get().url("http://127.0.0.1:8080", &profile).unwrap();
    assert_eq!(url, "http://127.0.0.1:9000/profiles/ada");
    let options = ProfileResource::update().options();
    assert!(!options.invalid_if_stale);
    assert_eq!(options.data_expiry, Some(Duration::from_secs(30)));
    assert_eq!(options.error_expiry, Some(Duration::from_secs(1)));
    assert_eq!(options.poll_frequency, Some(Duration::from_secs(10)));
    assert_eq!(options.timeout, Some(Duration::from_secs(5)));
    assert!(!ProfileResource::get().infers());
    assert!(ProfileResource::get_list().is_private() && ProfileResource::partial_update().is_private());
}
