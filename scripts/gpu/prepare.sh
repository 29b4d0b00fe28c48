#!/usr/bin/env bash
# Packs into .gpu/ (ignored by git) what scripts/gpu/check.sh needs on a GPU machine that has no Java and no
# network, and fails when the pack is over 56 MiB (64 MiB travel with a call there, the rest of the tree too):
#   runtime.tar.xz  a Java 25 runtime made with jlink: only the JDK modules that jdeps finds the packed jars use,
#                   less java.desktop (charts: the GPU run trains with --no-plot), java.sql and java.xml (Gson's
#                   SQL date adapters and JUnit's XML reports, neither used there); xz over an uncompressed jlink
#                   image packs smaller than jlink's own --compress=zip-9 (docs/ARCHITECTURE.md, "The GPU check")
#   lib/            the lab's jars less libtorch and DJL (no libtorch there matches DJL's JNI: check.sh says
#                   why), the PDF export and GIF libraries of XChart, XChart itself, and MPI (one process)
#   kit/            the conformance kit (device-api's test-jar, backend-opencl's test classes), JUnit's console
#                   launcher
#   native/         the OpenCL ICD loader, for a machine whose driver has no libOpenCL.so.1 beside it
#   data/           Fashion-MNIST's four IDX files, gzip-compressed as the lab and the notebook read them
#   djl-needs.txt   the libtorch version DJL's JNI was built for, which check.sh compares with the machine's
#
#   scripts/gpu/prepare.sh              build the lab (./mvnw package; MAVEN_ARGS passes options), then pack
#   scripts/gpu/prepare.sh --no-build   pack what the last build left in */target
#   scripts/gpu/prepare.sh --rehearse   compress the runtime fast (xz -0, larger than -9, so a pack that fits
#                                       then fits with -9 too): what the rehearsal test uses
# GPU_PACK=DIR packs into DIR instead of .gpu/ (the rehearsal test packs into target/).
# Then send the repository with .gpu/ (the device tool: carry [".gpu"]) and run scripts/gpu/check.sh there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
. scripts/find-jdk.sh
bound=$((56 * 1024 * 1024))
build=1 xz_level=-9
for arg in "$@"; do
    case "$arg" in
        --no-build) build=0 ;;
        --rehearse) xz_level=-0 ;;
        *) echo "error: unknown option $arg; use --no-build or --rehearse" >&2; exit 2 ;;
    esac
done

if [ "$build" = 1 ]; then
    ./mvnw -q -B -DskipTests package
fi
kit_tests=(device-api/target/device-api-*-tests.jar)
launcher=(backend-opencl/target/kit/junit-platform-console-standalone-*.jar)
for need in lessons/target/lessons.jar "${kit_tests[0]}" backend-opencl/target/test-classes "${launcher[0]}"; do
    [ -e "$need" ] || { echo "error: $need is missing: build first (./mvnw -DskipTests package) or drop --no-build" >&2; exit 2; }
done

out="${GPU_PACK:-$root/.gpu}"
rm -rf "$out"
mkdir -p "$out/lib" "$out/kit" "$out/native" "$out/data"

# The jars: the lab's run-time class path less what the GPU run never loads.
cp lessons/target/lessons.jar "$out/lib/"
for jar in lessons/target/lib/*.jar; do
    case "$(basename "$jar")" in
        pytorch-*|api-*|backend-djl-*|jna-*|commons-*|slf4j-*) ;;             # libtorch and DJL
        pdfbox-*|fontbox-*|graphics2d-*|animated-gif-lib-*|xchart-*|VectorGraphics2D-*) ;;   # charts
        error_prone_annotations-*) ;;                                             # compile-time only
        dist-mpi-*) ;;                                                            # MPI: one process here
        *) cp "$jar" "$out/lib/" ;;
    esac
done
basename "$(ls lessons/target/lib/pytorch-jni-*.jar)" .jar | sed 's/^pytorch-jni-\([^-]*\)-\(.*\)$/libtorch \1 (DJL \2)/' \
    > "$out/djl-needs.txt"
cp "${kit_tests[0]}" "${launcher[0]}" "$out/kit/"
(cd backend-opencl/target/test-classes && "$JAVA_HOME/bin/jar" --create --file "$out/kit/opencl-tests.jar" .)

# The runtime: the JDK modules the jars use, as jdeps lists them (the kit's jars split packages with the lab's, so
# they are read on the class path).
modules="$("$JAVA_HOME/bin/jdeps" --multi-release 25 --ignore-missing-deps --list-deps --module-path "$out/lib" \
        --class-path "$out/kit/*" "$out"/lib/*.jar "$out"/kit/*.jar 2> >(grep -v '^Warning: split package' >&2) \
    | awk '{print $1}' | grep -Fx -f <("$JAVA_HOME/bin/java" --list-modules | sed 's/@.*//') \
    | grep -v -x -e java.desktop -e java.sql -e java.xml | paste -sd, -)"
echo "runtime modules: $modules"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$JAVA_HOME/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=zip-0 \
    --output "$work/runtime" > "$work/jlink.log" || { cat "$work/jlink.log" >&2; exit 1; }
tar -C "$work" -cf - runtime | xz "$xz_level" -T2 > "$out/runtime.tar.xz"

# The OpenCL ICD loader, the file this machine's libOpenCL.so.1 resolves to.
icd="$(ldconfig -p | awk '/libOpenCL\.so\.1 .*x86-64/ {print $NF; exit}')"
[ -n "$icd" ] || { echo "error: no libOpenCL.so.1 here to pack: install ocl-icd-libopencl1" >&2; exit 2; }
cp "$(readlink -f "$icd")" "$out/native/libOpenCL.so.1"

# Fashion-MNIST, where the lab looks for it.
data=""
for dir in "${FASHION_MNIST_DIR:-}" "$HOME/.cache/multigpu-lab/fashion-mnist" /usr/share/datasets/fashion-mnist; do
    if [ -n "$dir" ] && ls "$dir"/train-images-idx3-ubyte* >/dev/null 2>&1; then data="$dir"; break; fi
done
[ -n "$data" ] || { echo "error: Fashion-MNIST not found: install dataset-fashion-mnist or run ./lab train once" >&2; exit 2; }
for name in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
    if [ -f "$data/$name.gz" ]; then cp "$data/$name.gz" "$out/data/"; else gzip -9 -c "$data/$name" > "$out/data/$name.gz"; fi
done

total=0
for piece in runtime.tar.xz lib kit native data djl-needs.txt; do
    bytes="$(du -sb "$out/$piece" | cut -f1)"
    total=$((total + bytes))
    awk -v p="$piece" -v b="$bytes" 'BEGIN { printf "%-15s %6.1f MiB\n", p, b / 1048576 }'
done
awk -v t="$total" -v b="$bound" 'BEGIN { printf "%-15s %6.1f MiB of at most %d MiB\n", "total", t / 1048576, b / 1048576 }'
if [ "$total" -gt "$bound" ]; then
    echo "error: the pack is over $((bound / 1048576)) MiB by $(((total - bound) / 1024)) KiB: leave something out" >&2
    exit 1
fi
