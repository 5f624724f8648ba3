//! Compile-fail tests of the derives and of `resource!` / `endpoint!`: each
//! mistake is a compile error spanned on the token at fault (a path's
//! mistakes on its literal), several reported together. `TRYBUILD=overwrite` rewrites the
//! expected `.stderr` files.

#[test]
fn macro_mistakes_are_compile_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
