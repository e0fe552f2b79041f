#!/usr/bin/env bash
# The README's test command (`npm test`): installs what is missing, brings up real PostgreSQL,
# ClickHouse, NATS and an SMTP sink, then runs the whole suite on both backends.
# TEST_BACKENDS=embedded skips the real services (a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x node_modules/.bin/bun ]; then
  npm install --no-audit --no-fund
fi
if [ "${TEST_BACKENDS:-embedded,server}" != "embedded" ]; then
  bash scripts/services.sh
fi
exec node_modules/.bin/bun test --timeout 60000 "$@"
