//! A profile card (the demo API writes profile ids as strings).

use restcache::yew::use_suspense;
use yew::prelude::*;

use crate::api::{ProfileResource, ProfileResourceParams};

#[derive(Properties, PartialEq)]
pub struct ProfileCardProps {
    /// The profile's id, as the API writes it (`"1"`).
    pub id: AttrValue,
}

/// The card of one profile: initials, name and bio.
#[component]
pub fn ProfileCard(props: &ProfileCardProps) -> HtmlResult {
    let params = ProfileResourceParams {
        id: props.id.to_string(),
    };
    let profile = use_suspense(&ProfileResource::get(), params)?;
    let initials: String = profile
        .full_name
        .split_whitespace()
        .filter_map(|word| word.chars().next())
        .collect();
    Ok(html! {
        <section class="card" aria-labelledby="card-heading">
            <span class="avatar" aria-hidden="true">{ initials }</span>
            <div>
                <h2 id="card-heading">{ &profile.full_name }</h2>
                <p>{ &profile.bio }</p>
                <p class="by">{ format!("profile {}", profile.id) }</p>
            </div>
        </section>
    })
}
