//! restcache in one run: starts the embedded demo API on 127.0.0.1,
//! declares a resource, and shows how the cache answers: identical reads
//! share one request, a mutation shows in the cached list with no refetch,
//! a create joins the list, a delete leaves it, and a failed refetch keeps
//! the stale data on show beside its error.
//!
//!     cargo run --example quickstart

use std::rc::Rc;
use std::time::Duration;

use futures_util::future::join_all;
use restcache::prelude::*;
use restcache_demo::DemoApi;
use serde_json::json;

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Todo {
    id: u64,
    user_id: u64,
    title: String,
    completed: bool,
}

// GET /todos/:id, GET /todos, POST /todos, PUT|PATCH|DELETE /todos/:id.
resource!(TodoResource {
    path: "/todos/:id",
    schema: Todo
});

fn show(list: &[Rc<Todo>]) -> String {
    let line = |t: &Rc<Todo>| {
        format!(
            "    [{}] {} {}",
            if t.completed { "x" } else { " " },
            t.id,
            t.title
        )
    };
    list.iter().map(line).collect::<Vec<_>>().join("\n")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let api = DemoApi::start()?;
    api.set_delay(Duration::from_millis(100)); // a slow network, so reads overlap
    println!("demo API on {}\n", api.url());
    let ctrl = Controller::new(Client::new(api.url()));
    let todos = TodoResource::get_list();

    // 1. Three components ask for the list at once: one request.
    let lists = join_all((0..3).map(|_| ctrl.fetch(&todos, &(), None))).await;
    let list = lists.into_iter().next().ok_or("no read")??;
    println!(
        "1. three concurrent reads of GET /todos -> {} request(s)",
        api.hits("GET /todos")
    );
    println!("{}\n", show(&list));

    // 2. Read again: the cache answers, fresh for 60 s.
    let cached = ctrl.read(&todos, &());
    println!(
        "2. read again -> {:?}, no request (still {})\n",
        cached.status,
        api.hits("GET /todos")
    );

    // 3. Complete todo 2: the cached list shows it, with no refetch.
    let body = Body::json(&json!({"completed": true}))?;
    ctrl.fetch(
        &TodoResource::partial_update(),
        &TodoResourceParams { id: 2 },
        Some(body),
    )
    .await?;
    let list = ctrl.read(&todos, &()).data.ok_or("list gone")?;
    println!("3. PATCH /todos/2 {{completed: true}} -> the cached list shows it:");
    println!("{}", show(&list));
    println!(
        "   (GET /todos requests so far: {})\n",
        api.hits("GET /todos")
    );

    // 4. Create one: it joins the cached list.
    let body =
        Body::json(&json!({"userId": 1, "title": "read the restcache docs", "completed": false}))?;
    let created = ctrl.fetch(&TodoResource::create(), &(), Some(body)).await?;
    let list = ctrl.read(&todos, &()).data.ok_or("list gone")?;
    println!(
        "4. POST /todos -> todo {} joins the cached list ({} todos)\n",
        created.id,
        list.len()
    );

    // 5. Delete one: it leaves every list.
    ctrl.fetch(&TodoResource::delete(), &TodoResourceParams { id: 1 }, None)
        .await?;
    let list = ctrl.read(&todos, &()).data.ok_or("list gone")?;
    println!("5. DELETE /todos/1 -> the cached list drops it:");
    println!("{}\n", show(&list));

    // 6. The data goes stale and the server is down: the refetch fails
    //    softly, and the stale data stays on show beside the error.
    ctrl.expire_all(|key| key.ends_with("/todos"));
    api.set_outage(true);
    let stale = ctrl.read(&todos, &());
    println!(
        "6. expired -> {:?}: refetch in the background while showing it",
        stale.status
    );
    let failed = ctrl
        .fetch(&todos, &(), None)
        .await
        .err()
        .ok_or("the outage did not fail")?;
    let cached = ctrl.read(&todos, &());
    let shown = cached.data.as_ref().map_or(0, |l| l.len());
    println!("   refetch -> {failed}");
    println!(
        "   soft error: {}; still showing {shown} todos\n",
        failed.is_soft()
    );
    api.set_outage(false);

    // 7. A hard error (404) is what an error boundary shows.
    let missing = ctrl
        .fetch(&TodoResource::get(), &TodoResourceParams { id: 999 }, None)
        .await;
    if let Err(error) = missing {
        println!("7. GET /todos/999 -> hard error: {}", error.is_hard());
        println!("   {error}");
    }
    Ok(())
}
