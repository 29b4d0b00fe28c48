# Sourced by ./lab test (POSIX sh, with $root the checkout): installs the Debian packages of scripts/test-packages.txt that are missing,
# as root with apt-get; elsewhere says, one line per need, which tests will be skipped and what to install.

lab_packages_file="$root/scripts/test-packages.txt"

lab_missing_packages() {   # the packages of one need's line that dpkg does not have installed
    for lab_pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$lab_pkg" 2>/dev/null | grep -q 'ok installed' || printf '%s ' "$lab_pkg"
    done
}

lab_test_packages() {
    command -v dpkg-query >/dev/null 2>&1 || return 0   # not Debian: the tests themselves say what they lack
    lab_all_missing=""
    while read -r lab_need lab_pkgs; do
        case "$lab_need" in ''|'#'*) continue ;; esac
        # shellcheck disable=SC2086
        lab_all_missing="$lab_all_missing$(lab_missing_packages $lab_pkgs)"
    done <"$lab_packages_file"
    [ -z "$lab_all_missing" ] && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing the Debian packages the tests need: $lab_all_missing" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $lab_all_missing >/dev/null
        return 0
    fi
    while read -r lab_need lab_pkgs; do
        case "$lab_need" in ''|'#'*) continue ;; esac
        # shellcheck disable=SC2086
        lab_missing="$(lab_missing_packages $lab_pkgs)"
        if [ -n "$lab_missing" ]; then
            echo "skipping the tests that need $lab_need: install ${lab_missing% } (sudo apt-get install ${lab_missing% }, or run ./lab test as root)" >&2
        fi
    done <"$lab_packages_file"
}

lab_test_packages
