#!/usr/bin/env bash
# Runs the headless Chromium tests of the public pages and of the analytics script against a
# fresh shipmate-api, with a shipmate-worker beside it (analytics are aggregated by the worker).
#
#   tests/browser/run.sh [REPO_ROOT]
#
# Builds nothing: the binaries must exist (SHIPMATE_API_BIN, default <repo>/target/debug/shipmate-api;
# SHIPMATE_WORKER_BIN, default <repo>/target/debug/shipmate-worker). Uses PostgreSQL and Redis from
# <repo>/.env, with a database of its own that is dropped afterwards (SHIPMATE_KEEP_DB=1 keeps it)
# and Redis keys under a queue prefix of its own.
# Screenshots go to <repo>/target/screenshots/, the logs to <repo>/target/browser-tests/.
set -Eeuo pipefail

REPO="$(cd "${1:-$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../..}" && pwd -P)"
BIN="${SHIPMATE_API_BIN:-$REPO/target/debug/shipmate-api}"
WORKER_BIN="${SHIPMATE_WORKER_BIN:-$REPO/target/debug/shipmate-worker}"
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

die() { printf 'run.sh: %s\n' "$*" >&2; exit 2; }

[[ -x "$BIN" ]] || die "no API binary at $BIN; build it first (cargo build -p shipmate-api)"
[[ -x "$WORKER_BIN" ]] || die "no worker binary at $WORKER_BIN; build it first (cargo build -p shipmate-worker)"
[[ -x "$CHROMIUM" ]] || die "no Chromium at $CHROMIUM; install it (apt-get install -y chromium, or scripts/setup)"
command -v node >/dev/null || die "node is not installed"
command -v python3 >/dev/null || die "python3 is not installed"

# The base DATABASE_URL: <repo>/.env first, then the environment, then the documented default.
BASE_DB_URL=""
if [[ -f "$REPO/.env" ]]; then
    BASE_DB_URL="$(sed -n 's/^[[:space:]]*\(export[[:space:]]\+\)\?DATABASE_URL=//p' "$REPO/.env" | tail -n 1)"
    BASE_DB_URL="${BASE_DB_URL%\"}"; BASE_DB_URL="${BASE_DB_URL#\"}"
    BASE_DB_URL="${BASE_DB_URL%\'}"; BASE_DB_URL="${BASE_DB_URL#\'}"
fi
BASE_DB_URL="${BASE_DB_URL:-${DATABASE_URL:-postgres://127.0.0.1:5432/shipmate}}"
REDIS=""
if [[ -f "$REPO/.env" ]]; then
    REDIS="$(sed -n 's/^[[:space:]]*\(export[[:space:]]\+\)\?REDIS_URL=//p' "$REPO/.env" | tail -n 1)"
    REDIS="${REDIS%\"}"; REDIS="${REDIS#\"}"; REDIS="${REDIS%\'}"; REDIS="${REDIS#\'}"
fi
REDIS="${REDIS:-${REDIS_URL:-redis://127.0.0.1:6379}}"

DB_NAME="shipmate_browser_${RANDOM}${RANDOM}"
# The api and the worker share this prefix, so no other deployment's worker takes these jobs.
QUEUE_PREFIX="shipmate-browser-$$-${RANDOM}${RANDOM}"
TEST_DB_URL="$(python3 - "$BASE_DB_URL" "$DB_NAME" <<'PY'
import sys
from urllib.parse import urlsplit, urlunsplit
u = urlsplit(sys.argv[1])
print(urlunsplit(u._replace(path="/" + sys.argv[2])))
PY
)"

PORT="$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')"
API_URL="http://127.0.0.1:$PORT"
LOG_DIR="$REPO/target/browser-tests"
LOG="$LOG_DIR/api.log"
WORKER_LOG="$LOG_DIR/worker.log"
mkdir -p "$LOG_DIR" "$REPO/target/screenshots"

API_PID=""
WORKER_PID=""
stop() {
    local pid="$1"
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    fi
}
cleanup() {
    local rc=$?
    stop "$WORKER_PID"
    stop "$API_PID"
    if [[ "${SHIPMATE_KEEP_DB:-0}" != "1" ]] && command -v psql >/dev/null; then
        psql --no-psqlrc -q "$BASE_DB_URL" -c "drop database if exists \"$DB_NAME\" with (force)" >/dev/null 2>&1 || true
    fi
    if [[ "${SHIPMATE_KEEP_DB:-0}" != "1" ]] && command -v redis-cli >/dev/null; then
        redis-cli -u "$REDIS" --scan --pattern "$QUEUE_PREFIX:*" 2>/dev/null \
            | while IFS= read -r key; do redis-cli -u "$REDIS" del "$key" >/dev/null 2>&1 || true; done
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Run from the repository root so the binary's own .env loading finds REDIS_URL and friends;
# the variables set here win over the file.
(
    cd "$REPO"
    exec env DATABASE_URL="$TEST_DB_URL" \
        SHIPMATE_BIND="127.0.0.1:$PORT" \
        SHIPMATE_PUBLIC_URL="$API_URL" \
        SHIPMATE_DEV_LOGIN=1 \
        SHIPMATE_QUEUE_PREFIX="$QUEUE_PREFIX" \
        "$BIN"
) >"$LOG" 2>&1 &
API_PID=$!

printf 'run.sh: shipmate-api (pid %s) on %s, database %s\n' "$API_PID" "$API_URL" "$DB_NAME"
deadline=$((SECONDS + 30))
until curl -fsS -o /dev/null --max-time 2 "$API_URL/healthz" 2>/dev/null; do
    if ! kill -0 "$API_PID" 2>/dev/null; then
        printf 'run.sh: shipmate-api exited during start-up; last lines of %s:\n' "$LOG" >&2
        tail -n 40 "$LOG" >&2
        exit 1
    fi
    if (( SECONDS >= deadline )); then
        printf 'run.sh: shipmate-api did not answer /healthz within 30 s; last lines of %s:\n' "$LOG" >&2
        tail -n 40 "$LOG" >&2
        exit 1
    fi
    sleep 0.2
done

# The worker starts once the api has created and migrated the database.
(
    cd "$REPO"
    exec env DATABASE_URL="$TEST_DB_URL" \
        SHIPMATE_QUEUE_PREFIX="$QUEUE_PREFIX" \
        "$WORKER_BIN"
) >"$WORKER_LOG" 2>&1 &
WORKER_PID=$!
sleep 1
if ! kill -0 "$WORKER_PID" 2>/dev/null; then
    printf 'run.sh: shipmate-worker exited during start-up; last lines of %s:\n' "$WORKER_LOG" >&2
    tail -n 40 "$WORKER_LOG" >&2
    exit 1
fi
printf 'run.sh: shipmate-worker (pid %s), queue prefix %s\n' "$WORKER_PID" "$QUEUE_PREFIX"

if [[ ! -d "$REPO/tests/browser/node_modules/playwright-core" ]]; then
    (cd "$REPO/tests/browser" && npm ci --silent --no-audit --no-fund)
fi

# The test files are listed explicitly: `node --test <dir>` means different things across Node versions.
set +e
SHIPMATE_API_URL="$API_URL" CHROMIUM_PATH="$CHROMIUM" node --test "$REPO"/tests/browser/*.test.mjs
status=$?
set -e
if (( status != 0 )); then
    printf 'run.sh: browser tests failed (exit %s); logs: %s, %s\n' "$status" "$LOG" "$WORKER_LOG" >&2
else
    printf 'run.sh: browser tests passed; screenshots in %s\n' "$REPO/target/screenshots"
fi
exit "$status"
