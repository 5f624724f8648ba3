//! Memory under churn: 100,000 distinct keys read over time, 1,000 of them
//! held (subscribed, as mounted components hold their reads) at once. The
//! live heap is measured by a counting allocator after every 10,000 keys:
//!
//!     cargo bench --bench churn
//!
//! - `keep_all`: `Retention::KEEP_ALL`, how the cache behaved before it
//!   collected anything: every key stays until `reset()`.
//! - `default_10ms`: the default retention (an unused result goes after
//!   2 minutes, or twice its data expiry), one new key every 10 ms of the
//!   controller's clock (100 keys a second): memory levels off once the
//!   first keys are 2 minutes old.
//! - `bound_2000_1ms`: `max_results: 2,000`, one new key every 1 ms (the
//!   whole run is 100 s, under the 2-minute keep time): the bound alone
//!   keeps memory flat.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use restcache::prelude::*;
use restcache::{Retention, Subscription};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Todo {
    id: u64,
    user_id: u64,
    title: String,
    completed: bool,
}

resource!(TodoResource {
    path: "/todos/:id",
    schema: Todo
});

const KEYS: u64 = 100_000;
const HELD: usize = 1_000;
const STEP: u64 = 10_000;

fn main() {
    let cases = [
        ("keep_all", Retention::KEEP_ALL, Duration::from_millis(10)),
        (
            "default_10ms",
            Retention::default(),
            Duration::from_millis(10),
        ),
        (
            "bound_2000_1ms",
            Retention {
                max_results: Some(2_000),
                ..Retention::default()
            },
            Duration::from_millis(1),
        ),
    ];
    print!("{:16}", "live heap MiB");
    for keys in (STEP..=KEYS).step_by(STEP as usize) {
        print!("{:>7}k", keys / 1000);
    }
    println!("{:>10}", "results");
    for (name, retention, every) in cases {
        churn(name, retention, every);
    }
}

fn churn(name: &str, retention: Retention, every: Duration) {
    let before = LIVE.load(Ordering::Relaxed);
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = Controller::builder(Client::new("http://127.0.0.1:9"))
        .clock(clock.clone())
        .retention(retention)
        .build();
    let endpoint = TodoResource::get();
    let mut held: VecDeque<Subscription> = VecDeque::with_capacity(HELD + 1);
    print!("{name:16}");
    for id in 0..KEYS {
        clock.advance(every);
        let params = TodoResourceParams { id };
        let todo = Todo {
            id,
            user_id: id % 50,
            title: format!("todo number {id}, with a title of ordinary length"),
            completed: id % 3 == 0,
        };
        ctrl.set_response(&endpoint, &params, Rc::new(todo))
            .expect("a todo stores");
        held.push_back(ctrl.subscribe(&endpoint, &params, || {}));
        let _ = ctrl.read(&endpoint, &params);
        if held.len() > HELD {
            held.pop_front();
        }
        if (id + 1) % STEP == 0 {
            let live = LIVE.load(Ordering::Relaxed).saturating_sub(before);
            print!("{:>8.1}", live as f64 / (1024.0 * 1024.0));
        }
    }
    println!("{:>10}", ctrl.with_store(|store| store.result_count()));
}
