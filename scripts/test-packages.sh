#!/bin/sh
# The Debian packages of scripts/test-packages.txt, the one list of what the tests need.
#   scripts/test-packages.sh          installs the missing ones as root with apt-get (./lab test runs this);
#                                     elsewhere says, one line per need, which tests will be skipped and what to install
#   scripts/test-packages.sh --all    prints every listed package (.ci/run installs them)
#   scripts/test-packages.sh --need N prints the packages of need N (./lab notebook installs jupyter's)

list="$(dirname "$0")/test-packages.txt"

needs() {   # each need's line, without comments and blank lines
    grep -v -e '^#' -e '^[[:space:]]*$' "$list"
}

missing() {   # the packages among the arguments that dpkg does not have installed
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || printf '%s ' "$pkg"
    done
}

if [ "${1:-}" = --all ] || [ "${1:-}" = --need ]; then
    needs | while read -r need pkgs; do
        if [ "$1" = --all ] || [ "$need" = "${2:-}" ]; then echo "$pkgs"; fi
    done
    exit 0
fi

command -v dpkg-query >/dev/null 2>&1 || exit 0   # not Debian: the tests themselves say what they lack
advice="$(needs | while read -r need pkgs; do
    # shellcheck disable=SC2086
    lacking="$(missing $pkgs)"
    [ -n "$lacking" ] && echo "$need ${lacking% }"
done)"
[ -z "$advice" ] && exit 0
all="$(echo "$advice" | cut -d' ' -f2- | tr '\n' ' ')"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing the Debian packages the tests need: $all" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    exec apt-get install -y -qq --no-install-recommends $all >/dev/null
fi
echo "$advice" | while read -r need lacking; do
    echo "skipping the tests that need $need: install $lacking (sudo apt-get install $lacking, or run ./lab test as root)" >&2
done
