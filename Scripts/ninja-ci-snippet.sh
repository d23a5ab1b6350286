# Lines for .ci/run (bash, set -euo pipefail, a fresh Debian 12 machine, root or sudo): Sequencer's
# ninja mode judged against ninja 1.11.1. Paste them after the release build (or `source` this
# file from there) with NINJA_CANDIDATE set to the binary under test, e.g.
#     NINJA_CANDIDATE="$prefix/bin/sequencer"; source Scripts/ninja-ci-snippet.sh
# It runs as `ninja` through a symlink, and once in the subcommand form (`sequencer ninja`).
# About 8 minutes on 2 cores: the differential (corpus, CMake/Meson projects with Debian's
# CMake, and with the newest CMake from PyPI reported; 60 random manifests), ninja's own output tests,
# and a quick benchmark (figures only: it never fails on a ratio).
: "${NINJA_CANDIDATE:?set NINJA_CANDIDATE to the binary under test (the installed sequencer)}"
type step >/dev/null 2>&1 || step() { printf '\n=== %s ===\n' "$*"; }

step "ninja mode: packages (ninja-build is the reference; cmake, meson, gfortran, g++ for the projects; dpkg-dev for apt-get source; bsdutils for script; time for peak RSS)"
ninja_missing=()
for pkg in ninja-build cmake meson gfortran g++ gcc dpkg-dev bsdutils time python3 python3-venv; do
    dpkg -s "$pkg" >/dev/null 2>&1 || ninja_missing+=("$pkg")
done
ninja_sudo=$([ "$(id -u)" = 0 ] || echo sudo)
if [ ${#ninja_missing[@]} -gt 0 ]; then
    $ninja_sudo apt-get update -qq
    $ninja_sudo apt-get install -y -qq "${ninja_missing[@]}"
fi
/usr/bin/ninja --version

step "ninja mode: differential against ninja 1.11.1 (corpus and projects; the candidate as 'ninja')"
# A failure prints the step, its script line and the difference; rerun one case with
# --only NAME --keep DIR to keep both sides' trees and logs.
python3 Scripts/ninja-differential.py --reference /usr/bin/ninja --candidate "$NINJA_CANDIDATE"

step "ninja mode: differential on 60 random manifests (seed 1)"
# Every step of every case must match, with one allowance: the totals of status lines are
# masked (--totals-may-differ), because ninja counts edges whose inputs are newer by mtime but
# unchanged in content, which Sequencer by design does not rebuild (after a failed -k 0 build,
# say). The corpus and the projects above compare totals exactly. The seed is fixed so that CI
# is reproducible; another --seed explores other manifests.
python3 Scripts/ninja-differential.py --reference /usr/bin/ninja --candidate "$NINJA_CANDIDATE" \
    --corpus none --projects none --random 60 --seed 1 --totals-may-differ

step "ninja mode: differential, the subcommand form ('sequencer ninja'), corpus"
python3 Scripts/ninja-differential.py --reference /usr/bin/ninja --candidate "$NINJA_CANDIDATE" --candidate-subcommand \
    --projects none

step "ninja mode: the CMake projects with the newest CMake (PyPI)"
ninja_cmake_venv=$(mktemp -d)
python3 -m venv "$ninja_cmake_venv"
"$ninja_cmake_venv/bin/pip" install -q cmake
"$ninja_cmake_venv/bin/cmake" --version | head -n 1
# Reported, not yet required: with CMake 4's Fortran scanning the order of commands at -j1
# differs from ninja's (Sequencer builds dyndep files in rounds; ninja updates its plan).
python3 Scripts/ninja-differential.py --reference /usr/bin/ninja --candidate "$NINJA_CANDIDATE" \
    --corpus none --only 'project/cmake-' --cmake "$ninja_cmake_venv/bin/cmake" \
    || echo "ninja mode: the newest CMake: differences above (not yet required to pass)"
rm -rf "$ninja_cmake_venv"

step "ninja mode: ninja's own output tests (misc/output_test.py from Debian's ninja-build source)"
Scripts/ninja-output-test.sh "$NINJA_CANDIDATE"
Scripts/ninja-output-test.sh --subcommand "$NINJA_CANDIDATE"

step "ninja mode: benchmark smoke run against ninja (fake manifests, touch edges; zstd is Scripts/bench-ninja.sh's full run)"
Scripts/bench-ninja.sh --candidate "$NINJA_CANDIDATE" --quick --no-zstd
