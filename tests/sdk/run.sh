#!/usr/bin/env bash
# Runs the JavaScript SDK tests (tests/sdk/*.test.mjs) against a fresh shipmate-api with a
# shipmate-worker beside it (document embedding, analytics).
#
#   tests/sdk/run.sh [REPO_ROOT]
#
# Builds nothing: the binaries must exist (SHIPMATE_API_BIN, default <repo>/target/debug/shipmate-api;
# SHIPMATE_WORKER_BIN, default <repo>/target/debug/shipmate-worker). The SDK is tested as committed
# in sdk/js/dist/, once tests/sdk/types-fresh.sh has checked that its generated types match the API's
# OpenAPI document and that dist/ matches src/. Uses PostgreSQL and Redis from <repo>/.env, with a
# database of its own that is dropped afterwards (SHIPMATE_KEEP_DB=1 keeps it) and Redis keys under a
# queue prefix of its own. The logs go to <repo>/target/sdk-tests/.
set -Eeuo pipefail

REPO="$(cd "${1:-$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../..}" && pwd -P)"
BIN="${SHIPMATE_API_BIN:-$REPO/target/debug/shipmate-api}"
WORKER_BIN="${SHIPMATE_WORKER_BIN:-$REPO/target/debug/shipmate-worker}"

die() { printf 'run.sh: %s\n' "$*" >&2; exit 2; }

[[ -x "$BIN" ]] || die "no API binary at $BIN; build it first (cargo build -p shipmate-api)"
[[ -x "$WORKER_BIN" ]] || die "no worker binary at $WORKER_BIN; build it first (cargo build -p shipmate-worker)"
[[ -f "$REPO/sdk/js/dist/index.js" ]] || die "no sdk/js/dist/index.js; build the SDK (cd sdk/js && npm install && npx tsc)"
command -v node >/dev/null || die "node is not installed"
command -v python3 >/dev/null || die "python3 is not installed"
command -v curl >/dev/null || die "curl is not installed"

# Stale generated types or a stale dist/ fail first, before a stack is started for nothing.
bash "$REPO/tests/sdk/types-fresh.sh" "$REPO"

STACK_NAME=sdk
# shellcheck source=../stack.sh
. "$REPO/tests/stack.sh"

# The test files are listed explicitly: `node --test <dir>` means different things across Node versions.
set +e
SHIPMATE_API_URL="$API_URL" node --test "$REPO"/tests/sdk/*.test.mjs
status=$?
set -e
if (( status != 0 )); then
    printf 'run.sh: SDK tests failed (exit %s); logs: %s, %s\n' "$status" "$LOG" "$WORKER_LOG" >&2
else
    printf 'run.sh: SDK tests passed\n'
fi
exit "$status"
