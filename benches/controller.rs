//! Controller benchmarks: shared reads against a local server, and storing
//! a large response through the controller. Each case has a baseline in
//! the same run, so the figure to quote is a ratio.
//!
//!     cargo bench --bench controller
//!
//! - `controller_100_concurrent_reads_one_key`: 100 concurrent reads of
//!   `GET /todos` on the embedded demo API, from an empty cache; they share
//!   one request. Baselines: `http_1_request` (one plain request) and
//!   `http_100_concurrent_requests` (100 plain requests, no cache).
//! - `controller_set_projects_1000_into_populated_store`: the projects
//!   fixture stored through `Controller::set_response` into a cache that
//!   holds it already. Baseline: `store_set_projects_1000_into_populated_store`,
//!   the same write on a bare `Store`.
//! - `controller_list_detail_list_10_rounds`: a fresh controller reads
//!   the todo list, then ten times a todo's detail and the list again,
//!   each with `ensure` (what a view does on navigation), on the demo API
//!   (its five todos, twice each). The details are answered from the
//!   list's records: one request in all (six before). Baseline:
//!   `http_1_request`.
//! - `controller_write_1_todo_1000_observers`: one todo written through
//!   `Controller::set_response` while 1,000 observers each watch another
//!   todo (and one watches this one). Baseline:
//!   `controller_write_1_todo_no_observers`, the same write with nobody
//!   watching. A ratio near 1 shows that a write re-checks only the
//!   observers of what it touched.
//! - `controller_edit_1_project_of_1000_watched`: one project of the
//!   fixture, read from the cache, renamed and written back through
//!   `Controller::set_response` while a view watches the list of all
//!   1,000 (the observer reads the list again after each write, as a
//!   view re-renders). `controller_rename_1_user_of_1000_projects_watched`:
//!   the same with one of the 50 users (the owner of about one build type
//!   in 50). Baselines: the same writes with nobody watching
//!   (`..._unwatched`); the ratio is what the view's read costs a write.
//! - `controller_edit_issue_1_of_1000_watched`: the cache's part of the
//!   render benchmark's update-entity (`benches/render`), on its shapes
//!   made small (`benches/common/issues.rs`: each issue nests one of 20
//!   users and up to three of 10 labels): issue 1 read from the cache,
//!   retitled, written back as its update's answer, while a view watches
//!   the list of 1,000. `controller_edit_each_issue_of_1000_watched`:
//!   the same, a different issue each time. Their baseline is each
//!   other: a write re-reads what holds the record, whichever it is.
//! - `view_read_of_1000_issues`: what a view's re-render asks of its
//!   observer (`ReadObserver::set` with the same params, then `read`)
//!   for the list of 1,000 issues, nothing changed. Baseline:
//!   `controller_read_of_1000_issues`, the same read through
//!   `Controller::read`; the ratio is what following the read adds.
//! - `controller_rename_1_user_of_10000_issues_watched`: the cache's part
//!   of the render benchmark's update-user-10000: one of the 20 users
//!   read from the cache, renamed and written back while a view watches
//!   a list of 10,000 issues, 500 of them the user's. Baseline:
//!   `by_hand_rename_1_user_of_10000_issues`, what the render
//!   benchmark's hand-written floor does for it (the list rebuilt around
//!   the renamed user, with no cache).

use restcache_demo::fixture;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use futures_util::future::join_all;
use restcache::prelude::*;
use restcache::rest::Readable;
use restcache::{Observe, ReadObserver, Schema};

use fixture::{Project, Projects, Todo, User};
use restcache_demo::DemoApi;

resource!(TodoResource {
    path: "/todos/:id",
    schema: Todo
});
endpoint!(projects {
    path: "/projects",
    schema: Projects
});
resource!(ProjectResource {
    path: "/projects/:id",
    schema: Project
});
resource!(UserResource {
    path: "/users/:id",
    schema: User
});

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

fn shared_reads(c: &mut Criterion) {
    let api = DemoApi::start().expect("the demo API starts");
    let rt = runtime();
    let client = Client::new(api.url());
    let list = TodoResource::get_list();

    c.bench_function("http_1_request", |b| {
        b.iter(|| rt.block_on(client.call(&list, &(), None)).unwrap())
    });
    c.bench_function("http_100_concurrent_requests", |b| {
        b.iter(|| {
            let calls = (0..100).map(|_| client.call(&list, &(), None));
            rt.block_on(join_all(calls))
        })
    });
    c.bench_function("controller_list_detail_list_10_rounds", |b| {
        b.iter(|| {
            let ctrl = Controller::new(client.clone());
            rt.block_on(async {
                ctrl.ensure(&list, &()).await.unwrap();
                for round in 0..10 {
                    let params = TodoResourceParams { id: round % 5 + 1 };
                    ctrl.ensure(&TodoResource::get(), &params).await.unwrap();
                    ctrl.ensure(&list, &()).await.unwrap();
                }
            });
        })
    });
    let ctrl = Controller::new(client.clone());
    c.bench_function("controller_100_concurrent_reads_one_key", |b| {
        b.iter(|| {
            ctrl.reset();
            let reads = (0..100).map(|_| ctrl.fetch(&list, &(), None));
            let results = rt.block_on(join_all(reads));
            assert!(results.iter().all(Result::is_ok));
            results
        })
    });
}

fn set_projects(c: &mut Criterion) {
    let (text, _) = fixture::texts();
    let parsed = || serde_json::from_str::<Projects>(&text).expect("the fixture parses");
    let meta = Meta::fetched(
        Timestamp::from_millis(1),
        Timestamp::from_millis(1),
        Duration::from_secs(60),
    );

    let mut store = Store::new();
    store.set("GET /projects", parsed(), meta).unwrap();
    c.bench_function("store_set_projects_1000_into_populated_store", |b| {
        b.iter_batched(
            parsed,
            |value| store.set("GET /projects", black_box(value), meta).map(drop),
            BatchSize::LargeInput,
        )
    });

    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    ctrl.set_response(&projects(), &(), parsed()).unwrap();
    c.bench_function("controller_set_projects_1000_into_populated_store", |b| {
        b.iter_batched(
            parsed,
            |value| {
                ctrl.set_response(&projects(), &(), black_box(value))
                    .map(drop)
            },
            BatchSize::LargeInput,
        )
    });
    let held = ctrl.with_store(|s| s.entity_count("Project"));
    assert_eq!(held, 1000);
}

fn targeted_notification(c: &mut Criterion) {
    let write = |ctrl: &Controller, title: &str| {
        let todo = Todo {
            id: 0,
            title: title.into(),
            ..Todo::default()
        };
        let params = TodoResourceParams { id: 0 };
        ctrl.set_response(&TodoResource::get(), &params, std::rc::Rc::new(todo))
            .unwrap();
    };
    let quiet = Controller::new(Client::new("http://127.0.0.1:9"));
    write(&quiet, "first");
    let mut round = 0_u64;
    c.bench_function("controller_write_1_todo_no_observers", |b| {
        b.iter(|| {
            round += 1;
            write(&quiet, if round.is_multiple_of(2) { "a" } else { "b" });
        })
    });

    let watched = Controller::new(Client::new("http://127.0.0.1:9"));
    let mut observers = Vec::new();
    for id in 0..=1000 {
        let params = TodoResourceParams { id };
        let todo = Todo {
            id,
            ..Todo::default()
        };
        watched
            .set_response(&TodoResource::get(), &params, std::rc::Rc::new(todo))
            .unwrap();
        let mut observer = ReadObserver::new(&watched, Observe::new().changes());
        observer.set(&TodoResource::get(), &params);
        observer.read();
        observer.subscribe(|| {});
        observers.push(observer);
    }
    c.bench_function("controller_write_1_todo_1000_observers", |b| {
        b.iter(|| {
            round += 1;
            write(&watched, if round.is_multiple_of(2) { "a" } else { "b" });
        })
    });
    assert_eq!(watched.subscriber_count(), 1001);
}

/// A controller holding the projects fixture, and a view of the list
/// when `watched`: an observer that reads the list again after each
/// change.
fn projects_controller(watched: bool) -> (Controller, Option<ReadObserver<(), Projects>>) {
    let (text, _) = fixture::texts();
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let value = serde_json::from_str::<Projects>(&text).expect("the fixture parses");
    ctrl.set_response(&projects(), &(), value).unwrap();
    let view = watched.then(|| watch(&ctrl, projects()));
    (ctrl, view)
}

/// A view of `endpoint`'s read: an observer that reads it again after
/// each change, as a component re-renders.
fn watch<S: Schema, E: Readable>(
    ctrl: &Controller,
    endpoint: Endpoint<(), S, E>,
) -> ReadObserver<(), S> {
    let mut view = ReadObserver::new(ctrl, Observe::new().changes());
    view.set(&endpoint, &());
    view.read();
    let again = ctrl.clone();
    view.subscribe(move || {
        black_box(again.read(&endpoint, &()).data);
    });
    view
}

/// Renames project `index` of the fixture as the cache shows it.
fn rename_project(ctrl: &Controller, index: usize, round: u64) {
    let params = ProjectResourceParams {
        id: format!("project-{index}"),
    };
    let mut project = ctrl
        .read(&ProjectResource::get(), &params)
        .data
        .expect("the list holds every project");
    std::rc::Rc::make_mut(&mut project).name = format!("renamed {round}");
    ctrl.set_response(&ProjectResource::update(), &params, project)
        .unwrap();
}

/// Renames user `id` of the fixture as the cache shows it.
fn rename_user(ctrl: &Controller, id: u64, round: u64) {
    let params = UserResourceParams { id };
    let user = ctrl
        .read(&UserResource::get(), &params)
        .data
        .expect("the build types hold every user");
    let renamed = User {
        name: format!("renamed {round}"),
        ..(*user).clone()
    };
    ctrl.set_response(&UserResource::update(), &params, std::rc::Rc::new(renamed))
        .unwrap();
}

fn watched_list_edits(c: &mut Criterion) {
    for watched in [false, true] {
        let suffix = if watched { "watched" } else { "unwatched" };
        let (ctrl, _view) = projects_controller(watched);
        let mut round = 0_u64;
        c.bench_function(
            &format!("controller_edit_1_project_of_1000_{suffix}"),
            |b| {
                b.iter(|| {
                    round += 1;
                    rename_project(&ctrl, (round % 1000) as usize, round);
                })
            },
        );
        c.bench_function(
            &format!("controller_rename_1_user_of_1000_projects_{suffix}"),
            |b| {
                b.iter(|| {
                    round += 1;
                    rename_user(&ctrl, round % 50 + 1, round);
                })
            },
        );
    }
}

#[path = "common/issues.rs"]
mod issues;

/// A controller holding `list` as the issue list, and a view of it.
fn watched_issues(
    list: Vec<std::rc::Rc<issues::Issue>>,
) -> (
    Controller,
    ReadObserver<(), Vec<std::rc::Rc<issues::Issue>>>,
) {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    ctrl.set_response(&issues::issue_list(), &(), list).unwrap();
    let view = watch(&ctrl, issues::issue_list());
    (ctrl, view)
}

/// One issue of a watched list of 1,000 retitled, as the render
/// benchmark's update-entity does: read from the cache, edited, written
/// back as the answer of its update (which joins lists at their start).
fn watched_issue_edit(c: &mut Criterion) {
    let (ctrl, mut view) = watched_issues(issues::issues(1_000));
    let mut round = 0_u64;
    c.bench_function("controller_edit_issue_1_of_1000_watched", |b| {
        b.iter(|| {
            round += 1;
            issues::retitle(&ctrl, 1, round);
        })
    });
    c.bench_function("controller_edit_each_issue_of_1000_watched", |b| {
        b.iter(|| {
            round += 1;
            issues::retitle(&ctrl, round % 1000 + 1, round);
        })
    });
    let list = issues::issue_list();
    c.bench_function("view_read_of_1000_issues", |b| {
        b.iter(|| {
            view.set(&list, &());
            black_box(view.read())
        })
    });
    c.bench_function("controller_read_of_1000_issues", |b| {
        b.iter(|| black_box(ctrl.read(&list, &())))
    });
}

/// One of the 20 users renamed while a view watches a list of 10,000
/// issues (500 of them the user's), as the render benchmark's
/// update-user-10000 does, beside what a hand-written app does for it.
fn watched_user_rename(c: &mut Criterion) {
    let list = issues::issues(10_000);
    let (ctrl, view) = watched_issues(list.clone());
    let mut round = 0_u64;
    c.bench_function("controller_rename_1_user_of_10000_issues_watched", |b| {
        b.iter(|| {
            round += 1;
            issues::rename(&ctrl, "user0", round);
        })
    });
    let mut shown = list;
    c.bench_function("by_hand_rename_1_user_of_10000_issues", |b| {
        b.iter(|| {
            round += 1;
            shown = issues::renamed_by_hand(&shown, "user0", round);
        })
    });
    drop(view);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(4));
    targets = shared_reads, set_projects, targeted_notification, watched_list_edits, watched_issue_edit,
        watched_user_rename
}
criterion_main!(benches);
