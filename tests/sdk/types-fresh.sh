#!/usr/bin/env bash
# Fails when the JavaScript SDK's generated types or its committed build are stale:
#
#   1. sdk/js/src/schema.ts must be what the pinned openapi-typescript (sdk/js/package.json) makes of
#      the OpenAPI document that the API binary prints (`shipmate-api openapi`), byte for byte;
#   2. sdk/js/dist/ must be what `tsc` makes of sdk/js/src/.
#
#   tests/sdk/types-fresh.sh [REPO_ROOT]
#
# Builds no Rust: the API binary must exist (SHIPMATE_API_BIN, default <repo>/target/debug/shipmate-api);
# it runs with <repo>/.env sourced and needs no database. Installs sdk/js's dev dependencies
# (`npm ci`) when they are missing or differ from package-lock.json.
set -euo pipefail

REPO="$(cd "${1:-$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../..}" && pwd -P)"
BIN="${SHIPMATE_API_BIN:-$REPO/target/debug/shipmate-api}"
SDK="$REPO/sdk/js"

die() { printf 'types-fresh.sh: %s\n' "$*" >&2; exit 2; }

[[ -x "$BIN" ]] || die "no API binary at $BIN; build it first (cargo build -p shipmate-api)"
command -v npm >/dev/null || die "npm is not installed"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# The versions package-lock.json pins must be the ones installed: a different openapi-typescript
# or tsc could print different bytes and report a staleness that is not there (or hide one).
installed_matches_lock() {
    (cd "$SDK" && node -e '
        const fs = require("fs");
        const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8")).packages;
        for (const name of ["openapi-typescript", "typescript"]) {
            const dir = "node_modules/" + name;
            if (!fs.existsSync(dir + "/package.json")) process.exit(1);
            if (JSON.parse(fs.readFileSync(dir + "/package.json", "utf8")).version !== lock[dir].version) process.exit(1);
        }' 2>/dev/null)
}
if ! installed_matches_lock; then
    printf 'types-fresh.sh: installing sdk/js dev dependencies (npm ci)\n'
    (cd "$SDK" && npm ci --no-audit --no-fund --loglevel=error) >"$TMP/npm.log" 2>&1 \
        || { cat "$TMP/npm.log" >&2; die "npm ci failed in sdk/js"; }
fi

# The binary reads its settings from the environment; .env supplies them as for any other run.
(
    cd "$REPO"
    if [[ -f .env ]]; then set -a; . ./.env; set +a; fi
    "$BIN" openapi
) >"$TMP/openapi.json" 2>"$TMP/openapi.err" \
    || { cat "$TMP/openapi.err" >&2; die "$BIN openapi failed"; }

# Run from sdk/js as `npm run gen:types` does, so both find the same (absent) redocly config.
if ! (cd "$SDK" && node_modules/.bin/openapi-typescript "$TMP/openapi.json" -o "$TMP/schema.ts") >"$TMP/gen.log" 2>&1; then
    cat "$TMP/gen.log" >&2
    die "openapi-typescript could not turn the API's OpenAPI document into types (above); that is a defect of the document, to fix in the API"
fi

fresh=1
if ! diff -u "$SDK/src/schema.ts" "$TMP/schema.ts" >"$TMP/schema.diff"; then
    head -n 60 "$TMP/schema.diff" >&2
    printf '\nsdk/js/src/schema.ts is stale: run `npm run gen:types` in sdk/js after printing the document with\n' >&2
    printf '`target/debug/shipmate-api openapi > target/openapi.json` (from the repository root, .env sourced),\n' >&2
    printf 'then `npx tsc` in sdk/js, and commit src/schema.ts and dist/.\n' >&2
    fresh=0
fi

# `tsc` into a scratch folder: dist/ must hold exactly that, no more and no less.
(cd "$SDK" && node_modules/.bin/tsc --outDir "$TMP/dist") >"$TMP/tsc.log" 2>&1 \
    || { cat "$TMP/tsc.log" >&2; die "tsc failed in sdk/js"; }
if ! diff -ru "$SDK/dist" "$TMP/dist" >"$TMP/dist.diff"; then
    head -n 60 "$TMP/dist.diff" >&2
    printf '\nsdk/js/dist is stale: run `npx tsc` in sdk/js and commit dist/.\n' >&2
    fresh=0
fi

(( fresh )) || exit 1
printf 'types-fresh.sh: sdk/js/src/schema.ts and sdk/js/dist are up to date with the OpenAPI document\n'
