//! The scenarios the reference publishes for its React bindings, on its
//! data shapes, each run the same way on any app: the app is mounted on
//! a fresh simulated API, untimed; then each op is timed from its act to
//! the moment the page shows the op's outcome (a `MutationObserver`),
//! the first few ops as a warm-up. Between two ops the page paints.

use std::rc::Rc;

use web_sys::Element;

use crate::apps::{AppUnderTest, Change};
use crate::data::{FIRST_CREATED, IssueState, created_issue};
use crate::screen::Screen;
use crate::server::Server;
use crate::timing::{next_paint, time_until, until};

/// The rows a list renders in the mutation scenarios, as in the
/// reference (its lists hold more).
const ROWS: usize = 100;
/// The issues the mutation scenarios' lists hold.
const MOUNTED: usize = 1_000;
/// The detail pages one op of `list-detail-switch-10` visits.
const NAVIGATIONS: u64 = 10;

/// A scenario of the table.
#[derive(Clone, Copy, Debug)]
pub enum Scenario {
    /// Mount a list that fetches this many issues, and render them all:
    /// each op mounts an app of its own.
    GetList(usize),
    /// Ops on one app, mounted once per run.
    OnMounted(Op),
}

/// What a scenario does to an app mounted once per run.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// Ten times: from the sorted list of 1,000 to an issue's detail, and
    /// back.
    ListDetailSwitch,
    /// One issue of the list gets a new title.
    UpdateEntity,
    /// A user with one issue in 20 gets a new name, the list holding this
    /// many issues.
    UpdateUser(usize),
    /// A new issue is created, and shows first in the list.
    UnshiftItem,
    /// The first issue of the list is deleted.
    DeleteItem,
    /// An issue moves between the open list and the closed list shown
    /// side by side.
    MoveItem,
}

/// Every scenario, in the order of the table.
pub const SCENARIOS: [Scenario; 9] = [
    Scenario::GetList(100),
    Scenario::GetList(500),
    Scenario::OnMounted(Op::ListDetailSwitch),
    Scenario::OnMounted(Op::UpdateEntity),
    Scenario::OnMounted(Op::UpdateUser(MOUNTED)),
    Scenario::OnMounted(Op::UpdateUser(10_000)),
    Scenario::OnMounted(Op::UnshiftItem),
    Scenario::OnMounted(Op::DeleteItem),
    Scenario::OnMounted(Op::MoveItem),
];

/// Untimed and timed ops in one run of a scenario.
struct Ops {
    warmup: usize,
    timed: usize,
}

impl Scenario {
    /// The reference's name for it.
    pub fn name(self) -> String {
        match self {
            Scenario::GetList(count) => format!("getlist-{count}"),
            Scenario::OnMounted(Op::ListDetailSwitch) => {
                format!("list-detail-switch-{NAVIGATIONS}")
            }
            Scenario::OnMounted(Op::UpdateEntity) => "update-entity".to_owned(),
            Scenario::OnMounted(Op::UpdateUser(MOUNTED)) => "update-user".to_owned(),
            Scenario::OnMounted(Op::UpdateUser(mounted)) => format!("update-user-{mounted}"),
            Scenario::OnMounted(Op::UnshiftItem) => "unshift-item".to_owned(),
            Scenario::OnMounted(Op::DeleteItem) => "delete-item".to_owned(),
            Scenario::OnMounted(Op::MoveItem) => "move-item".to_owned(),
        }
    }

    /// Whether it changes data (the goal against the floor is about
    /// these).
    pub fn is_mutation(self) -> bool {
        !matches!(
            self,
            Scenario::GetList(_) | Scenario::OnMounted(Op::ListDetailSwitch)
        )
    }

    /// The reference's published ops/s (its README's latest results, with
    /// its network simulation on): data-client's and its baseline's.
    pub fn reference(self) -> (f64, f64) {
        match self {
            Scenario::GetList(100) => (20.45, 20.73),
            Scenario::GetList(_) => (12.53, 12.84),
            Scenario::OnMounted(Op::ListDetailSwitch) => (17.38, 0.73),
            Scenario::OnMounted(Op::UpdateEntity) => (666.67, 7.23),
            Scenario::OnMounted(Op::UpdateUser(MOUNTED)) => (801.28, 7.24),
            Scenario::OnMounted(Op::UpdateUser(_)) => (144.93, 1.56),
            Scenario::OnMounted(Op::UnshiftItem) => (465.37, 7.21),
            Scenario::OnMounted(Op::DeleteItem) => (833.33, 7.19),
            Scenario::OnMounted(Op::MoveItem) => (333.33, 6.97),
        }
    }

    /// The ops of one run of an app (`refetches`: the baseline): fewer
    /// where an op takes seconds. The apps whose changes take a
    /// millisecond or so time thirty a run: with ten (five on the list of
    /// 10,000), a slow moment of the machine moved restcache's time over
    /// the floor's by 0.2x between runs.
    fn ops(self, refetches: bool) -> Ops {
        let (warmup, timed) = match self {
            Scenario::GetList(_) => (1, 5),
            Scenario::OnMounted(Op::ListDetailSwitch) => (1, 2),
            Scenario::OnMounted(_) if !refetches => (3, 30),
            Scenario::OnMounted(Op::UpdateUser(mounted)) if mounted > MOUNTED => (1, 5),
            Scenario::OnMounted(_) => (3, 10),
        };
        Ops { warmup, timed }
    }

    /// One run on `A`, on a fresh API: the milliseconds of each timed op.
    pub async fn run<A: AppUnderTest>(self) -> Vec<f64> {
        let server = Server::new();
        let ops = self.ops(A::REFETCHES);
        match self {
            Scenario::GetList(count) => {
                ops.time(async |_| get_list::<A>(&server, count).await)
                    .await
            }
            Scenario::OnMounted(op) => {
                let root = Root::new();
                let mut app = op.mount::<A>(&root.0, &server).await;
                ops.time(async |number| op.time(&mut app, &root.0, &server, number).await)
                    .await
            }
        }
    }
}

impl Ops {
    /// Runs `op` with each op's number, the page painting after each:
    /// the milliseconds it gives for the timed ones.
    async fn time(self, mut op: impl AsyncFnMut(usize) -> f64) -> Vec<f64> {
        let mut times = Vec::with_capacity(self.timed);
        for number in 0..self.warmup + self.timed {
            let time = op(number).await;
            if number >= self.warmup {
                times.push(time);
            }
            next_paint().await;
        }
        times
    }
}

/// The sorted list `list-detail-switch-10` goes back to.
const SORTED: Screen = Screen::Sorted {
    count: MOUNTED,
    rows: Some(ROWS),
};

impl Op {
    /// Mounts `A` showing what the ops act on, and waits until the page
    /// shows it.
    async fn mount<A: AppUnderTest>(self, root: &Element, server: &Server) -> A {
        let rows = Some(ROWS);
        let list = |count| Screen::Issues { count, rows };
        let (screen, shown): (Screen, Box<dyn Fn() -> bool>) = match self {
            Op::ListDetailSwitch => (SORTED, Box::new(sorted_rows(root))),
            Op::MoveItem => {
                let open = shows(
                    root,
                    "[data-state-list=open] [data-issue-number]".to_owned(),
                );
                let closed = shows(
                    root,
                    "[data-state-list=closed] [data-issue-number]".to_owned(),
                );
                let screen = Screen::ByState {
                    count: MOUNTED,
                    rows,
                };
                (screen, Box::new(move || open() && closed()))
            }
            Op::UpdateUser(count) => (list(count), Box::new(shows(root, row(ROWS as u64)))),
            Op::UpdateEntity | Op::UnshiftItem | Op::DeleteItem => {
                (list(MOUNTED), Box::new(shows(root, row(ROWS as u64))))
            }
        };
        let mut app = A::mount(root, server, screen);
        until(root, "the mounted lists", shown).await;
        if let Op::ListDetailSwitch = self {
            // One unmeasured round trip, as the reference's warm-up.
            detail_and_back(&mut app, root, 1).await;
        }
        next_paint().await;
        app
    }

    /// Op number `number` on `app`: its milliseconds.
    async fn time<A: AppUnderTest>(
        self,
        app: &mut A,
        root: &Element,
        server: &Server,
        number: usize,
    ) -> f64 {
        match self {
            Op::ListDetailSwitch => {
                let mut total = 0.0;
                for issue in 2..2 + NAVIGATIONS {
                    total += detail_and_back(app, root, issue).await;
                }
                total
            }
            Op::UpdateEntity => {
                let title = format!("Issue 1, edit {number}");
                let change = Change::Retitle {
                    number: 1,
                    title: title.clone(),
                };
                let shown = text_of_all(root, row(1) + " [data-title]", title);
                time_until(root, "the new title", shown, app.apply(change)).await
            }
            Op::UpdateUser(_) => {
                let name = format!("User 0, edit {number}");
                let change = Change::Rename {
                    login: "user0".to_owned(),
                    name: name.clone(),
                };
                let cards = "[data-user-login=user0] [data-user-name]".to_owned();
                let shown = text_of_all(root, cards, name);
                time_until(root, "the new name", shown, app.apply(change)).await
            }
            Op::UnshiftItem => {
                let created = FIRST_CREATED + number as u64;
                let user = Rc::new((*server.user("user0")).clone());
                let change = Change::Create(Rc::new(created_issue(created, user)));
                let first = first_row_is(root, created);
                time_until(root, "the new issue first", first, app.apply(change)).await
            }
            Op::DeleteItem => {
                let deleted = number as u64 + 1;
                let change = Change::Delete { number: deleted };
                let gone = shows(root, row(deleted));
                let next = shows(root, row(deleted + ROWS as u64));
                let shown = move || !gone() && next();
                time_until(root, "the list without it", shown, app.apply(change)).await
            }
            Op::MoveItem => {
                let state = if number.is_multiple_of(2) {
                    IssueState::Closed
                } else {
                    IssueState::Open
                };
                let change = Change::Move { number: 1, state };
                let in_list = |state: IssueState| {
                    shows(
                        root,
                        format!("[data-state-list={}] {}", state.as_str(), row(1)),
                    )
                };
                let (arrived, left) = (in_list(state), in_list(state.other()));
                let shown = move || arrived() && !left();
                time_until(root, "the issue moved", shown, app.apply(change)).await
            }
        }
    }
}

/// One op of `getlist-count`: `A` mounted showing nothing (untimed), then
/// timed from showing the list until its last row shows.
async fn get_list<A: AppUnderTest>(server: &Server, count: usize) -> f64 {
    let root = Root::new();
    let mut app = A::mount(&root.0, server, Screen::Nothing);
    next_paint().await;
    let screen = Screen::Issues { count, rows: None };
    let last = shows(&root.0, row(count as u64));
    time_until(&root.0, "the whole list", last, async { app.show(screen) }).await
}

/// From the sorted list to issue `number`'s detail and back: the
/// milliseconds of both switches.
async fn detail_and_back<A: AppUnderTest>(app: &mut A, root: &Element, number: u64) -> f64 {
    let detail = shows(root, format!("[data-detail-view=\"{number}\"]"));
    let to_detail = async { app.show(Screen::Detail { number }) };
    let there = time_until(root, "the detail", detail, to_detail).await;
    let back = time_until(root, "the sorted list", sorted_rows(root), async {
        app.show(SORTED)
    })
    .await;
    there + back
}

/// Whether the sorted list shows its rows.
fn sorted_rows(root: &Element) -> impl Fn() -> bool + 'static {
    shows(root, "[data-sorted-list] [data-issue-number]".to_owned())
}

/// The selector of issue `number`'s row.
fn row(number: u64) -> String {
    format!("[data-issue-number=\"{number}\"]")
}

/// Whether the page under `root` holds an element `selector` matches.
fn shows(root: &Element, selector: String) -> impl Fn() -> bool + 'static {
    let root = root.clone();
    move || matches!(root.query_selector(&selector), Ok(Some(_)))
}

/// Whether the page under `root` holds elements `selector` matches, and
/// each reads `text`.
fn text_of_all(root: &Element, selector: String, text: String) -> impl Fn() -> bool + 'static {
    let root = root.clone();
    move || {
        let found = root
            .query_selector_all(&selector)
            .expect("a valid selector");
        let reads = |i| {
            let node = found.item(i);
            node.and_then(|node| node.text_content()).as_deref() == Some(text.as_str())
        };
        found.length() > 0 && (0..found.length()).all(reads)
    }
}

/// Whether the first row under `root` is issue `number`'s.
fn first_row_is(root: &Element, number: u64) -> impl Fn() -> bool + 'static {
    let (root, number) = (root.clone(), number.to_string());
    move || {
        let first = root.query_selector("[data-issue-number]").ok().flatten();
        let shown = first.and_then(|row| row.get_attribute("data-issue-number"));
        shown.as_deref() == Some(number.as_str())
    }
}

/// An element of its own in the page's body, for one app; removed when
/// dropped (after the app, which is declared after it).
struct Root(Element);

impl Root {
    fn new() -> Self {
        let document = web_sys::window()
            .and_then(|window| window.document())
            .expect("the benchmark runs in a page");
        let root = document.create_element("div").expect("a div");
        let body = document.body().expect("the page has a body");
        body.append_child(&root).expect("the body takes a div");
        Root(root)
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        self.0.remove();
    }
}
