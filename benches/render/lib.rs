//! Render throughput in headless Chromium: the scenarios the reference
//! (reactive/data-client) publishes for its React bindings, on its data
//! shapes, timed on three Yew apps that share their views and differ in
//! their data layer: restcache, the reference's baseline (`use_state`
//! refetching through the same simulated network), and a hand-written
//! floor (`use_reducer` applying each change directly). Run it with
//!
//!     benches/render.sh
//!
//! which prints the table. Natively the crate is empty.
//!
//! - `data`: the records and the reference's fixture;
//! - `server`: the simulated API's records, in memory;
//! - `network`: the simulated network in front of it (40 ms plus 1 ms per
//!   20 records);
//! - `screen` and `views`: what the page shows, and the components all
//!   three apps render it with;
//! - `apps`: the three apps;
//! - `timing`: acts timed until a `MutationObserver` sees their outcome;
//! - `scenarios`: what each scenario mounts and times;
//! - `report`: the table;
//! - `bench`: the entry that runs it all.

#![cfg(all(test, target_arch = "wasm32"))]

mod apps;
mod bench;
mod data;
mod network;
mod report;
mod scenarios;
mod screen;
mod server;
mod timing;
mod views;
