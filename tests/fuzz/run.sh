#!/usr/bin/env bash
# Property-based fuzzing of the HTTP surface from its own OpenAPI document with schemathesis:
# every operation gets generated requests (valid and invalid), signed in as a project owner with
# the project's key; the run fails on any 5xx and on any response that does not match the
# operation's documented schema (status code, content type, body). Operations that would end the
# fuzzer's own session (logout, ending a session, disabling the only account it can name) are left
# out: schemathesis reuses ids it sees in answers, and every later request would then answer 401.
#
#   tests/fuzz/run.sh [REPO_ROOT]        SHIPMATE_FUZZ_EXAMPLES=N (default 50 per operation)
#
# Builds nothing: the binaries must exist (see tests/stack.sh). schemathesis comes from PyPI into a
# cached virtualenv (${SHIPMATE_CACHE_DIR:-/var/cache/shipmate}/schemathesis-venv).
set -Eeuo pipefail

REPO="$(cd "${1:-$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../..}" && pwd -P)"
BIN="${SHIPMATE_API_BIN:-$REPO/target/debug/shipmate-api}"
WORKER_BIN="${SHIPMATE_WORKER_BIN:-$REPO/target/debug/shipmate-worker}"
CACHE="${SHIPMATE_CACHE_DIR:-/var/cache/shipmate}"
VENV="$CACHE/schemathesis-venv"
SCHEMATHESIS_VERSION=4.32.5
EXAMPLES="${SHIPMATE_FUZZ_EXAMPLES:-50}"

die() { printf 'run.sh: %s\n' "$*" >&2; exit 2; }
[[ -x "$BIN" ]] || die "no API binary at $BIN; build it first (cargo build -p shipmate-api)"
[[ -x "$WORKER_BIN" ]] || die "no worker binary at $WORKER_BIN; build it first"

if ! "$VENV/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

STACK_NAME=fuzz
# Generated sign-ins would spend the per-client sign-in limit in seconds and leave the bodies of login,
# register and resets unfuzzed behind 429s; the limit has HTTP tests of its own.
export SHIPMATE_RATE_AUTH_PER_MINUTE=0
# shellcheck source=../stack.sh
. "$REPO/tests/stack.sh"

# An owner with a project, an index and a document, so path parameters can hit real resources.
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
TOKEN="$(curl -fsS -X POST "$API_URL/v1/auth/dev-login" -H 'Content-Type: application/json' \
    -d '{"email": "fuzz@example.com"}' | json '["token"]')"
PROJECT="$(curl -fsS -X POST "$API_URL/v1/projects" -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/json' -d '{"name": "Fuzz", "slug": "fuzz"}')"
KEY="$(json '["api_key"]' <<<"$PROJECT")"
export FUZZ_PROJECT_ID="$(json '["id"]' <<<"$PROJECT")"
export FUZZ_INDEX_ID="$(curl -fsS -X POST "$API_URL/v1/indexes" -H "X-Project-Key: $KEY" \
    -H 'Content-Type: application/json' -d '{"name": "docs", "embedding_model": "all-minilm-l6-v2"}' | json '["id"]')"
export FUZZ_DOC_ID="$(curl -fsS -X POST "$API_URL/v1/indexes/$FUZZ_INDEX_ID/documents" -H "X-Project-Key: $KEY" \
    -H 'Content-Type: application/json' -d '{"content": "Shipmate fuzzing document."}' | json '["id"]')"

set +e
"$VENV/bin/schemathesis" --config-file "$REPO/tests/fuzz/schemathesis.toml" run "$API_URL/v1/openapi.json" \
    --header "Authorization: Bearer $TOKEN" \
    --header "X-Project-Key: $KEY" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --max-examples "$EXAMPLES" \
    --exclude-path /v1/auth/logout \
    --exclude-path '/v1/auth/sessions/{session_id}' \
    --exclude-path '/v1/admin/users/{user_id}' \
    --exclude-path /v1/indexes/{index_id} \
    --exclude-path-regex '^/v1/projects/\{project_id\}(/api-key/rotate)?$' \
    --phases examples,coverage,fuzzing \
    --seed 1 \
    --no-color
status=$?
set -e
if (( status != 0 )); then
    printf 'run.sh: schemathesis found problems (exit %s); logs: %s\n' "$status" "$LOG" >&2
else
    printf 'run.sh: schemathesis passed\n'
fi
exit "$status"
