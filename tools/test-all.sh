#!/usr/bin/env bash
# Every test of damka, as the README's test command: the Rust workspace (unit tests,
# end-to-end tests against the real Redis and PostgreSQL on 127.0.0.1, the export
# oracle that reads damka's PDN/PGN back with pydraughts and python-chess), then the
# browser client in a real browser (Debian's Chromium through playwright-core). It
# installs what it needs: the oracle's libraries and py-draughts (a Hub client) in
# scratch virtualenvs outside the repository, Chromium and the npm lockfile (web/tests/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${EXPORT_ORACLE_VENV:-/tmp/damka-oracle-venv}"
if ! "$venv/bin/python" -c 'import draughts, chess' 2>/dev/null; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q pydraughts python-chess
fi
export EXPORT_ORACLE_PYTHON="$venv/bin/python"

# py-draughts (a different library that also names its module `draughts`) in a venv of
# its own: its HubEngine client drives `damka-engine hub` in engine/tests/engine.rs.
hub_venv="${HUB_CLIENT_VENV:-/tmp/damka-hub-venv}"
if ! "$hub_venv/bin/python" -c 'import draughts.engines.hub' 2>/dev/null; then
  python3 -m venv "$hub_venv" && "$hub_venv/bin/pip" install -q py-draughts
fi
export HUB_CLIENT_PYTHON="$hub_venv/bin/python"

# berserk (lichess's API client) and pydraughts drive bots through the Bot and Board API
# in server/tests/bots.rs.
bots_venv="${BOTS_CLIENT_VENV:-/tmp/damka-bots-venv}"
if ! "$bots_venv/bin/python" -c 'import berserk, draughts' 2>/dev/null; then
  python3 -m venv "$bots_venv" && "$bots_venv/bin/pip" install -q berserk pydraughts
fi
export BOTS_CLIENT_PYTHON="$bots_venv/bin/python"

# Schemathesis fuzzes every operation of the OpenAPI document against a live node in
# server/tests/openapi.rs.
st_venv="${SCHEMATHESIS_VENV:-/tmp/damka-schemathesis-venv}"
if ! "$st_venv/bin/schemathesis" --version >/dev/null 2>&1; then
  python3 -m venv "$st_venv" && "$st_venv/bin/pip" install -q schemathesis
fi
export SCHEMATHESIS="$st_venv/bin/schemathesis"

# Debian's Stockfish plays chess for the computer (server/tests/computer.rs).
if [ ! -x /usr/games/stockfish ]; then
  echo "installing stockfish" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq stockfish >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq stockfish >/dev/null; }
fi

cargo test --workspace
# The Rust tests' keys on the shared Redis (each test's own prefix under `test:`, which
# most tests leave behind) go once every one of them has run.
redis-cli -h 127.0.0.1 -p 6379 EVAL \
  "local n = 0 for _, k in ipairs(redis.call('KEYS', 'test:*')) do redis.call('DEL', k) n = n + 1 end return n" 0 \
  | sed 's/^/test keys deleted from Redis: /'
bash web/tests/run.sh
