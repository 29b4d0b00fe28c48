#!/usr/bin/env bash
# Makes HotSpot's disassembler plugin, so that -XX:CompileCommand=print shows C2's code as instructions, and
# prints the folder to put on LD_LIBRARY_PATH. Debian's libhsdis0-fcml (installed here when missing and run as
# root) exports only the old entry point, decode_instructions; JDK 25 looks for decode_instructions_virtual, so a
# shim built with gcc exports that one and calls the old one on the same bytes. For reading, not for tests.
#
#   export LD_LIBRARY_PATH="$(scripts/hsdis.sh)"
#   java -XX:+UnlockDiagnosticVMOptions \
#       -XX:CompileCommand=print,org.multigpulab.backend.cpu.Gemm::fourRowsFourVectors --add-modules \
#       jdk.incubator.vector -cp "bench/target/bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" \
#       org.multigpulab.bench.KernelSequenceMain cpu conv2_bias_forward
set -euo pipefail
if [ "$(uname -m)" != x86_64 ]; then
    echo "error: libhsdis0-fcml disassembles x86-64 only, and this machine is $(uname -m)." >&2
    exit 1
fi
lib=/usr/lib/x86_64-linux-gnu/libhsdis.so.0
out="${XDG_CACHE_HOME:-$HOME/.cache}/multigpu-lab/hsdis"
if [ ! -e "$lib" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y -q libhsdis0-fcml >&2 || { apt-get update -q >&2 && apt-get install -y -q libhsdis0-fcml >&2; }
    else
        echo "error: $lib is missing; install the Debian package libhsdis0-fcml (as root: apt-get install libhsdis0-fcml)." >&2
        exit 1
    fi
fi
if ! command -v gcc >/dev/null; then
    echo "error: gcc is needed to build the shim; install it (Debian: apt-get install gcc)." >&2
    exit 1
fi
mkdir -p "$out"
if [ ! -e "$out/hsdis-amd64.so" ]; then
    cat >"$out/shim.c" <<'C'
#include <stdint.h>
typedef void *(*event_cb)(void *, const char *, void *);
typedef int (*printf_cb)(void *, const char *, ...);
extern void *decode_instructions(void *start, void *end, event_cb e, void *es, printf_cb p, void *ps,
                                 const char *options);
void *decode_instructions_virtual(uintptr_t start_va, uintptr_t end_va, unsigned char *buffer, uintptr_t length,
                                  event_cb e, void *es, printf_cb p, void *ps, const char *options, int newline) {
    return decode_instructions(buffer, buffer + length, e, es, p, ps, options);
}
C
    gcc -shared -fPIC -o "$out/hsdis-amd64.so.tmp" "$out/shim.c" -L"$(dirname "$lib")" -l:libhsdis.so.0 \
        -Wl,-rpath,"$(dirname "$lib")"
    mv "$out/hsdis-amd64.so.tmp" "$out/hsdis-amd64.so"
fi
echo "$out"
