//! The server renders the page with its data; the browser takes the
//! server's cache and hydrates the page without a request, fallbacks
//! included.

use std::time::Duration;

use serde_json::json;

use crate::harness::Running;

/// The routes the start page reads, and how many reads each serves
/// (`/todos` twice: every todo, and Leanne's through `?userId=1`).
const START_READS: [(&str, usize); 5] = [
    ("GET /users", 1),
    ("GET /todos", 2),
    ("GET /profiles", 1),
    ("GET /profiles/1", 1),
    ("GET /posts", 1),
];

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn the_first_html_has_the_todos_and_hydration_makes_no_request() {
    Running::test(|app| async move {

    let html = reqwest::get(&app.url).await.unwrap().text().await.unwrap();
    for shown in [
        "Leanne Graham’s todos",
        "delectus aut autem",
        "<strong>3</strong> open",
        "Ada Lovelace",
        "Post 5",
        "id=\"restcache-handoff\"",
    ] {
        assert!(html.contains(shown), "the server's page shows {shown:?}");
    }
    assert!(!html.contains("Loading"), "no read was left loading");

    let hits = || START_READS.map(|(route, _)| app.api.hits(route));
    let before = hits();
    app.open("").await;
    // Whatever the page would ask for once hydrated, it asks at once;
    // give it the time to.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let page = app.page().await;
    let after = hits();
    let made: Vec<_> = START_READS
        .iter()
        .zip(after.iter().zip(before))
        .map(|((route, _), (after, before))| (*route, after - before))
        .collect();
    let once: Vec<_> = START_READS.to_vec();
    assert_eq!(made, once, "each read made once, by the server");
    assert_eq!(page.api_requests, 0, "the browser asked the API for nothing");
    assert_eq!(page.count.as_deref(), Some("3"));
    assert_eq!(page.badges, ["2", "1", "0"]);
    assert_eq!(page.todos.len(), 3);
    assert_eq!(page.posts, 5);

    let times = app
        .browser
        .execute(
            "const at = (n) => { const e = performance.getEntriesByName(n)[0]; return e ? e.startTime : null; };
             return { paint: at('first-contentful-paint'), hydrated: at('hydrated') };",
            vec![],
        )
        .await
        .unwrap();
    println!(
        "first contentful paint {} ms, hydrated at {} ms, API requests after hydration: {}",
        times["paint"], times["hydrated"], page.api_requests
    );
    assert!(times["paint"].is_number(), "the page painted: {times}");
    assert!(times["hydrated"].is_number(), "the app marked its hydration: {times}");

    app.screenshot("todo-app").await;
    })
    .await;
}

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn a_fallback_the_server_showed_hydrates_and_its_retry_recovers() {
    Running::test(|app| async move {
        app.open("?profile=3").await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let page = app.page().await;
        assert_eq!(
            page.failed,
            ["Could not load this profile: it is not there (404)."],
            "the server's fallback, kept by hydration"
        );
        assert_eq!(
            app.api.hits("GET /profiles/3"),
            1,
            "asked once, by the server"
        );
        assert_eq!(page.todos.len(), 3, "the rest of the page is live");

        app.create_profile_3().await;
        app.click_text("Retry").await;
        let page = app
            .until("the card of the new profile", |p| {
                p.card.as_deref() == Some("Alan Turing")
            })
            .await;
        assert!(page.failed.is_empty());
        assert_eq!(app.api.hits("GET /profiles/3"), 2);
    })
    .await;
}

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn a_title_that_closes_the_script_tag_crosses_intact() {
    Running::test(|app| async move {
        let title = "</script><!-- <script>alert(1)</script>";
        app.create(
            "todos",
            json!({"userId": 1, "title": title, "completed": false}),
        )
        .await;

        app.open("").await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let page = app.page().await;
        assert!(
            page.titles().contains(&title),
            "the title shows as written: {:?}",
            page.titles()
        );
        assert_eq!(page.count.as_deref(), Some("4"));
        assert_eq!(page.api_requests, 0, "the whole cache crossed");
        let injected = app
            .browser
            .execute(
                "return [...document.scripts].some((s) => s.textContent.includes('alert'));",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(injected, json!(false), "the title made no script");
    })
    .await;
}

#[tokio::test]
#[ignore = "needs the bundle and chromedriver: scripts/test.sh runs it"]
async fn a_page_rendered_while_the_api_is_down_recovers_from_its_switch() {
    Running::test(|app| async move {
        app.api.set_outage(true);
        app.open("").await;
        let page = app.page().await;
        assert_eq!(page.failed.len(), 5, "every region's fallback: {page:#?}");
        assert!(page.todos.is_empty());
        let switch = app.find("#outage").await;
        assert!(
            switch.is_selected().await.unwrap(),
            "the switch says it is on"
        );
        app.screenshot("todo-app-down").await;

        app.click("label[for='outage']").await;
        app.until_api("the outage switched off", |api| !api.outage())
            .await;
        app.click("main .failed button").await;
        let page = app.until("Leanne's todos", |p| p.todos.len() == 3).await;
        assert_eq!(
            page.failed.len(),
            4,
            "the other regions wait for their retry"
        );
    })
    .await;
}
