//! The page that keeps its cache (`/saved`), reloaded for real: the
//! saved todos show with no request, and renames made offline survive a
//! reload, then go, in order, from the reloaded page with the network
//! back.

use fantoccini::key::Key;

use crate::harness::Running;

const DATABASE: &str = "restcache-todo-app";

/// Renames the todo titled `from` to `to`, as a person does.
async fn rename(app: &Running, from: &str, to: &str) {
    app.click(&format!("[aria-label='Rename “{from}”']")).await;
    let page = app
        .until("the rename field has the focus", |p| {
            p.focus.starts_with("todo-")
        })
        .await;
    let field = app.find(&format!("#{}", page.focus)).await;
    field.send_keys(to).await.unwrap();
    field
        .send_keys(&char::from(Key::Enter).to_string())
        .await
        .unwrap();
    app.until("the new title", |p| p.titles().contains(&to))
        .await;
}

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn a_reload_shows_the_saved_todos_and_renames_made_offline_survive_it() {
    Running::test(|app| async move {
        app.open("saved").await;
        app.until("Leanne's todos", |p| {
            p.titles().contains(&"delectus aut autem")
        })
        .await;
        let reads = app.api.hits("GET /todos");
        let people = app.api.hits("GET /users");
        assert!(reads >= 1, "the first load reads the todos");
        let started = std::time::Instant::now();
        while !app
            .saved(DATABASE, DATABASE)
            .await
            .contains("delectus aut autem")
        {
            assert!(started.elapsed().as_secs() < 30, "the cache is never saved");
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }

        // A real reload: the saved todos show, with no request.
        app.browser.refresh().await.expect("the page reloads");
        let page = app
            .until("the saved todos after the reload", |p| {
                p.hydrated && p.titles().contains(&"delectus aut autem")
            })
            .await;
        assert_eq!(page.count.as_deref(), Some("3"), "the header's count too");
        assert_eq!(app.api.hits("GET /todos"), reads, "no read of the todos");
        assert_eq!(app.api.hits("GET /users"), people, "nor of the people");
        app.screenshot("saved-after-reload").await;

        // Offline: two renames wait, on show, and are saved at once.
        app.network_event(false).await;
        rename(&app, "delectus aut autem", "first").await;
        rename(&app, "first", "second").await;
        let started = std::time::Instant::now();
        while !app.saved(DATABASE, DATABASE).await.contains("\"second\"") {
            assert!(
                started.elapsed().as_secs() < 30,
                "the renames are never saved"
            );
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        assert_eq!(app.api.hits("PATCH /todos/1"), 0, "nothing sent offline");

        // The page is reloaded; the new page finds the network up: it shows
        // the last rename at once, from the saved queue alone (the server
        // never saw it), and sends both, in order.
        app.browser.refresh().await.expect("the page reloads");
        app.until("the waiting rename after the reload", |p| {
            p.hydrated && p.titles().contains(&"second")
        })
        .await;
        app.until_api("both renames reached the server", |api| {
            api.hits("PATCH /todos/1") == 2 && api.records("todos")[0]["title"] == "second"
        })
        .await;
        let page = app
            .until("the confirmed title", |p| {
                p.titles().contains(&"second") && p.todos.iter().all(|t| !t.draft)
            })
            .await;
        assert!(page.notice.is_none(), "no failure was shown: {page:?}");
        app.screenshot("saved-after-replay").await;
    })
    .await;
}

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn a_change_refused_after_the_reload_is_undone_with_a_notice() {
    Running::test(|app| async move {
        app.open("saved").await;
        app.until("Leanne's todos", |p| {
            p.titles().contains(&"delectus aut autem")
        })
        .await;
        app.network_event(false).await;
        rename(&app, "delectus aut autem", "renamed offline").await;
        let started = std::time::Instant::now();
        while !app
            .saved(DATABASE, DATABASE)
            .await
            .contains("renamed offline")
        {
            assert!(
                started.elapsed().as_secs() < 30,
                "the rename is never saved"
            );
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }

        // The API is down when the reloaded page sends the rename.
        app.api.set_outage(true);
        app.browser.refresh().await.expect("the page reloads");
        let page = app
            .until("the notice, and the title as it was", |p| {
                p.notice.is_some() && p.titles().contains(&"delectus aut autem")
            })
            .await;
        assert_eq!(
            page.notice.as_deref(),
            Some(
                "Could not save a change made before the reload: the API is down (503). \
                 The change was undone."
            )
        );
        app.api.set_outage(false);
        app.screenshot("saved-refused-after-reload").await;
    })
    .await;
}
