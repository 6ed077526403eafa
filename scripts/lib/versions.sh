# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by tools.sh
# Pinned versions of the book tools (sourced by scripts/lib/tools.sh). mdbook-mermaid 0.17
# is built on mdBook 0.5's preprocessor crate; 0.16 pairs with mdBook 0.4. Change both together.
MDBOOK_VERSION=0.5.4
MDBOOK_MERMAID_VERSION=0.17.1
# A dated nightly that has Miri (scripts/miri checks the book's unsafe code with it).
MIRI_TOOLCHAIN=nightly-2026-05-20
