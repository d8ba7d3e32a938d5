#!/usr/bin/env bash
# Time to first page view: what a new user waits from the README's first command (`scripts/run`) on a
# fresh clone to the api listening, and to the first page view of a test page (headless Chromium)
# counted by the API the dashboard's analytics view reads.
#
#   benches/first-page-view/run.sh [COMMIT ...]     (default HEAD; several commits run back to back)
#
# Each commit is cloned into a scratch folder and built from nothing there (its own target/, removed
# afterwards; crates come from cargo's local registry cache, as on a machine that built once), against a
# fresh database of its own on the machine's PostgreSQL. Needs scripts/setup and tests/browser's npm
# packages (tests/browser/run.sh installs them). Prints one line per commit.
set -euo pipefail
REPO="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd -P)"
set -a; . "$REPO/.env"; set +a
base_db="${DATABASE_URL%/*}"
[[ -d "$REPO/tests/browser/node_modules/playwright-core" ]] \
    || (cd "$REPO/tests/browser" && npm ci --silent --no-audit --no-fund)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
since() { python3 -c "import time; print(f'{time.time() - $1:.1f}')"; }

run_one() {
    local commit=$1 dir port db api start pid listen build first token session project key
    dir="$(mktemp -d "${TMPDIR:-/tmp}/shipmate-fpv.XXXXXX")"
    port="$(free_port)"
    db="shipmate_fpv_$(date +%s)_$RANDOM"
    api="http://127.0.0.1:$port"
    git clone --quiet "$REPO" "$dir/shipmate"
    git -C "$dir/shipmate" checkout --quiet "$commit"
    start="$(date +%s.%N)"
    # The README's first command, on its own port and database (the environment wins over .env).
    (cd "$dir/shipmate" && exec setsid env DATABASE_URL="$base_db/$db" SHIPMATE_BIND="127.0.0.1:$port" \
        SHIPMATE_PUBLIC_URL="$api" SHIPMATE_QUEUE_PREFIX="fpv-$db" scripts/run) >"$dir/run.log" 2>&1 &
    pid=$!
    # shellcheck disable=SC2064
    trap "kill -- -$pid 2>/dev/null; psql -q '$base_db/postgres' -c 'drop database if exists $db with (force)' >/dev/null 2>&1; rm -rf '$dir'" EXIT
    until curl -fsS -o /dev/null --max-time 2 "$api/healthz" 2>/dev/null; do
        kill -0 "$pid" 2>/dev/null || { tail -n 30 "$dir/run.log" >&2; echo "run.sh: scripts/run exited" >&2; exit 1; }
        sleep 1
    done
    listen="$(since "$start")"
    build="$(grep -o 'Finished `release` profile.* in [0-9a-z. ]*' "$dir/run.log" | sed 's/.* in //' || true)"
    token="$(grep -o 'setup?token=[A-Za-z0-9]*' "$dir/run.log" | head -n 1 | cut -d= -f2)"
    session="$(curl -fsS -H 'Content-Type: application/json' "$api/v1/auth/setup" \
        -d "{\"token\": \"$token\", \"email\": \"bench@example.com\", \"password\": \"first page view\"}" \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
    read -r project key < <(curl -fsS -H 'Content-Type: application/json' -H "Authorization: Bearer $session" \
        "$api/v1/projects" -d "{\"name\": \"Bench\", \"slug\": \"fpv-$RANDOM$RANDOM\"}" \
        | python3 -c 'import json,sys; p=json.load(sys.stdin); print(p["id"], p["publishable_key"])')
    first="$(node "$REPO/benches/first-page-view/view.mjs" "$api" "$key" "$project" "$session")"
    printf '%s: listening after %s s (release build %s), first page view seen after %s s (%s s from opening the page)\n' \
        "$(git -C "$REPO" rev-parse --short "$commit")" "$listen" "${build:-?}" "$(since "$start")" "$first"
    kill -- -"$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    psql -q "$base_db/postgres" -c "drop database if exists $db with (force)" >/dev/null 2>&1 || true
    rm -rf "$dir"
    trap - EXIT
}

for commit in "${@:-HEAD}"; do
    run_one "$commit"
done
