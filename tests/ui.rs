//! Compile tests of the derives and of `resource!` / `endpoint!`:
//!
//! - `tests/ui/fail`: each mistake is a compile error spanned on the token
//!   at fault (a path's mistakes inside its literal), several reported
//!   together, and one mistake gives one message (code that uses a broken
//!   declaration adds no error of its own);
//! - `tests/ui/pass`: every declaration form the docs show compiles, and
//!   runs.
//!
//! `TRYBUILD=overwrite cargo test --test ui` rewrites the expected
//! `.stderr` files.

#[test]
fn declarations_compile_and_mistakes_are_compile_errors() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
