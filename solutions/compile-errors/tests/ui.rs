//! Every program in tests/ui must fail to compile with exactly the errors in its
//! `.stderr` snapshot. The book's Part II includes these snapshots, so they are the
//! compiler's own words on the pinned toolchain. To regenerate them after a toolchain
//! change: `TRYBUILD=overwrite cargo test -p compile-errors` from solutions/.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
