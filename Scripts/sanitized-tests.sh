#!/usr/bin/env bash
# The tests under ThreadSanitizer, as once per issue at least (CI runs them when
# SEQUENCER_CI_SANITIZE=1: they cost 20 of its minutes). Needs what .ci/run installs, and a
# PostgreSQL server for the queue's tests (eval "$(Scripts/postgres.sh start)").
#
#     Scripts/sanitized-tests.sh
#
# With the pthread lock, which the sanitizer can see (Runtime/Locked.swift); in .build-tsan,
# removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export SEQUENCER_WARNINGS_AS_ERRORS=1
export SEQUENCER_REQUIRE_BROWSER=1
# Under the sanitizer the Swift runtime takes a lock for every lookup of generic metadata (its
# `once` never takes the fast path, so that the sanitizer sees it): threads queue on a few futexes,
# and a loaded machine makes the queue crawl. Tests that start sanitized processes (the CLI, the
# crash workers, shells) load this 2-core machine most; run with everything else they stalled the
# whole test process for a minute at a time (time limits exceeded in suites with no process at
# all, every pool thread parked in `once_slow` under `getCache`). So they run in a second pass,
# two tests at a time. Each pass is bounded; a suite that fails without a race report, or never
# ends, runs again alone, up to three more times, said loudly.
tsan_log=$(mktemp)
process_suites="SequencerCommandTests\.|SequencerProcessTests\.|CrashHarnessTests|PostgresFaultTests|LeaseLossTests|ProcessParentDeathTests"
# Reports known to be the sanitizer's blind spots, each explained there.
export TSAN_OPTIONS="suppressions=$PWD/.ci/tsan-suppressions.txt${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
# To a file, not through a pipe: a killed test process's children, in process groups of their
# own, would hold a pipe open and `tee` would wait for ever.
sanitized_tests() {
    local status=0
    # Without the OpenTelemetry trait: swift-otel (its HTTP client, protobuf) would add minutes
    # to this build, for a binary (sequencer-otel) whose tests run unsanitized.
    timeout --signal=KILL 25m swift test --sanitize=thread -Xswiftc -DSEQUENCER_PTHREAD_LOCK --disable-default-traits \
        --scratch-path .build-tsan "$@" > "$tsan_log" 2>&1 || status=$?
    cat "$tsan_log"
    return "$status"
}
# The suites that failed, or that started and never ended (a killed run).
unfinished_suites() {
    { grep -oE "✘ Suite [A-Za-z0-9_]+ failed" "$tsan_log" | awk '{print $3}'
      comm -23 <(grep -oE "◇ Suite [A-Za-z0-9_]+ started" "$tsan_log" | awk '{print $3}' | sort -u) \
               <(grep -oE "[✔✘] Suite [A-Za-z0-9_]+ (passed|failed)" "$tsan_log" | awk '{print $3}' | sort -u)
    } | sort -u | paste -sd'|' || true
}
sanitized_pass() {
    local name=$1; shift
    local selection=("$@")
    for attempt in 1 2 3 4; do
        if sanitized_tests "${selection[@]}"; then return 0; fi
        if grep -q "WARNING: ThreadSanitizer" "$tsan_log"; then
            echo "ThreadSanitizer reported a race"
            exit 1
        fi
        if [ "$attempt" = 4 ]; then
            echo "the sanitized $name failed four times"
            exit 1
        fi
        local failed
        failed=$(unfinished_suites)
        [ -n "$failed" ] && selection=(--filter "$failed" --experimental-maximum-parallelization-width 2)
        echo "WARNING: the sanitized $name failed without a race report; running again: ${failed:-the same selection}"
    done
}
# The browser tests run once, above: they check pages and their timings, which a sanitized
# server (several times slower) would miss; the server's own parts run here in ServeUnitTests.
# The parsers' tests (YAML workflow files; ninja manifests, logs and depfiles, with their fuzz
# runs) are single-threaded logic: the sanitizer has nothing to find there, and they cost it
# minutes. Ninja mode's threads run here all the same, in the sanitized binary that the
# command-line suites (second pass) build with.
sanitized_pass "tests in one process" --skip "$process_suites|BrowserTests|SequencerNinjaTests\.|SequencerWorkflowFileTests\."
# Of the suites that start processes, the second pass runs those where threads, signals and
# processes meet: the process runner, crashes and kills, interrupts, leases, live output and
# watch, the journal's one-recorder lock, and ninja mode's builds. The command line's other
# suites check what a run prints and records, one process at a time; they ran in the first,
# unsanitized pass, and sanitized they cost CI minutes that it does not have (45 in all).
concurrent_process_suites="SequencerProcessTests\.|CrashHarnessTests|PostgresFaultTests|LeaseLossTests|ProcessParentDeathTests|WorkerKillTests|WorkerPartitionTests|QueueRunTests|InterruptTests|WorkerDrainTests|LiveProgressTests|LargeOutputTests|WatchTests|NinjaModeTests|OneRecorderAtATime"
sanitized_pass "tests that start processes" --filter "$concurrent_process_suites" --experimental-maximum-parallelization-width 2
rm -rf .build-tsan
