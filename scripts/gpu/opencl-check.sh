#!/usr/bin/env bash
# The OpenCL check of the lab on a GPU machine without Java: our kernels on the GPU against the float64
# reference (the conformance kit), the cost of one launch, and a short training run on the GPU against the
# same run on two simulated GPUs over the processor (parameters equal within 1e-4 relative).
#
# Needs there: what scripts/gpu/prepare.sh packed into .gpu/; the GPU vendor's OpenCL driver (for NVIDIA,
# libnvidia-opencl.so.1 from the driver, which this script registers as an ICD when no vendors/*.icd names it);
# tar and xz. Writes its logs to $OUT (or .gpu/out).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gpu="$root/.gpu"
out="${OUT:-$gpu/out}"
mkdir -p "$out"
[ -f "$gpu/runtime.tar.xz" ] || { echo "error: $gpu/runtime.tar.xz is missing; run scripts/gpu/prepare.sh first" >&2; exit 2; }

work="$(mktemp -d)"
tar -C "$work" -xJf "$gpu/runtime.tar.xz"
java="$work/runtime/bin/java"

# The ICD loader, unpacked beside us when the machine lacks it.
if ! ldconfig -p | grep -q 'libOpenCL.so.1'; then
    for deb in "$gpu"/deb/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
    export LD_LIBRARY_PATH="$work/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# NVIDIA's OpenCL driver, registered when the driver is there but no ICD file names it.
if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
    nvidia="$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')"
    if [ -z "$nvidia" ]; then nvidia="$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 2>/dev/null || true)"; fi
    if [ -n "$nvidia" ]; then
        mkdir -p "$work/vendors" && echo "$nvidia" > "$work/vendors/nvidia.icd"
        export OCL_ICD_VENDORS="$work/vendors"
    fi
fi
export POCL_CACHE_DIR="$work/pocl-cache"

run_java() {
    "$java" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED "$@"
}
lab() {
    run_java -cp "$gpu/lib/*" org.multigpulab.lessons.Lab "$@"
}

set -x
lab devices 2>&1 | tee "$out/devices.txt"
run_java -cp "$gpu/lib/*" org.multigpulab.backend.opencl.LaunchOverhead 2>&1 | tee "$out/launch-overhead.txt"
run_java -jar "$gpu"/test/junit-platform-console-standalone-*.jar execute \
    -cp "$gpu/test/opencl-test-classes:$(ls "$gpu"/test/device-api-*-tests.jar):$(ls "$gpu"/lib/*.jar | tr '\n' ':')" \
    --select-class org.multigpulab.backend.opencl.OpenClConformanceTest --details summary 2>&1 | tee "$out/conformance.txt"
common=(--data "$gpu/data" --no-shuffle --train-samples 2560 --test-samples 1000 --epochs 1 --load "$out/init.safetensors" --plot-dir "$out")
lab train --backend sim --gpus 2 --epochs 1 --train-samples 256 --test-samples 256 --data "$gpu/data" --save "$out/init.safetensors" --quiet --plot-dir "$out"
lab train --backend opencl --gpus 1 "${common[@]}" --save "$out/opencl.safetensors" 2>&1 | tee "$out/train-opencl.txt"
lab train --backend sim --gpus 2 "${common[@]}" --save "$out/sim.safetensors" 2>&1 | tee "$out/train-sim.txt"
lab compare "$out/opencl.safetensors" "$out/sim.safetensors" --tolerance 1e-4 2>&1 | tee "$out/compare.txt"
