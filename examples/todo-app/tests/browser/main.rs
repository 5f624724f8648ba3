//! The todo app as a person uses it, in a real headless Chromium driven
//! over WebDriver (Debian's chromedriver): the demo API, the page server
//! and chromedriver start inside each test, on 127.0.0.1, and stop with it.
//!
//! The tests need the browser bundle, so a plain `cargo test` skips them;
//! `scripts/test.sh` builds it (`scripts/todo-app.sh --build`) and runs
//! them with `TODO_APP_BUNDLE` naming its folder:
//!
//!     TODO_APP_BUNDLE=target/todo-app/pkg cargo test -p restcache-todo-app \
//!         --test browser -- --ignored --test-threads=1

mod harness;
mod hydration;
mod navigation;
mod saved;
mod writes;
