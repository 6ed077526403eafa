# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by tools.sh
# Pinned versions of the book tools (sourced by scripts/lib/tools.sh). mdbook-mermaid 0.17
# is built on mdBook 0.5's preprocessor crate; 0.16 pairs with mdBook 0.4. Change both together.
MDBOOK_VERSION=0.5.4
MDBOOK_MERMAID_VERSION=0.17.1
# A dated nightly that has Miri (scripts/miri checks the book's unsafe code with it, and
# `cargo labs check` runs lab 23's tests with it). Its one home is `miri-toolchain` in
# labs/Cargo.toml, where the runner reads it.
MIRI_TOOLCHAIN=$(sed -n 's/^miri-toolchain *= *"\(.*\)"/\1/p' "$ROOT/labs/Cargo.toml")
MIRI_FLAGS=$(sed -n 's/^miri-flags *= *"\(.*\)"/\1/p' "$ROOT/labs/Cargo.toml")
