//! Moving around the app: another person's todos (loading once, never
//! again for what is cached), a broken link and its retry, "Load more",
//! and a tab that comes back into view after its data went stale.

use std::time::Duration;

use restcache_todo_app::api::FRESH_FOR;
use serde_json::json;

use crate::harness::Running;

/// Counts, from now on, every time a loading placeholder comes on show.
const WATCH_LOADING: &str = r#"
window.loadingShown = 0;
let shown = !!document.querySelector('.loading');
new MutationObserver(() => {
  const now = !!document.querySelector('.loading');
  if (now && !shown) window.loadingShown += 1;
  shown = now;
}).observe(document.body, { childList: true, subtree: true });
"#;

async fn loading_shown(app: &Running) -> u64 {
    let shown = app
        .browser
        .execute("return window.loadingShown;", vec![])
        .await
        .unwrap();
    shown.as_u64().expect("the watch is on")
}

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn people_links_and_more_posts_load_once_and_never_flash() {
    Running::test(|app| async move {
        app.open("").await;
        app.browser.execute(WATCH_LOADING, vec![]).await.unwrap();

        app.click(".people a[href='?user=2&profile=1']").await;
        let page = app
            .until("Ervin's todos", |p| {
                p.heading.as_deref() == Some("Ervin Howell’s todos")
            })
            .await;
        assert_eq!(
            page.titles(),
            ["et porro tempora", "laboriosam mollitia et enim quasi"]
        );
        assert_eq!(loading_shown(&app).await, 1, "his todos were not cached");

        app.click(".people a[href='?user=1&profile=1']").await;
        app.until("Leanne's todos", |p| {
            p.heading.as_deref() == Some("Leanne Graham’s todos") && p.todos.len() == 3
        })
        .await;
        assert_eq!(loading_shown(&app).await, 1, "hers were: no loading state");
        let address = app.browser.current_url().await.unwrap();
        assert_eq!(
            address.query(),
            Some("user=1&profile=1"),
            "the address follows"
        );

        // Back returns to Ervin's todos, from the cache.
        app.browser.back().await.unwrap();
        app.until("Ervin's todos again", |p| {
            p.heading.as_deref() == Some("Ervin Howell’s todos")
        })
        .await;
        assert_eq!(loading_shown(&app).await, 1, "cached: no loading state");
        app.browser.forward().await.unwrap();
        app.until("Leanne's todos again", |p| {
            p.heading.as_deref() == Some("Leanne Graham’s todos")
        })
        .await;

        // More posts join the list on show.
        let before = app.api.hits("GET /posts");
        app.click_text("Load more").await;
        app.until("ten posts", |p| p.posts == 10).await;
        assert_eq!(app.api.hits("GET /posts"), before + 1);
        assert_eq!(
            loading_shown(&app).await,
            1,
            "the list never went back to loading"
        );

        // A broken link: its card's boundary shows the error and a retry.
        app.click_text("A broken link").await;
        let page = app.until("the error", |p| !p.failed.is_empty()).await;
        assert_eq!(
            page.failed,
            ["Could not load this profile: it is not there (404)."]
        );
        assert_eq!(page.todos.len(), 3, "the rest of the page stays");
        app.create_profile_3().await;
        app.click_text("Retry").await;
        app.until("the card", |p| p.card.as_deref() == Some("Alan Turing"))
            .await;
    })
    .await;
}

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn a_tab_shown_again_refetches_what_went_stale() {
    Running::test(|app| async move {
    app.open("").await;
    app.browser
        .execute(
            "window.seen = []; document.addEventListener('visibilitychange', () => seen.push(document.visibilityState));",
            vec![],
        )
        .await
        .unwrap();

    // Hidden and shown while fresh: nothing to fetch.
    let todos = app.api.hits("GET /todos");
    hide_and_show(&app).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(app.api.hits("GET /todos"), todos, "fresh data is not fetched again");

    // Once stale, showing the tab again refetches every mounted read of
    // the todos: all of them (the counts) and Leanne's.
    tokio::time::sleep(FRESH_FOR).await;
    hide_and_show(&app).await;
    app.until_api("both todo lists refetched", |api| {
        api.hits("GET /todos") == todos + 2
    })
    .await;
    let seen = app.browser.execute("return window.seen;", vec![]).await.unwrap();
    assert_eq!(seen, json!(["hidden", "visible", "hidden", "visible"]));
    let page = app.page().await;
    assert_eq!(page.todos.len(), 3, "on show all along");
    })
    .await;
}

/// Opens a second tab in front of the app's, then comes back.
async fn hide_and_show(app: &Running) {
    let ours = app.browser.window().await.unwrap();
    let other = app.browser.new_window(true).await.unwrap();
    app.browser.switch_to_window(other.handle).await.unwrap();
    app.browser.goto("about:blank").await.unwrap();
    app.browser.close_window().await.unwrap();
    app.browser.switch_to_window(ours).await.unwrap();
}
