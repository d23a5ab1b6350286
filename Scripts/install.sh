#!/usr/bin/env bash
# Puts `sequencer` and `sequencer-serve` on the PATH: a release build with the Swift runtime and
# Foundation linked in (--static-swift-stdlib, so the binaries run without a Swift toolchain),
# linked for a quick start, stripped, and copied to PREFIX/bin.
#
#   Scripts/install.sh [--otel] [PREFIX]
#
# With --otel, `sequencer-otel` too (what `run --otel` and `worker --otel` start): swift-otel adds
# a few minutes to the build.
# PREFIX is /usr/local when run as root, else ~/.local. Nothing else is done: no shell
# completions (see Docs/CommandLine.md), no change to the PATH. A binary already there is replaced
# whole (a new file renamed over it), so a running one is not disturbed.
set -euo pipefail

products=(sequencer sequencer-serve)
if [ "${1:-}" = "--otel" ]; then
    products+=(sequencer-otel)
    shift
fi
if [ "$#" -gt 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    echo "usage: $0 [--otel] [PREFIX]   (default: /usr/local as root, else ~/.local)" >&2
    exit 2
fi
if [ "$#" = 1 ]; then
    prefix=$1
elif [ "$(id -u)" = 0 ]; then
    prefix=/usr/local
else
    prefix=$HOME/.local
fi

cd "$(dirname "$0")/.."
# Linked as a position-dependent executable (no 125,000 relocations for the loader to apply, and
# half the page faults) with no symbol exported (Scripts/local-symbols.map): `sequencer
# --version` starts in about 0.7 of the time (see Docs/Performance.md).
link=(-Xlinker -no-pie -Xlinker "--version-script=$PWD/Scripts/local-symbols.map")
for product in "${products[@]}"; do
    swift build -c release --static-swift-stdlib "${link[@]}" --product "$product"
done
built=$(swift build -c release --static-swift-stdlib "${link[@]}" --show-bin-path)

mkdir -p "$prefix/bin"
for product in "${products[@]}"; do
    target="$prefix/bin/$product"
    cp "$built/$product" "$target.new"
    strip "$target.new"
    chmod 755 "$target.new"
    mv -f "$target.new" "$target"
    echo "installed $target ($(du -h "$target" | cut -f1))"
done
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on your PATH; add it (for example in ~/.profile: export PATH=\"$prefix/bin:\$PATH\")" ;;
esac
