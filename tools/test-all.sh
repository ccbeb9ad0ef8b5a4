#!/usr/bin/env bash
# Every test of damka, as the README's test command: the Rust workspace (unit tests,
# end-to-end tests against the real Redis and PostgreSQL on 127.0.0.1, the export
# oracle that reads damka's PDN/PGN back with pydraughts and python-chess), then the
# browser client in a real browser (Debian's Chromium through playwright-core). It
# installs what it needs: the oracle's libraries in a scratch virtualenv outside the
# repository, Chromium and the npm lockfile (web/tests/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${EXPORT_ORACLE_VENV:-/tmp/damka-oracle-venv}"
if ! "$venv/bin/python" -c 'import draughts, chess' 2>/dev/null; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q pydraughts python-chess
fi
export EXPORT_ORACLE_PYTHON="$venv/bin/python"

cargo test --workspace
bash web/tests/run.sh
