# Sourced by ./lab and ./mvnw (POSIX sh): sets JAVA_HOME to a JDK 25 or newer, or stops with what to install.
# Takes JAVA_HOME when it is 25+, else /usr/lib/jvm/temurin-25-jdk-amd64.

# Sets lab_major to the major version of JDK $1, or stops with the JVM's own words where it does not start at all
# (an option in JAVA_TOOL_OPTIONS it does not know): ./lab runs under `set -e`, which would end it without a word.
lab_read_major() {
    if ! lab_version="$("$1/bin/java" -version 2>&1)"; then
        echo "error: $1/bin/java does not start:" >&2
        printf '%s\n' "$lab_version" | grep -v '^Picked up' | head -n 3 | sed 's/^/  /' >&2
        echo "Check the JVM options in JAVA_TOOL_OPTIONS (${JAVA_TOOL_OPTIONS:-unset}) and JDK_JAVA_OPTIONS (${JDK_JAVA_OPTIONS:-unset})." >&2
        exit 2
    fi
    lab_major="$(printf '%s\n' "$lab_version" | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
}

lab_find_jdk() {
    for lab_candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64; do
        if [ -n "$lab_candidate" ] && [ -x "$lab_candidate/bin/java" ] && [ -x "$lab_candidate/bin/javac" ]; then
            lab_read_major "$lab_candidate"
            if [ -n "$lab_major" ] && [ "$lab_major" -ge 25 ]; then
                JAVA_HOME="$lab_candidate"
                export JAVA_HOME
                return 0
            fi
        fi
    done
    echo "error: multigpu-lab needs JDK 25 or newer, and found none (JAVA_HOME=${JAVA_HOME:-unset})." >&2
    echo "Install one (on Debian: Temurin 25 into /usr/lib/jvm/temurin-25-jdk-amd64) or set JAVA_HOME to it." >&2
    exit 2
}

lab_find_jdk
