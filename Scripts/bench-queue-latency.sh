#!/usr/bin/env bash
# The latency from the end of a need to the start of its dependent, on a PostgreSQL queue woken by
# LISTEN/NOTIFY: W `queue-peer worker` processes work a throwaway server's queue while one producer
# enqueues RATE pairs a second (a need and its dependent, one batch each) for SECONDS; then
# `queue-peer pair-latencies` prints p50, p99 and the maximum (see Sources/QueuePeer/Pairs.swift).
#
#   swift build -c release --product queue-peer
#   Scripts/bench-queue-latency.sh [--peer .build/release/queue-peer] [--workers 4] [--rate 50] [--seconds 10]
#
# QUEUE_PEER_METRICS=prometheus in the environment has every process report its metrics too.
set -euo pipefail
cd "$(dirname "$0")/.."
peer=.build/release/queue-peer
workers=4
rate=50
seconds=10
while [ $# -gt 0 ]; do
    case "$1" in
        --peer) peer=$2; shift 2 ;;
        --workers) workers=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        *) echo "usage: $0 [--peer PATH] [--workers N] [--rate PAIRS_PER_SECOND] [--seconds N]" >&2; exit 2 ;;
    esac
done
[ -x "$peer" ] || { echo "no $peer: swift build -c release --product queue-peer" >&2; exit 2; }

postgres_env=$(Scripts/postgres.sh start)
eval "$postgres_env"
pids=()
stop() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    Scripts/postgres.sh stop
}
trap stop EXIT
url=$SEQUENCER_TEST_POSTGRES_URL
"$peer" install "$url"
for _ in $(seq "$workers"); do
    "$peer" worker "$url" < /dev/null > /dev/null &
    pids+=($!)
done
sleep 1
echo "$workers workers, $rate pairs a second for $seconds s"
"$peer" produce-pairs "$url" "$rate" "$seconds"
sleep 2
for pid in "${pids[@]}"; do kill -TERM "$pid"; done
wait "${pids[@]}" || true
pids=()
"$peer" pair-latencies "$url"
