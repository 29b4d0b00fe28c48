# Sourced by ./lab and ./mvnw (POSIX sh): sets JAVA_HOME to a JDK 25 or newer, or stops with what to install.
# Takes JAVA_HOME when it is 25+, else /usr/lib/jvm/temurin-25-jdk-amd64.

lab_java_major() {
    "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}

lab_find_jdk() {
    for lab_candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64; do
        if [ -n "$lab_candidate" ] && [ -x "$lab_candidate/bin/java" ] && [ -x "$lab_candidate/bin/javac" ]; then
            lab_major="$(lab_java_major "$lab_candidate/bin/java")"
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
