#!/usr/bin/env bash
# A throwaway PostgreSQL server for the store's tests (tests/store.cmake runs
# "start" as a ctest fixture before them and "stop" after them, also when
# they fail). The cluster lives in DIR, owned by an unprivileged user
# (PostgreSQL refuses to run as root: as root this script runs the server
# as "nobody"), and listens only on a Unix socket in DIR: no TCP port, so
# nothing can collide with another server. Its superuser is "zerolab",
# trusted on the socket; the tests connect with
#   postgresql:///zerolab?host=DIR&user=zerolab
#
# Without PostgreSQL's server installed, "start" writes DIR/unavailable (the
# reason) and succeeds, and the PostgreSQL tests skip with that reason.
#
# Example:
#   scripts/pg-test-server.sh start /tmp/zerolab-pg-test
#   scripts/pg-test-server.sh stop /tmp/zerolab-pg-test
set -euo pipefail

if [ $# -ne 2 ] || { [ "$1" != start ] && [ "$1" != stop ]; }; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
action=$1
dir=$2

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/pg_ctl" ]; then
  # Not installed: the PostgreSQL tests skip, saying why (DIR/unavailable).
  reason="PostgreSQL's server is not installed (scripts/install-deps.sh installs postgresql)"
  rm -rf "$dir"
  if [ "$action" = start ]; then
    mkdir -p "$dir"
    echo "$reason" >"$dir/unavailable"
    echo "pg-test-server: $reason: the PostgreSQL tests skip"
  fi
  exit 0
fi

as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  as_owner=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env HOME=/tmp)
fi

stop() {
  if [ -f "$dir/data/postmaster.pid" ]; then
    "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

if [ "$action" = stop ]; then
  stop
  exit 0
fi

stop  # a server left behind by an interrupted run
mkdir -p "$dir"
chmod 0755 "$dir"
if [ "$(id -u)" -eq 0 ]; then chown nobody "$dir"; fi
"${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U zerolab --auth=trust -E UTF8 --no-sync \
  >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
# fsync off: a test server's data need not survive a power cut.
"${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-k $dir -c listen_addresses= -c fsync=off -c max_connections=60" start >/dev/null \
  || { cat "$dir/server.log" >&2; exit 1; }
"${as_owner[@]}" "$bindir/createdb" -h "$dir" -U zerolab zerolab
echo "pg-test-server: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on $dir"
