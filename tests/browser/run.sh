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
# BROWSER_TESTS picks files by name: `BROWSER_TESTS="dashboard analytics-explore" tests/browser/run.sh`
# runs tests/browser/dashboard.test.mjs and analytics-explore.test.mjs only (all of them when unset).
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

command -v curl >/dev/null || die "curl is not installed"
mkdir -p "$REPO/target/screenshots"

STACK_NAME=browser
# shellcheck source=../stack.sh
. "$REPO/tests/stack.sh"

if [[ ! -d "$REPO/tests/browser/node_modules/playwright-core" ]]; then
    (cd "$REPO/tests/browser" && npm ci --silent --no-audit --no-fund)
fi

# The test files are listed explicitly: `node --test <dir>` means different things across Node versions.
FILES=()
if [[ -n "${BROWSER_TESTS:-}" ]]; then
    for name in $BROWSER_TESTS; do
        f="$REPO/tests/browser/${name%.test.mjs}.test.mjs"
        [[ -f "$f" ]] || die "BROWSER_TESTS names $name, but there is no $f"
        FILES+=("$f")
    done
else
    FILES=("$REPO"/tests/browser/*.test.mjs)
fi
set +e
# SHIPMATE_TEST_DB_URL lets a test set up what no endpoint makes (an account from before email verification).
SHIPMATE_API_URL="$API_URL" SHIPMATE_API_LOG="$LOG" SHIPMATE_TEST_DB_URL="$TEST_DB_URL" CHROMIUM_PATH="$CHROMIUM" \
    node --test "${FILES[@]}"
status=$?
set -e
if (( status != 0 )); then
    printf 'run.sh: browser tests failed (exit %s); logs: %s, %s\n' "$status" "$LOG" "$WORKER_LOG" >&2
else
    printf 'run.sh: browser tests passed; screenshots in %s\n' "$REPO/target/screenshots"
fi
exit "$status"
