# Sourced by tests/*/run.sh: starts shipmate-api and a shipmate-worker on a free port with a
# database and a Redis key prefix of their own (answers ask tests/fake-chat.mjs), and removes them
# all on exit. The caller sets REPO, BIN, WORKER_BIN and STACK_NAME; afterwards API_URL, LOG and
# WORKER_LOG are set.

# A variable's value from <repo>/.env (last assignment wins, quotes removed), else empty.
env_file_value() {
    local v=""
    if [[ -f "$REPO/.env" ]]; then
        v="$(sed -n "s/^[[:space:]]*\(export[[:space:]]\+\)\?$1=//p" "$REPO/.env" | tail -n 1)"
        v="${v%\"}"; v="${v#\"}"; v="${v%\'}"; v="${v#\'}"
    fi
    printf '%s' "$v"
}

# The base DATABASE_URL: <repo>/.env first, then the environment, then the documented default.
BASE_DB_URL="$(env_file_value DATABASE_URL)"
BASE_DB_URL="${BASE_DB_URL:-${DATABASE_URL:-postgres://127.0.0.1:5432/shipmate}}"
REDIS="$(env_file_value REDIS_URL)"
REDIS="${REDIS:-${REDIS_URL:-redis://127.0.0.1:6379}}"

DB_NAME="shipmate_${STACK_NAME}_${RANDOM}${RANDOM}"
TEST_DB_URL="$(python3 - "$BASE_DB_URL" "$DB_NAME" <<'PY'
import sys
from urllib.parse import urlsplit, urlunsplit
u = urlsplit(sys.argv[1])
print(urlunsplit(u._replace(path="/" + sys.argv[2])))
PY
)"
# The api and the worker share this prefix, so no other deployment's worker takes these jobs.
QUEUE_PREFIX="shipmate-${STACK_NAME}-$$-${RANDOM}${RANDOM}"

PORT="$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')"
API_URL="http://127.0.0.1:$PORT"
LOG_DIR="$REPO/target/${STACK_NAME}-tests"
LOG="$LOG_DIR/api.log"
WORKER_LOG="$LOG_DIR/worker.log"
mkdir -p "$LOG_DIR"

API_PID=""
WORKER_PID=""
CHAT_PID=""
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
    stop "$CHAT_PID"
    if [[ "${SHIPMATE_KEEP_DB:-0}" != "1" ]]; then
        if command -v psql >/dev/null; then
            psql --no-psqlrc -q "$BASE_DB_URL" -c "drop database if exists \"$DB_NAME\" with (force)" >/dev/null 2>&1 || true
        fi
        if command -v redis-cli >/dev/null; then
            redis-cli -u "$REDIS" --scan --pattern "$QUEUE_PREFIX:*" 2>/dev/null \
                | while IFS= read -r key; do redis-cli -u "$REDIS" del "$key" >/dev/null 2>&1 || true; done
        fi
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Webhook receivers in the tests listen on 127.0.0.1, which the service refuses unless allowed; a short
# retry schedule lets a delivery to a failing receiver reach `failed` within seconds.
WEBHOOK_HOSTS="${SHIPMATE_WEBHOOK_ALLOWED_HOSTS:-127.0.0.1}"
WEBHOOK_RETRIES="${SHIPMATE_WEBHOOK_RETRY_SCHEDULE:-1,1}"

# Answers ask a small OpenAI-compatible chat API of the tests' own (tests/fake-chat.mjs).
CHAT_PORT="$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')"
node "$REPO/tests/fake-chat.mjs" "$CHAT_PORT" >"$LOG_DIR/fake-chat.log" 2>&1 &
CHAT_PID=$!

# Run from the repository root so the binaries' own .env loading finds REDIS_URL, the models and
# friends; the variables set here win over the file.
(
    cd "$REPO"
    exec env DATABASE_URL="$TEST_DB_URL" \
        SHIPMATE_BIND="127.0.0.1:$PORT" \
        SHIPMATE_PUBLIC_URL="$API_URL" \
        SHIPMATE_DEV_LOGIN=1 \
        SHIPMATE_QUEUE_PREFIX="$QUEUE_PREFIX" \
        SHIPMATE_WEBHOOK_ALLOWED_HOSTS="$WEBHOOK_HOSTS" \
        SHIPMATE_WEBHOOK_RETRY_SCHEDULE="$WEBHOOK_RETRIES" \
        SHIPMATE_CHAT_URL="http://127.0.0.1:$CHAT_PORT/v1" \
        SHIPMATE_CHAT_MODEL=fake-chat \
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
        SHIPMATE_WEBHOOK_ALLOWED_HOSTS="$WEBHOOK_HOSTS" \
        SHIPMATE_WEBHOOK_RETRY_SCHEDULE="$WEBHOOK_RETRIES" \
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

