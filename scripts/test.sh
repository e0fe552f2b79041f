#!/usr/bin/env bash
# The README's test command (`npm test`): installs what is missing, brings up real PostgreSQL,
# ClickHouse, NATS and an SMTP sink, then runs the whole suite on both backends.
# TEST_BACKENDS=embedded skips the real services (a quick local run): tests that need one (ClickHouse
# round trips, Chromium) report themselves skipped. The suite's wall time is printed at its end.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x node_modules/.bin/bun ]; then
  npm install --no-audit --no-fund
fi
if [ "${TEST_BACKENDS:-embedded,server}" != "embedded" ]; then
  bash scripts/services.sh
fi
# Test files run in parallel worker processes (docs/testing.md): TEST_PARALLEL of them, the slowest
# files first by the committed test/timings.json (read only; refresh it by hand with
# --update-timings, see docs/testing.md). A test (and a hook) may take 120 s unless it says otherwise:
# room for a loaded 2-core machine (docs/testing.md, "On a loaded machine").
start=$SECONDS
status=0
node_modules/.bin/bun test --timeout 120000 --parallel="${TEST_PARALLEL:-4}" --timings=test/timings.json "$@" || status=$?
echo "suite wall time: $((SECONDS - start)) s (TEST_BACKENDS=${TEST_BACKENDS:-embedded,server})"
exit "$status"
