#!/usr/bin/env bash
# The browser tests: installs what they need (Debian's Chromium, playwright-core from the
# lockfile), builds the damka binary, and runs the tests with node's test runner against
# a real server. Screenshots and the load measurements land in web/tests/artefacts/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if ! command -v "${CHROMIUM:-/usr/bin/chromium}" >/dev/null 2>&1; then
    echo "installing chromium" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq chromium >/dev/null
fi
if ! command -v node >/dev/null 2>&1; then
    echo "installing nodejs and npm" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq nodejs npm >/dev/null
fi

cd "$here"
if [ ! -d node_modules/playwright-core ] || ! npm ls --silent >/dev/null 2>&1; then
    npm ci --no-audit --no-fund --loglevel=error
fi

if [ -z "${WEB_TEST_BIN:-}" ]; then
    (cd "$root" && cargo build -q -p damka)
    export WEB_TEST_BIN="$root/target/debug/damka"
fi

rm -rf "$here/artefacts"
node --test --test-concurrency=1 --test-reporter=spec "$here"/*.test.js
