#!/usr/bin/env bash
# Packs what scripts/gpu/opencl-check.sh needs on a GPU machine that has no Java into .gpu/ (ignored by git,
# about 60 MB): a Java 25 runtime made with jlink (packed with xz), the lab's jars, the conformance kit with
# JUnit's console launcher, the OpenCL ICD loader as a Debian package, and Fashion-MNIST.
# Run it here, on a machine with JDK 25, Maven access and the data; then send the repository with .gpu/
# (for the lab's device tool: carry [".gpu"]) and run scripts/gpu/opencl-check.sh there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
jdk="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
out="$root/.gpu"
rm -rf "$out"
mkdir -p "$out/lib" "$out/test" "$out/deb" "$out/data"

./mvnw -q -B -DskipTests install
cp lessons/target/lessons.jar lessons/target/lib/*.jar "$out/lib/"
cp device-api/target/device-api-*-tests.jar "$out/test/"
cp -r backend-opencl/target/test-classes "$out/test/opencl-test-classes"
./mvnw -q -B dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:1.14.1 \
    -DoutputDirectory="$out/test"

"$jdk/bin/jlink" --add-modules java.base,java.desktop,java.net.http,java.xml,java.logging,java.management,jdk.incubator.vector,jdk.unsupported \
    --strip-debug --no-man-pages --no-header-files --strip-native-debug-symbols objcopy=/usr/bin/objcopy \
    --output "$out/runtime" 2>/dev/null
tar -C "$out" -cJf "$out/runtime.tar.xz" runtime
rm -rf "$out/runtime"

(cd "$out/deb" && apt-get download ocl-icd-libopencl1 >/dev/null)
cp /usr/share/datasets/fashion-mnist/*.gz "$out/data/"
du -sh "$out"
