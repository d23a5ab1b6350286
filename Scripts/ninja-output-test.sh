#!/usr/bin/env bash
# Runs ninja's own output tests (misc/output_test.py from Debian's ninja-build source package:
# status lines, colour stripping, --quiet, -C, -t inputs... in a pseudo-terminal made by
# `script`, and through a pipe) against a given binary.
#
#   Scripts/ninja-output-test.sh /usr/bin/ninja                    # ninja itself: must pass
#   Scripts/ninja-output-test.sh .build/release/sequencer          # run as `ninja` (a symlink)
#   Scripts/ninja-output-test.sh --subcommand .build/release/sequencer   # run as `sequencer ninja`
#
# On Debian 12 (root, or a user with sudo): enables deb-src if no source is configured (adds
# deb-src to the Types: lines of /etc/apt/sources.list.d/debian.sources, or deb-src lines to
# /etc/apt/sources.list), installs dpkg-dev (apt-get source unpacks with dpkg-source) and
# bsdutils (`script`) if missing, then `apt-get source ninja-build` into a temporary directory.
# output_test.py runs ./ninja from its working directory (NINJA_PATH = os.path.abspath('./ninja');
# later versions read $NINJA_PATH): it is run from a directory holding `ninja`, a symlink to the
# binary (or a script running `BINARY ninja "$@"`), with NINJA_PATH set to it too.
# Ends with "ninja output tests: N passed, M failed"; exits 0 only if all passed.
set -euo pipefail

subcommand=0
if [ "${1:-}" = "--subcommand" ]; then subcommand=1; shift; fi
if [ $# -ne 1 ]; then
    echo "usage: $0 [--subcommand] PATH-TO-BINARY" >&2
    exit 2
fi
binary=$1
case "$binary" in /*) ;; *) binary=$(command -v "$binary" || echo "$PWD/$binary") ;; esac
if [ ! -x "$binary" ]; then
    echo "ninja-output-test: $binary is not an executable file" >&2
    exit 2
fi
sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi

apt_updated=0
source "$(dirname "${BASH_SOURCE[0]}")/deb-src.sh"
ensure_deb_src ninja-output-test
missing=()
command -v dpkg-source >/dev/null 2>&1 || missing+=(dpkg-dev)
command -v script >/dev/null 2>&1 || missing+=(bsdutils)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    [ $apt_updated = 1 ] || $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ninja-output-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "ninja-output-test: apt-get source ninja-build (into $work)"
if ! (cd "$work" && apt-get source -qq ninja-build >"$work/apt-source.log" 2>&1); then
    cat "$work/apt-source.log" >&2
    if grep -q "You must put some 'deb-src' URIs" "$work/apt-source.log"; then
        echo "ninja-output-test: apt has no source index yet: run apt-get update (deb-src is enabled)" >&2
    fi
    echo "ninja-output-test: apt-get source ninja-build failed (see above)" >&2
    exit 2
fi
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'ninja-build-*' | head -n 1)
test_py="$src/misc/output_test.py"
if [ -z "$src" ] || [ ! -f "$test_py" ]; then
    echo "ninja-output-test: no misc/output_test.py in the unpacked source ($work)" >&2
    exit 2
fi
echo "ninja-output-test: $(basename "$src"), testing $binary$([ $subcommand = 1 ] && echo ' ninja')"

run="$work/run"
mkdir "$run"
if [ $subcommand = 1 ]; then
    printf '#!/bin/sh\nexec %q ninja "$@"\n' "$binary" >"$run/ninja"
    chmod +x "$run/ninja"
else
    ln -s "$binary" "$run/ninja"
fi
log="$work/output_test.log"
set +e
(cd "$run" && env -u NINJA_STATUS -u CLICOLOR_FORCE NINJA_PATH="$run/ninja" python3 "$test_py" -v) 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
ran=$(sed -nE 's/^Ran ([0-9]+) tests? in .*/\1/p' "$log" | tail -n 1)
failures=$(sed -nE 's/.*failures=([0-9]+).*/\1/p' "$log" | tail -n 1)
errors=$(sed -nE 's/.*errors=([0-9]+).*/\1/p' "$log" | tail -n 1)
bad=$(( ${failures:-0} + ${errors:-0} ))
if [ -z "$ran" ]; then
    echo "ninja-output-test: output_test.py did not run (exit $status)" >&2
    echo "ninja output tests: 0 passed, 1 failed"
    exit 1
fi
if [ "$status" != 0 ] && [ "$bad" = 0 ]; then bad=1; fi
echo "ninja output tests: $(( ran - bad )) passed, $bad failed"
exit $(( status != 0 ))
