# Sourced by the scripts that take a peer's sources from Debian (`apt-get source`): defines
# ensure_deb_src NAME, which adds deb-src to the Types: lines of
# /etc/apt/sources.list.d/debian.sources (Debian 12), or deb-src lines beside the deb lines of
# /etc/apt/sources.list, when no source is configured, then runs apt-get update and sets
# apt_updated=1. It says what it changes, prefixed with NAME, and exits the script with status 2
# when there is nothing to add deb-src to. Needs $sudo set ("" as root, else "sudo").

deb_src_enabled() {
    grep -qsE '^[[:space:]]*Types:.*\bdeb-src\b' /etc/apt/sources.list.d/*.sources ||
        grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list
}

ensure_deb_src() {
    local name=$1
    deb_src_enabled && return 0
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        echo "$name: adding deb-src to the Types: lines of /etc/apt/sources.list.d/debian.sources"
        $sudo sed -i -E 's/^([[:space:]]*Types:[[:space:]]*deb)[[:space:]]*$/\1 deb-src/' /etc/apt/sources.list.d/debian.sources
    elif grep -qsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list; then
        echo "$name: adding deb-src lines to /etc/apt/sources.list"
        grep -E '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list | sed -E 's/^([[:space:]]*)deb([[:space:]])/\1deb-src\2/' |
            $sudo tee -a /etc/apt/sources.list >/dev/null
    fi
    if ! deb_src_enabled; then
        echo "$name: found no apt source to add deb-src to (neither /etc/apt/sources.list.d/debian.sources nor deb lines in /etc/apt/sources.list)" >&2
        exit 2
    fi
    $sudo apt-get update -qq
    apt_updated=1
}
