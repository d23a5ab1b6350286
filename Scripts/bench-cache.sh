#!/usr/bin/env bash
# Benchmarks the shared output cache of Sequencer's ninja mode (SEQUENCER_CACHE) on zstd's CMake
# project (Debian's source package, build/cmake; the static library, --zstd-full for everything),
# and sets it beside ccache, in one sitting, A/B alternating where it compares, medians:
#   1. cold build without the cache vs with an empty one (fresh each run): the overhead (goal <= 1.05);
#   2. warm build from a second checkout at another absolute path (and depth), with the cache the
#      first checkout filled: hit rate (goal >= 95%), warm time / no-op time (goal <= 1.3), and
#      outputs byte-identical to the first checkout's (libzstd.a);
#   3. the same with Debian's ninja and ccache as compiler launcher (CCACHE_BASEDIR = the checkout,
#      CCACHE_NOHASHDIR=1): warm time, ccache's hit rate; sequencer/ccache (goal < 1);
#   4. bytes the cache holds after one cold build (du -sb, `sequencer cache stats`), next to the
#      size of the build's outputs.
#
#   Scripts/bench-cache.sh --sequencer .build/release/sequencer           # 5 runs per measurement
#   Scripts/bench-cache.sh --sequencer PATH --quick                       # 2 runs
# Options: --runs N (default 5; --quick: 2), --zstd-full, --jobs N (ninja -j, default 2),
# --keep (keep the temporary directory). Exit status: 0 success, 1 a step failed or a check did
# not hold (a warm build that does not hit, outputs that differ), 2 bad arguments or setup.
# Needs Debian 12 (root or sudo): enables deb-src if needed (as Scripts/bench-ninja.sh does),
# installs cmake, ccache, gcc, time, dpkg-dev and ninja-build if missing.
set -euo pipefail

sequencer="" runs="" quick=0 zstd_full=0 jobs=2 keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --sequencer) [ $# -ge 2 ] || { echo "bench-cache: --sequencer needs a PATH" >&2; exit 2; }; sequencer=$2; shift 2 ;;
        --runs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "bench-cache: --runs needs a positive number" >&2; exit 2; }; runs=$2; shift 2 ;;
        --jobs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "bench-cache: --jobs needs a positive number" >&2; exit 2; }; jobs=$2; shift 2 ;;
        --quick) quick=1; shift ;;
        --zstd-full) zstd_full=1; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-cache: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$sequencer" ] || { echo "bench-cache: --sequencer PATH is required" >&2; exit 2; }
[ -x "$sequencer" ] || { echo "bench-cache: $sequencer is not an executable file" >&2; exit 2; }
sequencer=$(readlink -f "$sequencer")
[ -n "$runs" ] || runs=$([ $quick = 1 ] && echo 2 || echo 5)
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
unset SEQUENCER_CACHE SEQUENCER_CACHE_ROOT SEQUENCER_CACHE_NAMESPACE SEQUENCER_CACHE_TRUST SEQUENCER_CACHE_READ_ONLY SEQUENCER_CACHE_ENV
unset CCACHE_DIR CCACHE_BASEDIR CCACHE_NOHASHDIR CCACHE_DISABLE CCACHE_CONFIGPATH

apt_updated=0
source "$(dirname "${BASH_SOURCE[0]}")/deb-src.sh"
ensure_deb_src bench-cache
missing=()
command -v dpkg-source >/dev/null 2>&1 || missing+=(dpkg-dev)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v ccache >/dev/null 2>&1 || missing+=(ccache)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
[ -x /usr/bin/time ] || missing+=(time)
[ -x /usr/bin/ninja ] || missing+=(ninja-build)
if [ ${#missing[@]} -gt 0 ]; then
    echo "bench-cache: apt-get install ${missing[*]}"
    [ $apt_updated = 1 ] || $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-cache.XXXXXX")
if [ $keep = 1 ]; then echo "bench-cache: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
echo "bench-cache: apt-get source zstd (into $work)"
(cd "$work" && apt-get source -qq zstd >"$work/apt-source.log" 2>&1) || { cat "$work/apt-source.log" >&2; echo "bench-cache: apt-get source failed" >&2; exit 2; }
zstd_src=$(find "$work" -mindepth 1 -maxdepth 1 -type d \( -name 'libzstd-*' -o -name 'zstd-*' \) | head -n 1)
[ -f "$zstd_src/build/cmake/CMakeLists.txt" ] || { echo "bench-cache: no build/cmake/CMakeLists.txt in $zstd_src" >&2; exit 2; }
mkdir -p "$work/bin"; ln -s "$sequencer" "$work/bin/ninja"; SEQ=$work/bin/ninja  # ninja mode, as `ninja`

fail() { echo "bench-cache: FAILED: $1" >&2; [ -f "$work/step.log" ] && tail -n 30 "$work/step.log" >&2; exit 1; }
# step DESCRIPTION CMD...: runs CMD (output in $work/step.log), fails the script when it fails; sets $secs.
step() {
    local what=$1; shift
    local t0=$EPOCHREALTIME
    "$@" >"$work/step.log" 2>&1 </dev/null || fail "$what (exit $?: $*)"
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.3f", b-a}')
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (b>0 ? a/b : 0)}'; }
opts=(); [ $zstd_full = 1 ] || opts=(-DZSTD_BUILD_SHARED=OFF -DZSTD_BUILD_PROGRAMS=OFF)
# configure TOP BUILDDIR NINJA [cmake args...]
configure() { local top=$1 b=$2 n=$3; shift 3
    step "cmake configure of $b" cmake -G Ninja -S "$top/build/cmake" -B "$b" -DCMAKE_MAKE_PROGRAM="$n" "${opts[@]}" "$@"; }
# checkout DIR: a copy of the source tree of P1 without its build directories.
checkout() { mkdir -p "$1" && tar -C "$p1" --exclude=./build-seq --exclude=./build-cc -cf - . | tar -C "$1" -xf -; }
seq_build() { local top=$1 cache=$2; shift 2  # ro=1: the cache read-only
    env ${ro:+SEQUENCER_CACHE_READ_ONLY=1} SEQUENCER_CACHE="$cache" SEQUENCER_CACHE_ROOT="$top" "$SEQ" -C "$top/build-seq" -j "$jobs" "$@"; }
cc_build() { local top=$1; shift; env CCACHE_DIR="$work/ccache" CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=1 /usr/bin/ninja -C "$top/build-cc" -j "$jobs" "$@"; }
cache_line() { grep -a '^sequencer: cache:' "$work/step.log" | tail -n 1 || true; }
lib() { find "$1" -name libzstd.a -type f | head -n 1; }
outputs_bytes() { (cd "$1" && "$SEQ" -t targets all | awk -F': ' '$NF != "phony" {print $1}' | sort -u |
    while read -r f; do [ -f "$f" ] && stat -c %s "$f"; done | awk '{s+=$1} END{print s+0}'); }

echo "bench-cache: sequencer $sequencer ($("$SEQ" --version)), $runs runs, -j $jobs, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)," \
    "zstd $(basename "$zstd_src") ($([ $zstd_full = 1 ] && echo everything || echo the static library))"
p1=$work/p1/zstd; mkdir -p "$work/p1" && cp -a "$zstd_src" "$p1"

# 1. Cold build without / with an empty cache, alternating.
echo "1. cold build at P1 ($p1): no cache vs an empty cache"
configure "$p1" "$p1/build-seq" "$SEQ"
nocache=() withcache=()
for i in $(seq "$runs"); do
    step "ninja -t clean at P1" "$SEQ" -C "$p1/build-seq" -t clean
    step "cold build at P1 without a cache" env -u SEQUENCER_CACHE "$SEQ" -C "$p1/build-seq" -j "$jobs"; nocache+=("$secs")
    step "ninja -t clean at P1" "$SEQ" -C "$p1/build-seq" -t clean
    rm -rf "$work/cache"
    step "cold build at P1 with an empty cache" seq_build "$p1" "$work/cache"; withcache+=("$secs")
    line=$(cache_line); [ -n "$line" ] || fail "cold build with a cache printed no 'sequencer: cache:' line"
    echo "  run $i: no cache ${nocache[-1]} s, empty cache ${withcache[-1]} s ($line)"
done
cold_line=$line
ref_lib=$(lib "$p1/build-seq"); [ -n "$ref_lib" ] || fail "no libzstd.a in $p1/build-seq"
ref_sum=$(sha256sum <"$ref_lib")

# 4. What one cold build stored (the cache of the last run above is the warm cache C below).
cache_du=$(du -sb "$work/cache" | cut -f1)
"$sequencer" cache stats --cache "$work/cache" >"$work/stats.txt" 2>&1 || fail "sequencer cache stats --cache $work/cache"
out_bytes=$(outputs_bytes "$p1/build-seq")

# ccache's cache, filled by a cold build at P1 with Debian's ninja.
echo "3. (setup) ccache: a cold build at P1 fills CCACHE_DIR=$work/ccache"
configure "$p1" "$p1/build-cc" /usr/bin/ninja -DCMAKE_C_COMPILER_LAUNCHER=ccache
step "ccache -z" env CCACHE_DIR="$work/ccache" ccache -z
step "cold build at P1 with ninja + ccache" cc_build "$p1"; cc_cold=$secs
echo "  ccache cold build: $cc_cold s"

# 2 and 3. Warm builds at fresh second checkouts, sequencer then ccache, alternating.
echo "2/3. warm builds at fresh second checkouts (cache from P1), sequencer and ccache alternating"
warm=() noop=() hitpct=() ccwarm=() cchitpct=() identical=ok explained=0 lowhits=0
for i in $(seq "$runs"); do
    p2=$work/p2-$i/a/b/zstd-copy
    checkout "$p2"; configure "$p2" "$p2/build-seq" "$SEQ"
    step "warm build at P2 with the cache" seq_build "$p2" "$work/cache"; warm+=("$secs")
    line=$(cache_line); [ -n "$line" ] || fail "warm build printed no 'sequencer: cache:' line"
    hits=$(sed -nE 's/.*cache: ([0-9]+) hits?,.*/\1/p' <<<"$line"); misses=$(sed -nE 's/.* ([0-9]+) miss(es)?.*/\1/p' <<<"$line")
    pct=$(awk -v h="${hits:-0}" -v m="${misses:-0}" 'BEGIN{printf "%.1f", (h+m>0 ? 100*h/(h+m) : 0)}'); hitpct+=("$pct")
    step "no-op build at P2" seq_build "$p2" "$work/cache"; noop+=("$secs")
    sum=$(sha256sum <"$(lib "$p2/build-seq")") || true
    [ "$sum" = "$ref_sum" ] || { identical="DIFFERENT (run $i)"; cp "$(lib "$p2/build-seq")" "$work/libzstd-p2-$i.a" 2>/dev/null || true; }
    echo "  run $i sequencer: warm ${warm[-1]} s, no-op ${noop[-1]} s, hits $pct% ($line)"
    if awk -v p="$pct" 'BEGIN{exit !(p < 95)}'; then
        lowhits=1
        if [ $explained = 0 ]; then  # why: a build at another fresh checkout, -d explain, the cache read-only
            explained=1 px=$work/p2-explain/c/zstd-copy
            checkout "$px"; configure "$px" "$px/build-seq" "$SEQ"
            ro=1 step "build at a fresh P2 with -d explain" seq_build "$px" "$work/cache" -d explain
            echo "  hit rate below 95%; the first 'not in the cache' explain lines (build at $px):"
            grep -a 'not in the cache' "$work/step.log" | head -n 8 | sed 's/^/    /' || true
            echo "  key entries of the results the cold build at P1 stored that name P1's absolute path ($p1):"
            "$sequencer" cache ls --cache "$work/cache" --json --limit 100000 | P1=$p1 python3 -c '
import json, os, sys
p1, n, shown = os.environ["P1"], 0, 0
results = [r for r in json.load(sys.stdin) if any(p1 in e["name"] + e["value"] for e in r["preimage"])]
found = sorted(((e["kind"] != "output", r["job"], e["kind"], e["name"], e["value"][:16]) for r in results
                for e in r["preimage"] if p1 in e["name"] + e["value"]), key=lambda f: f[0])
for kind in ("output", "input", "command", "discovered"):
    for f in [f for f in found if f[2] == kind][:2]: print("    %s: %s %s %s" % f[1:])
print("    (%d results with such entries, %d entries)" % (len(results), len(found)))' || true
            [ $keep = 1 ] || rm -rf "$work/p2-explain"
        fi
    fi
    [ $keep = 1 ] || rm -rf "$work/p2-$i"
    p2=$work/p2cc-$i/a/b/zstd-copy
    checkout "$p2"; configure "$p2" "$p2/build-cc" /usr/bin/ninja -DCMAKE_C_COMPILER_LAUNCHER=ccache
    step "ccache -z" env CCACHE_DIR="$work/ccache" ccache -z
    step "warm build at P2 with ninja + ccache" cc_build "$p2"; ccwarm+=("$secs")
    ccstats=$(env CCACHE_DIR="$work/ccache" ccache --print-stats) || fail "ccache --print-stats"
    ccpct=$(awk '$1=="direct_cache_hit"||$1=="preprocessed_cache_hit"{h+=$2} $1=="cache_miss"{m+=$2}
        END{printf "%.1f", (h+m>0 ? 100*h/(h+m) : 0)}' <<<"$ccstats"); cchitpct+=("$ccpct")
    echo "  run $i ccache:    warm ${ccwarm[-1]} s, hits $ccpct%"
    [ $keep = 1 ] || rm -rf "$work/p2cc-$i"
done
ccache_s=$(env CCACHE_DIR="$work/ccache" ccache -s 2>&1 | sed 's/^/    /')

m_nc=$(median "${nocache[@]}") m_wc=$(median "${withcache[@]}") m_warm=$(median "${warm[@]}") m_noop=$(median "${noop[@]}")
m_hit=$(median "${hitpct[@]}") m_cc=$(median "${ccwarm[@]}") m_cchit=$(median "${cchitpct[@]}")
goal() { awk -v v="$1" -v op="$2" -v g="$3" 'BEGIN{ok = (op=="<=" ? v<=g : op==">=" ? v>=g : v<g); printf "%s %s %s", op, g, (ok ? "met" : "NOT met")}'; }
r1=$(ratio "$m_wc" "$m_nc") r2=$(ratio "$m_warm" "$m_noop") r3=$(ratio "$m_warm" "$m_cc")
echo
echo "summary: $runs runs each, medians, -j $jobs; sequencer $sequencer"
printf '  %-52s %14s  %s\n' \
    "1. cold build, no cache" "$m_nc s" "" \
    "1. cold build, empty cache" "$m_wc s" "" \
    "1. ratio cache / no cache" "$r1" "$(goal "$r1" '<=' 1.05)" \
    "2. warm build at P2 (sequencer, cache from P1)" "$m_warm s" "" \
    "2. hit rate of the warm build" "$m_hit %" "$(goal "$m_hit" '>=' 95)" \
    "2. no-op build at P2" "$m_noop s" "" \
    "2. ratio warm / no-op" "$r2" "$(goal "$r2" '<=' 1.3)" \
    "2. libzstd.a at P2 byte-identical to P1's" "$identical" "" \
    "3. ccache cold build at P1 (filling CCACHE_DIR)" "$cc_cold s" "" \
    "3. warm build at P2 (ninja + ccache)" "$m_cc s" "" \
    "3. ccache hit rate" "$m_cchit %" "" \
    "3. ratio sequencer warm / ccache warm" "$r3" "$(goal "$r3" '<' 1)" \
    "4. cache after one cold build (du -sb)" "$(numfmt --to=iec "$cache_du")B" "($cache_du bytes)" \
    "4. the build's outputs (non-phony targets)" "$(numfmt --to=iec "$out_bytes")B" "($out_bytes bytes)"
echo "  per run: no cache ${nocache[*]}; empty cache ${withcache[*]}; warm ${warm[*]}; no-op ${noop[*]};" \
    "hits ${hitpct[*]}; ccache warm ${ccwarm[*]}; ccache hits ${cchitpct[*]}"
echo "  cold build's cache line: $cold_line"
echo "  sequencer cache stats --cache C:"; sed 's/^/    /' "$work/stats.txt"
echo "  ccache -s (after the last warm build):"; echo "$ccache_s"
cat <<EOF
commands (P1 = $p1, P2 = a fresh copy of P1's sources at $work/p2-N/a/b/zstd-copy; $SEQ -> $sequencer):
  cmake -G Ninja -S P/build/cmake -B P/build-seq -DCMAKE_MAKE_PROGRAM=$SEQ ${opts[*]}
  cmake -G Ninja -S P/build/cmake -B P/build-cc -DCMAKE_MAKE_PROGRAM=/usr/bin/ninja ${opts[*]} -DCMAKE_C_COMPILER_LAUNCHER=ccache
  1. $SEQ -C P1/build-seq -t clean; env -u SEQUENCER_CACHE $SEQ -C P1/build-seq -j $jobs
     $SEQ -C P1/build-seq -t clean; rm -rf C; SEQUENCER_CACHE=C SEQUENCER_CACHE_ROOT=P1 $SEQ -C P1/build-seq -j $jobs
  2. SEQUENCER_CACHE=C SEQUENCER_CACHE_ROOT=P2 $SEQ -C P2/build-seq -j $jobs    (warm, then again: the no-op)
  3. CCACHE_DIR=CC CCACHE_BASEDIR=P1 CCACHE_NOHASHDIR=1 /usr/bin/ninja -C P1/build-cc -j $jobs   (cold, fills CC)
     CCACHE_DIR=CC CCACHE_BASEDIR=P2 CCACHE_NOHASHDIR=1 /usr/bin/ninja -C P2/build-cc -j $jobs   (warm; ccache -z before, --print-stats after)
  4. du -sb C; $sequencer cache stats --cache C
EOF
status=0
[ $lowhits = 0 ] || { echo "bench-cache: FAILED: a warm build at P2 hit less than 95% (explain lines above)" >&2; status=1; }
[ "$identical" = ok ] || { echo "bench-cache: FAILED: libzstd.a at P2 differs from P1's ($identical)" >&2; status=1; }
exit $status
