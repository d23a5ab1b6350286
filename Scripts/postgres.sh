#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: Debian's binaries, a temporary data directory,
# 127.0.0.1 and a free port, password authentication.
#
#   eval "$(Scripts/postgres.sh start)"   # prints export SEQUENCER_TEST_POSTGRES_URL=... and _DIR=...
#   swift test
#   Scripts/postgres.sh stop              # stops it and deletes its data ($SEQUENCER_TEST_POSTGRES_DIR)
#
# `start --watch PID` also stops it when process PID ends (the tests start their own this way).
# `start --listen ADDRESS` also listens on ADDRESS (say, a veth address of a network namespace)
# and lets clients of that address's network in. `restart DIR` restarts the server of DIR
# (`pg_ctl restart -m fast`: its connections are cut), for the fault tests.
# As root (CI), the server runs as the `postgres` user: initdb and postgres refuse root.
set -euo pipefail

usage() { echo "usage: $0 start [--watch PID] [--listen ADDRESS] | stop [DIR] | restart DIR" >&2; exit 2; }

bin_dir() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] || {
        echo "no PostgreSQL binaries under /usr/lib/postgresql/*/bin: install Debian's postgresql package" >&2
        exit 1
    }
    echo "$dir"
}

# Runs a command as the server's user: `postgres` when we are root.
as_server() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# The data directory given (or $SEQUENCER_TEST_POSTGRES_DIR), if this script made it.
our_dir() {
    local dir=${1:-${SEQUENCER_TEST_POSTGRES_DIR:-}}
    [ -n "$dir" ] || { echo "no data directory (give it, or set SEQUENCER_TEST_POSTGRES_DIR)" >&2; exit 2; }
    case "$dir" in */sequencer-postgres.*) ;; *) echo "$dir is not a directory this script made" >&2; exit 2 ;; esac
    echo "$dir"
}

restart() {
    local dir
    dir=$(our_dir "${1:-}")
    as_server "$(bin_dir)/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null
}

stop() {
    local dir
    dir=$(our_dir "${1:-}")
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_server "$(bin_dir)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

# Closes the descriptors this script inherited besides stdin, stdout and stderr. A test process
# that runs this script may be setting up another child's pipes on another thread at that moment;
# a server or watcher started here would hold their write ends for as long as it lives, and the
# test reading such a pipe to its end would wait for ever (a CI run hung so: the watcher below
# held a served `sequencer`'s stdout). Bash's own script descriptor (255) stays.
close_inherited() {
    local fd
    for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        if [ "$fd" -gt 2 ] && [ "$fd" -lt 255 ]; then eval "exec $fd>&-"; fi
    done
}

start() {
    close_inherited
    local watch="" listen="127.0.0.1"
    while [ $# -gt 0 ]; do
        case "$1" in
            --watch) watch=${2:?--watch needs a process ID}; shift 2 ;;
            --listen) listen="$listen,${2:?--listen needs an address}"; shift 2 ;;
            *) usage ;;
        esac
    done
    local bin dir port password
    bin=$(bin_dir)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/sequencer-postgres.XXXXXX")
    chmod 755 "$dir"
    password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir "$dir/data"
    printf '%s\n' "$password" > "$dir/password"
    if [ "$(id -u)" = 0 ]; then chown -R postgres: "$dir"; fi
    if ! as_server "$bin/initdb" -D "$dir/data" -U postgres --pwfile="$dir/password" --auth-local=trust \
        --auth-host=scram-sha-256 -E UTF8 --no-instructions >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        rm -rf "$dir"
        exit 1
    fi
    if [ "$listen" != 127.0.0.1 ]; then
        echo "host all all samenet scram-sha-256" >> "$dir/data/pg_hba.conf"
    fi
    # Loopback only (and --listen); the socket in the data directory; enough connections for parallel tests.
    if ! as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=$listen -p $port -k $dir -c max_connections=300" start >/dev/null; then
        cat "$dir/server.log" >&2
        rm -rf "$dir"
        exit 1
    fi
    if [ -n "$watch" ]; then
        # Stops the server once the watched process ends, whatever way it ends. It keeps none of
        # the descriptors this script was given beyond the standard three: a pipe it held would
        # not reach its end while the watched process lives.
        setsid bash -c 'for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
            tail --pid="$1" -f /dev/null; "$2" stop "$3"' _ "$watch" "$0" "$dir" </dev/null >/dev/null 2>&1 &
    fi
    echo "export SEQUENCER_TEST_POSTGRES_URL=postgres://postgres:$password@127.0.0.1:$port/postgres?sslmode=disable"
    echo "export SEQUENCER_TEST_POSTGRES_DIR=$dir"
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    restart) shift; restart "$@" ;;
    *) usage ;;
esac
