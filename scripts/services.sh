#!/usr/bin/env bash
# Makes sure the real services the server-mode tests use are up on this machine:
#   PostgreSQL 127.0.0.1:5432 (user postgres, password postgres), ClickHouse HTTP 127.0.0.1:8123,
#   NATS with JetStream 127.0.0.1:4222, and an SMTP sink 127.0.0.1:2525 (scripts/smtp-sink.py);
#   plus Debian's chromium for the browser tests, HAProxy for the cluster test (test/cluster), wrk for bench/
#   and strace for test/stores/sqlite-durability.test.ts.
# Idempotent: a service that answers is left alone; a missing one is apt-installed, a stopped one
# started in the background (there is no systemd here). Prints one line per service and exits
# non-zero, naming what failed, if any service cannot be brought up.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WAIT_SECONDS="${SERVICES_WAIT_SECONDS:-60}"
SMTP_SINK_FILE="${SMTP_SINK_FILE:-/tmp/hookcap-smtp-sink.jsonl}"
SMTP_SINK_LOG="${SMTP_SINK_LOG:-/tmp/hookcap-smtp-sink.log}"
export SMTP_SINK_FILE

if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
export PATH="$PATH:/usr/sbin:/sbin"

FAILED=()
APT_UPDATED=0

say() { printf '%-11s %s\n' "$1" "$2"; }
fail() { say "$1" "FAILED: $2"; FAILED+=("$1"); }

apt_install() {
  if [ "$APT_UPDATED" -eq 0 ]; then
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
    APT_UPDATED=1
  fi
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# wait_until SECONDS COMMAND...: polls every half second until COMMAND succeeds.
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.5
  done
}

# First line a TCP server sends on connect (NATS INFO, SMTP 220), without curl or nc.
tcp_banner() {
  local host=$1 port=$2 line=''
  { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || return 1
  IFS= read -r -t 2 line <&3
  exec 3<&- 3>&-
  printf '%s' "$line"
}

http_get() {
  local host=$1 port=$2 path=$3
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 2 "http://$host:$port$path" 2>/dev/null
    return
  fi
  { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || return 1
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$path" "$host" >&3
  timeout 2 cat <&3 | sed '1,/^\r\{0,1\}$/d'
  exec 3<&- 3>&-
}

# --- PostgreSQL -------------------------------------------------------------------------------

pg_answers() { pg_isready -h 127.0.0.1 -p 5432 -t 1 -q 2>/dev/null; }
pg_password_ok() {
  PGPASSWORD=postgres PGCONNECT_TIMEOUT=3 psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -tAqc 'SELECT 1' >/dev/null 2>&1
}
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi
}

ensure_postgres() {
  local how='already running'
  if ! pg_answers; then
    if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! command -v pg_isready >/dev/null 2>&1 \
      || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
      apt_install postgresql || { fail postgres 'apt-get install postgresql failed'; return; }
    fi
    local version
    version="$(ls /etc/postgresql | sort -V | tail -n 1)"
    if [ ! -d "/etc/postgresql/$version/main" ]; then
      "${SUDO[@]}" pg_createcluster "$version" main >/dev/null || { fail postgres "pg_createcluster $version main failed"; return; }
    fi
    "${SUDO[@]}" pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || true
    if ! wait_until "$WAIT_SECONDS" pg_answers; then
      fail postgres "not answering on 127.0.0.1:5432 after ${WAIT_SECONDS}s; see /var/log/postgresql/postgresql-$version-main.log"
      return
    fi
    how="started (PostgreSQL $version)"
  fi
  # Debian authenticates TCP logins by password and ships postgres without one.
  if ! pg_password_ok; then
    as_postgres psql -qc "ALTER USER postgres PASSWORD 'postgres'" >/dev/null 2>&1
    if ! pg_password_ok; then
      fail postgres 'up, but postgres:postgres cannot log in over TCP (check pg_hba.conf)'
      return
    fi
  fi
  say postgres "up  127.0.0.1:5432 postgres://postgres:postgres@127.0.0.1:5432/postgres ($how)"
}

# --- ClickHouse -------------------------------------------------------------------------------

clickhouse_answers() { [ "$(http_get 127.0.0.1 8123 /ping)" = 'Ok.' ]; }

clickhouse_binary() {
  local b
  for b in /usr/bin/clickhouse-server /usr/sbin/clickhouse-server; do
    [ -x "$b" ] && { echo "$b"; return 0; }
  done
  return 1
}

ensure_clickhouse() {
  local how='already running'
  if ! clickhouse_answers; then
    local bin
    if ! bin="$(clickhouse_binary)"; then
      apt_install clickhouse-server || { fail clickhouse 'apt-get install clickhouse-server failed'; return; }
      bin="$(clickhouse_binary)" || { fail clickhouse 'clickhouse-server binary not found after install'; return; }
    fi
    "${SUDO[@]}" install -d -o clickhouse -g clickhouse /var/lib/clickhouse /var/log/clickhouse-server
    # As the init script does: the clickhouse user, in the background. --oknodo leaves a server
    # that is still starting alone instead of starting a second one.
    ( cd / && "${SUDO[@]}" start-stop-daemon --start --quiet --oknodo --chuid clickhouse:clickhouse \
        --background --exec "$bin" -- --config-file=/etc/clickhouse-server/config.xml )
    if ! wait_until "$WAIT_SECONDS" clickhouse_answers; then
      fail clickhouse "not answering on http://127.0.0.1:8123/ping after ${WAIT_SECONDS}s"
      local pids
      pids="$(pgrep -d ' ' -f "^$bin" || true)"
      # A server that failed to bind 127.0.0.1:8123 can linger half-up on [::1] and keep the
      # data directory locked; it will not recover on its own.
      [ -n "$pids" ] && echo "  clickhouse-server is running but not answering (pid $pids): stop it and re-run" >&2
      echo '  last lines of /var/log/clickhouse-server/clickhouse-server.err.log:' >&2
      "${SUDO[@]}" tail -n 5 /var/log/clickhouse-server/clickhouse-server.err.log 2>/dev/null | cut -c1-300 >&2
      return
    fi
    how='started'
  fi
  local version
  version="$(http_get 127.0.0.1 8123 '/?query=SELECT%20version()')"
  say clickhouse "up  http://127.0.0.1:8123 (ClickHouse ${version:-?}, $how)"
}

# --- NATS -------------------------------------------------------------------------------------

nats_info() { tcp_banner 127.0.0.1 4222; }
nats_answers() { [[ "$(nats_info)" == INFO* ]]; }

ensure_nats() {
  local how='already running'
  if ! nats_answers; then
    if [ ! -x /usr/sbin/nats-server ]; then
      apt_install nats-server || { fail nats 'apt-get install nats-server failed'; return; }
    fi
    "${SUDO[@]}" mkdir -p /var/lib/nats-server
    ( cd / && "${SUDO[@]}" start-stop-daemon --start --quiet --oknodo --background --exec /usr/sbin/nats-server -- \
        -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log )
    if ! wait_until "$WAIT_SECONDS" nats_answers; then
      fail nats "not answering on 127.0.0.1:4222 after ${WAIT_SECONDS}s; see /var/log/nats-server.log"
      return
    fi
    how='started'
  fi
  if [[ "$(nats_info)" != *'"jetstream":true'* ]]; then
    fail nats 'a NATS server on 127.0.0.1:4222 runs without JetStream (restart it with -js)'
    return
  fi
  say nats "up  nats://127.0.0.1:4222 (JetStream, $how)"
}

# --- SMTP sink --------------------------------------------------------------------------------

SINK_PYTHON=/usr/bin/python3 # the Debian interpreter, where python3-aiosmtpd lives

smtp_answers() { [[ "$(tcp_banner 127.0.0.1 2525)" == 220* ]]; }

ensure_smtp_sink() {
  local how='already running'
  if ! smtp_answers; then
    if ! "$SINK_PYTHON" -c 'import aiosmtpd' 2>/dev/null; then
      apt_install python3-aiosmtpd || { fail smtp-sink 'apt-get install python3-aiosmtpd failed'; return; }
    fi
    setsid "$SINK_PYTHON" "$SCRIPT_DIR/smtp-sink.py" >>"$SMTP_SINK_LOG" 2>&1 </dev/null &
    disown
    if ! wait_until "$WAIT_SECONDS" smtp_answers; then
      fail smtp-sink "not answering on 127.0.0.1:2525 after ${WAIT_SECONDS}s; see $SMTP_SINK_LOG"
      return
    fi
    how='started'
  fi
  # A sink that was already running writes where it was told to at its start, which it logged.
  local file
  file="$(grep -o 'writing .*' "$SMTP_SINK_LOG" 2>/dev/null | tail -n 1 | cut -d' ' -f2-)"
  say smtp-sink "up  smtp://127.0.0.1:2525 -> ${file:-$SMTP_SINK_FILE} ($how)"
}

# --- Chromium (browser tests: test/browser, driven by playwright-core) -------------------------

ensure_chromium() {
  local how='already installed'
  if [ ! -x /usr/bin/chromium ]; then
    apt_install chromium || { fail chromium 'apt-get install chromium failed'; return; }
    how='installed'
  fi
  say chromium "ok  /usr/bin/chromium ($how)"
}

# --- HAProxy (test/cluster runs deploy/haproxy.cfg; each test starts and stops its own) -------

ensure_haproxy() {
  local how='already installed'
  if [ ! -x /usr/sbin/haproxy ]; then
    # With systemd, Debian's package also starts haproxy.service on its default config, which
    # listens nowhere; the test runs its own HAProxy on a free port either way.
    apt_install haproxy || { fail haproxy 'apt-get install haproxy failed'; return; }
    how='installed'
  fi
  say haproxy "ok  $(/usr/sbin/haproxy -v 2>/dev/null | head -n 1 | cut -d' ' -f1-3) ($how)"
}

# --- wrk (the benches' load generator: bench/; no test needs it, so a failure only warns) ------

ensure_wrk() {
  local how='already installed'
  if ! command -v wrk >/dev/null 2>&1; then
    if ! apt_install wrk; then
      say wrk 'missing (apt-get install wrk failed; only bench/ needs it)'
      return
    fi
    how='installed'
  fi
  say wrk "ok  $(command -v wrk) ($how)"
}

# --- strace (test/stores/sqlite-durability.test.ts counts the captures store's WAL syncs) -------

ensure_strace() {
  local how='already installed'
  if ! command -v strace >/dev/null 2>&1; then
    apt_install strace || { fail strace 'apt-get install strace failed'; return; }
    how='installed'
  fi
  say strace "ok  $(command -v strace) ($how)"
}

ensure_postgres
ensure_clickhouse
ensure_nats
ensure_smtp_sink
ensure_chromium
ensure_haproxy
ensure_wrk
ensure_strace

if [ "${#FAILED[@]}" -gt 0 ]; then
  echo "services.sh: could not bring up: ${FAILED[*]}" >&2
  exit 1
fi
