//! Toggle, add, rename and delete, as a person does them: each shows at
//! once, in the list, the header count and the person's count, with one
//! request; with the API down, the change is taken back and a notice
//! says why.

use fantoccini::key::Key;

use crate::harness::Running;

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn a_change_shows_at_once_everywhere_with_one_request() {
    Running::test(|app| async move {
        app.open("").await;

        // Toggle, while the server holds its answer: the todo, the header
        // count and Leanne's count change in the same look at the page.
        let held = app.api.hold();
        app.click("#todo-2").await;
        let page = app
            .until("todo 2 shows done", |p| {
                p.done("quis ut nam facilis et officia qui") == Some(true)
            })
            .await;
        assert_eq!(page.count.as_deref(), Some("2"), "the header, at once");
        assert_eq!(page.badges, ["1", "1", "0"], "Leanne's count, at once");
        assert_eq!(
            app.api.hits("PATCH /todos/2"),
            1,
            "on its way, not answered"
        );
        drop(held);
        app.until_api("the server took the change", |api| {
            api.records("todos")[1]["completed"] == true
        })
        .await;
        assert_eq!(app.api.hits("PATCH /todos/2"), 1, "exactly one PATCH");

        // Add, from the keyboard: type, then Enter.
        let field = app.find("#new-todo").await;
        field.send_keys("Buy milk").await.unwrap();
        field
            .send_keys(&char::from(Key::Enter).to_string())
            .await
            .unwrap();
        let page = app
            .until("the new todo, saved", |p| {
                p.titles().contains(&"Buy milk") && app.api.hits("POST /todos") == 1
            })
            .await;
        assert_eq!(page.count.as_deref(), Some("3"));
        assert_eq!(page.badges, ["2", "1", "0"]);
        let page = app
            .until("the draft replaced by the saved todo", |p| {
                p.todos.iter().all(|t| !t.draft)
            })
            .await;
        assert_eq!(page.todos.len(), 4);
        assert_eq!(page.done("Buy milk"), Some(false));

        // Rename: the field takes the focus with the title selected; typing
        // replaces it, Enter saves.
        app.click("[aria-label='Rename “Buy milk”']").await;
        let page = app
            .until("the rename field has the focus", |p| {
                p.focus.starts_with("todo-")
            })
            .await;
        let field = app.find(&format!("#{}", page.focus)).await;
        field.send_keys("Buy oat milk").await.unwrap();
        field
            .send_keys(&char::from(Key::Enter).to_string())
            .await
            .unwrap();
        app.until("the new title", |p| p.titles().contains(&"Buy oat milk"))
            .await;
        app.until_api("one PATCH of the new todo", |api| {
            api.records("todos")
                .iter()
                .any(|t| t["title"] == "Buy oat milk")
        })
        .await;

        // Delete: it leaves the list and both counts at once.
        app.click("[aria-label='Delete “Buy oat milk”']").await;
        let page = app
            .until("the todo gone", |p| !p.titles().contains(&"Buy oat milk"))
            .await;
        assert_eq!(page.count.as_deref(), Some("2"));
        assert_eq!(page.badges, ["1", "1", "0"]);
        app.until_api("the server deleted it", |api| {
            api.records("todos").len() == 5
        })
        .await;
        let new_id = 6;
        assert_eq!(app.api.hits(&format!("PATCH /todos/{new_id}")), 1);
        assert_eq!(app.api.hits(&format!("DELETE /todos/{new_id}")), 1);
    })
    .await;
}

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn with_the_api_down_a_change_is_taken_back_with_a_notice() {
    Running::test(|app| async move {
    app.open("").await;

    app.click("label[for='outage']").await;
    app.until_api("the outage switched on", |api| api.outage())
        .await;

    app.click("#todo-1").await;
    let page = app
        .until("the notice", |p| p.notice.is_some())
        .await;
    assert_eq!(
        page.notice.as_deref(),
        Some("Could not mark “delectus aut autem” done: the API is down (503). The change was undone.")
    );
    assert_eq!(page.done("delectus aut autem"), Some(false), "taken back");
    assert_eq!(page.count.as_deref(), Some("3"));
    assert_eq!(page.badges, ["2", "1", "0"]);
    assert_eq!(app.api.hits("PATCH /todos/1"), 1);
    app.screenshot("todo-app-outage").await;

    let field = app.find("#new-todo").await;
    field.send_keys("Call Ada").await.unwrap();
    app.click_text("Add").await;
    let page = app
        .until("the add taken back", |p| {
            p.notice.as_deref().is_some_and(|n| n.contains("add “Call Ada”"))
        })
        .await;
    assert!(!page.titles().contains(&"Call Ada"), "the draft left");
    assert_eq!(page.count.as_deref(), Some("3"));

    app.click_text("Dismiss").await;
    app.until("the notice gone", |p| p.notice.is_none()).await;
    app.click("label[for='outage']").await;
    app.until_api("the outage switched off", |api| !api.outage())
        .await;
    app.click("#todo-1").await;
    app.until_api("the change saved", |api| {
        api.records("todos")[0]["completed"] == true
    })
    .await;
    let page = app
        .until("the saved change, on show", |p| {
            p.done("delectus aut autem") == Some(true) && p.count.as_deref() == Some("2")
        })
        .await;
    assert!(page.notice.is_none(), "no notice for a change that saved");
    })
    .await;
}

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn a_change_in_one_window_shows_in_the_other_with_no_request() {
    Running::test(|app| async move {
        app.open("").await;
        let first = app.browser.window().await.unwrap();
        let second = app.browser.new_window(false).await.unwrap();
        app.browser.switch_to_window(second.handle).await.unwrap();
        app.open("").await;
        let reads = app.api.hits("GET /todos");

        app.click("#todo-2").await;
        app.until_api("the server took the change", |api| {
            api.records("todos")[1]["completed"] == true
        })
        .await;
        app.browser.switch_to_window(first).await.unwrap();
        let page = app
            .until("the first window shows it", |p| {
                p.done("quis ut nam facilis et officia qui") == Some(true)
            })
            .await;
        assert_eq!(page.count.as_deref(), Some("2"), "its header too");
        assert_eq!(page.badges, ["1", "1", "0"], "and Leanne's count");
        assert_eq!(app.api.hits("PATCH /todos/2"), 1);
        assert_eq!(app.api.hits("GET /todos"), reads, "with no request");
    })
    .await;
}
