//! The posts, five at a time, with a "Load more" button: the next page
//! joins the list on show, which never goes back to a loading state.

use restcache::yew::{NextPageLoader, use_next_page, use_suspense};
use yew::prelude::*;

use crate::actions::reason;
use crate::api::{FIRST_POSTS, UserResource, post_pages};

/// The posts, and who wrote each.
#[component]
pub fn Posts() -> HtmlResult {
    let posts = use_suspense(&post_pages(), FIRST_POSTS);
    let users = use_suspense(&UserResource::get_list(), ());
    let NextPageLoader {
        load,
        more,
        loading,
        error,
    } = use_next_page(&post_pages(), FIRST_POSTS);
    let (posts, users) = (posts?, users?);
    let author = |id: u64| {
        users
            .iter()
            .find(|u| u.id == id)
            .map_or_else(|| format!("person {id}"), |u| u.name.clone())
    };
    let shown = posts.items.len();
    let total = posts
        .total
        .map_or_else(String::new, |total| format!(" of {total}"));
    Ok(html! {
        <section class="posts" aria-labelledby="posts-heading">
            <h2 id="posts-heading">{ "Posts" }</h2>
            <ol>
                { for posts.items.iter().map(|post| html! {
                    <li key={post.id}>
                        <h3>{ &post.title }</h3>
                        <p>{ &post.content }</p>
                        <p class="by">{ format!("by {}", author(post.user_id)) }</p>
                    </li>
                }) }
            </ol>
            <p class="summary">{ format!("{shown}{total} posts") }</p>
            // Never disabled, so it keeps the focus: a press while a page
            // loads waits for that page.
            if more {
                <button type="button" aria-busy={loading.then_some("true")} onclick={move |_| load.emit(())}>
                    { if loading { "Loading…" } else { "Load more" } }
                </button>
            }
            if let Some(error) = error {
                <p class="failed" role="alert">{ format!("Could not load more: {}.", reason(&error)) }</p>
            }
        </section>
    })
}
