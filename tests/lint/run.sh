#!/usr/bin/env bash
# Lints the JavaScript the api serves and the SDK's browser scripts (tests/lint/eslint.config.mjs):
# recommended rules, imports that resolve and name what exists, and no import circles.
set -euo pipefail
REPO="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd -P)"
cd "$REPO/tests/lint"
[[ -x node_modules/.bin/eslint ]] || npm ci --silent --no-audit --no-fund
cd "$REPO"
tests/lint/node_modules/.bin/eslint --max-warnings 0 -c tests/lint/eslint.config.mjs 'api/assets/**/*.js' 'sdk/script/*.js'
echo "lint: ok"
