//! Compile-fail tests of the derive macros: each mistake is a compile error
//! spanned on the token at fault. `TRYBUILD=overwrite` rewrites the
//! expected `.stderr` files.

#[test]
fn derive_mistakes_are_compile_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
