# shellcheck shell=bash
# Installs what the scripts need, only when missing or at the wrong version (sourced by
# scripts/build-book, scripts/serve and scripts/test). Debian/Ubuntu for Chromium.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$here/../.." && pwd)"
# shellcheck source=versions.sh
source "$here/versions.sh"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The toolchain pinned in rust-toolchain.toml, with clippy and rustfmt.
ensure_rust() {
  command -v rustup >/dev/null || die "rustup is needed: https://rustup.rs"
  local channel
  channel=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' "$ROOT/rust-toolchain.toml")
  if ! rustup run "$channel" cargo clippy --version >/dev/null 2>&1 ||
     ! rustup run "$channel" rustfmt --version >/dev/null 2>&1; then
    say "installing Rust $channel (rust-toolchain.toml)"
    rustup toolchain install "$channel" --profile minimal --component clippy,rustfmt
  fi
}

# The dated nightly with Miri and the standard library's source (Miri builds its own
# sysroot from it), for scripts/miri. Stable has no Miri.
ensure_miri() {
  command -v rustup >/dev/null || die "rustup is needed: https://rustup.rs"
  if ! cargo "+$MIRI_TOOLCHAIN" miri --version >/dev/null 2>&1 ||
     ! rustup component list --toolchain "$MIRI_TOOLCHAIN" --installed 2>/dev/null | grep -q '^rust-src'; then
    say "installing $MIRI_TOOLCHAIN with miri and rust-src (once)"
    rustup toolchain install "$MIRI_TOOLCHAIN" --profile minimal --component miri,rust-src ||
      die "could not install $MIRI_TOOLCHAIN with miri"
  fi
}

# The standard libraries of the other OSes learners use, so scripts/test can type-check
# the runner, the labs and the solutions for them (`cargo check --target`; nothing links).
CROSS_TARGETS="x86_64-pc-windows-msvc aarch64-apple-darwin"
ensure_targets() {
  local channel installed missing=() t
  channel=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' "$ROOT/rust-toolchain.toml")
  installed=$(rustup target list --installed --toolchain "$channel" 2>/dev/null)
  for t in $CROSS_TARGETS; do
    grep -qx "$t" <<<"$installed" || missing+=("$t")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "adding Rust targets ${missing[*]} (for the Windows and macOS type-checks)"
    rustup target add --toolchain "$channel" "${missing[@]}" || die "could not add ${missing[*]}"
  fi
}

# `cargo install --locked NAME --version V` unless `BIN --version` already says V.
ensure_crate_bin() {
  local crate=$1 bin=$2 version=$3
  shift 3 # the rest: options for cargo install (features)
  if ! "$bin" --version 2>/dev/null | grep -q "$version"; then
    say "installing $crate $version (takes a few minutes, once)"
    (cd "$ROOT" && cargo install --locked "$crate" --version "$version" "$@") || die "could not install $crate"
  fi
}

# oha, the server benchmark's open-loop load generator, at the version scripts/benchlib/tpc.py
# pins. It only talks plain HTTP to 127.0.0.1, so it is built against Debian's OpenSSL
# (native-tls, not rustls and aws-lc) and Debian's SQLite (not the copy rusqlite bundles):
# the same load path, 368 CPU-s to build instead of 496 (measured on 2026-11-26; jemalloc,
# which oha always builds, is most of the rest). 1.16.0 does not build without a TLS feature.
ensure_oha() {
  local version
  version=$(sed -n 's/^OHA_VERSION = "\(.*\)"/\1/p' "$ROOT/scripts/benchlib/tpc.py")
  oha --version 2>/dev/null | grep -q "$version" && return
  ensure_oha_packages || return 1
  LIBSQLITE3_SYS_USE_PKG_CONFIG=1 \
    ensure_crate_bin oha oha "$version" --no-default-features --features native-tls
}

# What oha's build links against (above): pkg-config, and OpenSSL's and SQLite's headers.
ensure_oha_packages() {
  ensure_apt pkg-config pkg-config || return 1
  pkg-config --exists openssl || ensure_apt_package libssl-dev || return 1
  pkg-config --exists sqlite3 || ensure_apt_package libsqlite3-dev
}

ensure_mdbook() {
  ensure_crate_bin mdbook mdbook "$MDBOOK_VERSION"
  ensure_crate_bin mdbook-mermaid mdbook-mermaid "$MDBOOK_MERMAID_VERSION"
  # mermaid.min.js and mermaid-init.js: third-party, generated, not committed.
  if [ ! -f "$ROOT/mermaid.min.js" ] || [ ! -f "$ROOT/mermaid-init.js" ]; then
    mdbook-mermaid install "$ROOT" >/dev/null 2>&1 || die "mdbook-mermaid install failed"
  fi
}

# `apt-get install PACKAGE` unless BIN is on PATH (Debian/Ubuntu; root, or sudo).
ensure_apt() {
  command -v "$1" >/dev/null || ensure_apt_package "$2"
}
# `apt-get install PACKAGE`, for a package with no program to look for (headers, libraries).
ensure_apt_package() {
  local package=$1 sudo=""
  command -v apt-get >/dev/null || die "$package is needed: install it"
  say "installing $package (apt)"
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$package" >/dev/null || die "could not install $package"
}

# Debian's Chromium, for the rendered-book checks.
ensure_chromium() {
  [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] && return
  say "installing chromium (apt)"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null || die "could not install chromium"
}

# playwright-core, pinned in scripts/check-book/package-lock.json.
ensure_node_modules() {
  command -v npm >/dev/null || die "node and npm are needed for the rendered-book check"
  local dir="$ROOT/scripts/check-book"
  if [ ! -d "$dir/node_modules/playwright-core" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    say "installing playwright-core (npm ci)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed"
  fi
}
