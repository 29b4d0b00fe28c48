#!/usr/bin/env bash
# GPU day: on a lent GPU machine (no Java, no network; what scripts/gpu/prepare.sh packed into .gpu/ travels with
# the call), in about 8 minutes, what only a real GPU can answer:
#   1. our OpenCL kernels on the GPU: the conformance kit, the cost of a launch, the notebook's 5-epoch training
#      (./lab train --backend opencl) with its sec/epoch and test accuracy;
#   2. the notebook itself in the machine's PyTorch (scripts/gpu/notebook.py): its sec/epoch and accuracy;
#   3. 10 steps (batch 256) from the notebook's start, in the data's order, on OpenCL and in PyTorch: how far the updates are
#      apart (./lab compare --from);
#   4. the same training on a simulated H200 (--backend sim --profile h200), and its error against the notebook;
#   5. the notebook's step kernel by kernel on the GPU (scripts/gpu/kernels.py), the figures the simulated H200's
#      are checked against, and the notebook's host costs on that machine (scripts/pytorch-host.py);
#   6. djl on CUDA where a libtorch that DJL's JNI matches is there; else why not;
#   7. §12.6's ResNet-18: its training step on --backend opencl (two short epochs, the second timed) and in the
#      machine's PyTorch with cuDNN (scripts/gpu/resnet.py), batch 256.
# Writes to $OUT (default .gpu/out): summary.txt (the table printed last), log.txt (everything), results.tar.gz
# (reports, parameters, each step's output). Exits 1 when a step failed.
#
#   scripts/gpu/check.sh              on the GPU machine
#   scripts/gpu/check.sh --rehearse   here: PoCL on the processor stands in for the GPU, Debian's python3-torch for
#                                     the machine's PyTorch, on a slice (512 training images, 1 epoch, 2 steps
#                                     compared) and a part of the kit, so the script's logic is tested before a GPU
#                                     is lent
# GPU_PACK=DIR reads the pack from DIR instead of .gpu/ (the rehearsal test packs into target/).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pack="${GPU_PACK:-$root/.gpu}"
rehearse=0
for arg in "$@"; do
    case "$arg" in
        --rehearse) rehearse=1 ;;
        *) echo "error: unknown option $arg; use --rehearse or nothing" >&2; exit 2 ;;
    esac
done
[ -f "$pack/runtime.tar.xz" ] || { echo "error: $pack/runtime.tar.xz is missing: run scripts/gpu/prepare.sh first" >&2; exit 2; }
out="${OUT:-$pack/out}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
res="$work/results"
mkdir -p "$res"
exec > >(tee "$out/log.txt") 2>&1

if [ "$rehearse" = 1 ]; then
    slice=(--train-samples 512 --test-samples 256 --epochs 1)
    kit=(--select-method org.multigpulab.backend.opencl.OpenClConformanceTest#oneTrainingStepMatchesReferenceStep
         --select-method org.multigpulab.backend.opencl.OpenClConformanceTest#reluKeepsNaNAndZeroesSignedZeros)
    torch_device=cpu
    steps=2
    kernel_steps=(--warmup 1 --steps 2)
    host_repeats=(--repeats 10 --images 512)
    resnet_batch=16
    resnet_steps=1
    resnet_torch=(--warmup 1 --steps 2)
    slower=4   # the time limits, for a loaded processor standing in
else
    slice=()
    kit=(--select-class org.multigpulab.backend.opencl.OpenClConformanceTest)
    torch_device=cuda
    steps=10
    kernel_steps=()
    host_repeats=()
    resnet_batch=256
    resnet_steps=4
    resnet_torch=()
    slower=1
fi
python=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import torch' 2>/dev/null; then python="$candidate"; break; fi
done

# Java: the packed runtime, unpacked with xz where the machine has it, else with Python's tarfile.
if command -v xz >/dev/null; then
    tar -C "$work" -xJf "$pack/runtime.tar.xz"
else
    "${python:-python3}" -m tarfile -e "$pack/runtime.tar.xz" "$work"
fi
java="$work/runtime/bin/java"
# OpenCL: the packed ICD loader where the machine has none; NVIDIA's driver registered when no ICD file names it.
if ! ldconfig -p | grep -q 'libOpenCL\.so\.1'; then
    export LD_LIBRARY_PATH="$pack/native${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
    nvidia="$(ldconfig -p | awk '/libnvidia-opencl\.so\.1/ {print $NF; exit}')"
    [ -n "$nvidia" ] || nvidia="$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 2>/dev/null)"
    if [ -n "$nvidia" ]; then
        mkdir -p "$work/vendors" && echo "$nvidia" > "$work/vendors/nvidia.icd"
        export OCL_ICD_VENDORS="$work/vendors"
    fi
fi
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$work/pocl-cache}"

# With the JDK's signal chaining, as ./lab runs it: PoCL's compiler (LLVM) installs handlers for the signals the JVM
# takes.
run_java() { LD_PRELOAD="${java%/bin/java}/lib/libjsig.so${LD_PRELOAD:+:$LD_PRELOAD}" "$java" --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector "$@" 2> >(grep -v 'incubator modules' >&2); }
lab() { run_java -cp "$pack/lib/*" org.multigpulab.lessons.cli.Lab "$@"; }
failed=()
# step NAME SECONDS COMMAND...: runs COMMAND for at most SECONDS (× slower), its output into the log and
# results/NAME.txt. On the GPU the limits add up to 505 s, so the check ends within 9 minutes whatever hangs; the
# first H200 took 169-178 s for the kit, 11-24 for opencl, 11-13 for notebook, 15-16 for sim, 14 for kernels, 10
# for host and 7 or less for each other step.
step() {
    local name="$1" limit="$2"
    shift 2
    echo "== $name: $*"
    local start=$SECONDS
    timeout $((limit * slower)) bash -c '"$@"' "$name" "$@" 2>&1 | tee "$res/$name.txt"
    local rc=$?
    echo "== $name: exit $rc after $((SECONDS - start)) s"
    [ "$rc" = 0 ] || failed+=("$name (exit $rc)")
}
# Why djl does not run on CUDA here, or that it could: DJL's JNI works with the one libtorch version it was built for.
djl() {
    local needs have
    needs="$(cat "$pack/djl-needs.txt")"   # libtorch X (DJL Y)
    have="$("$python" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.__file__.rsplit("/", 1)[0] + "/lib")')"
    set -- $have
    if [ "${1%%+*}" = "$(echo "$needs" | awk '{print $2}')" ]; then
        echo "djl on CUDA: possible: this machine's PyTorch $1 (CUDA $2) has the libtorch DJL's JNI needs, $needs, in $3;"
        echo "  the pack holds no DJL jars (prepare.sh leaves them out): add them to run it"
    else
        echo "djl on CUDA: not run: DJL's JNI needs $needs; this machine's libtorch is PyTorch's $1 (CUDA $2) in $3,"
        echo "  a build DJL's JNI does not match, and DJL's own CUDA build cannot be downloaded here (no network)"
    fi
}
export -f run_java lab djl
export java pack python

step machine 15 bash -c "uname -a; nvidia-smi -L 2>/dev/null || echo 'no nvidia-smi'; ${python:-false} -c 'import torch; print(\"torch\", torch.__version__, \"cuda\", torch.version.cuda, \"gpus\", torch.cuda.device_count())'; lab devices"
step kit 220 run_java -jar "$(ls "$pack"/kit/junit-platform-console-standalone-*.jar)" execute \
    -cp "$(ls "$pack"/kit/*.jar "$pack"/lib/*.jar | grep -v console-standalone | paste -sd:)" "${kit[@]}" --details summary
step launch 10 run_java -cp "$pack/lib/*" org.multigpulab.backend.opencl.LaunchOverhead
step opencl 40 lab train --backend opencl --gpus 1 --data "$pack/data" --no-plot "${slice[@]}" --report "$res/opencl.json"
step notebook 25 "$python" "$root/scripts/gpu/notebook.py" --data "$pack/data" --device "$torch_device" "${slice[@]}" \
    --save-init "$res/init.safetensors" --report "$res/notebook.json"
same=(--data "$pack/data" --no-shuffle --train-samples $((steps * 256)) --test-samples 256 --epochs 1
      --load "$res/init.safetensors")
step steps-opencl 15 lab train --backend opencl --gpus 1 --no-plot "${same[@]}" --save "$res/opencl-steps.safetensors"
step steps-torch 15 "$python" "$root/scripts/gpu/notebook.py" --device "$torch_device" --no-tf32 "${same[@]}" \
    --save "$res/torch-steps.safetensors"
step compare 10 lab compare "$res/opencl-steps.safetensors" "$res/torch-steps.safetensors" \
    --from "$res/init.safetensors" --tolerance 1e-3
step sim 25 lab train --backend sim --gpus 1 --profile h200 --data "$pack/data" --no-plot "${slice[@]}" \
    --report "$res/sim.json"
step kernels 20 "$python" "$root/scripts/gpu/kernels.py" --device "$torch_device" "${kernel_steps[@]}" \
    --report "$res/kernels.json"
if "$python" -c 'import torchvision' 2>/dev/null; then
    step host 30 "$python" -W ignore "$root/scripts/pytorch-host.py" --data "$pack/data" "${host_repeats[@]}"
else
    echo "== host: not run: $python has no torchvision"
fi
step djl 10 djl
resnet=(--model resnet18 --data "$pack/data" --no-shuffle --no-plot --epochs 2 --batch-size "$resnet_batch" --lr 0.1
        --train-samples $((resnet_steps * resnet_batch)) --test-samples "$resnet_batch")
step resnet-opencl 40 lab train --backend opencl --gpus 1 "${resnet[@]}" --report "$res/resnet-opencl.json"
step resnet-torch 20 "$python" "$root/scripts/gpu/resnet.py" --device "$torch_device" --batch-size "$resnet_batch" \
    "${resnet_torch[@]}" --report "$res/resnet-torch.json"

step summary 10 "$python" "$root/scripts/gpu/summary.py" "$res"
cp "$res/summary.txt" "$out/summary.txt" 2>/dev/null
tar -C "$work" -czf "$out/results.tar.gz" results
if [ "${#failed[@]}" -gt 0 ]; then
    echo "failed: ${failed[*]}"
    exit 1
fi
echo "all steps passed"
