#!/usr/bin/env python3
"""Times kernels of two builds of the lab in turns: before, after, after, before, ... and prints the medians.

On a shared machine a kernel's time moves by 20 % or more from one minute to the next, so two builds measured one
after the other say little. Here each round runs KernelSequenceMain (bench/) once per build, in alternating order,
on the same sequence of kernels repeated --repeats times (the last repetition counts: by then the JIT has compiled
everything the sequence runs); the table gives each kernel's median over the rounds, every round's figure, and
after over before.

  scripts/kernel-ab.py --before /tmp/before/bench/target --after bench/target conv1_forward pool1_forward

A folder is a built bench/target (`./mvnw -q -B package -DskipTests -pl bench -am`): its jar and lib/. For the
kernels of another commit, build it in a worktree (`git worktree add /tmp/before REV`). To time kernels that the
old commit's bench does not list, copy the new bench/target and put the old commit's backend jar in its lib/.
JAVA_TOOL_OPTIONS passes through (-XX:MaxVectorSize=32 for AVX2's vectors).
"""

import argparse
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def java():
    """The JDK 25 that ./lab uses, found by scripts/find-jdk.sh."""
    home = subprocess.run(
        ["sh", "-c", '. "$1/scripts/find-jdk.sh" && printf %s "$JAVA_HOME"', "sh", ROOT],
        capture_output=True, text=True, check=True).stdout
    return os.path.join(home, "bin", "java")


def run(java_bin, folder, backend, sequence):
    """Medians in µs of the last len(kernels) lines KernelSequenceMain prints, or an error naming the folder."""
    classpath = os.path.join(folder, "bench-0.1.0-SNAPSHOT.jar") + os.pathsep + os.path.join(folder, "lib", "*")
    out = subprocess.run(
        [java_bin, "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-cp", classpath,
         "org.multigpulab.bench.KernelSequenceMain", backend] + sequence,
        capture_output=True, text=True)
    lines = [line for line in out.stdout.splitlines() if "median" in line]
    if out.returncode != 0 or len(lines) != len(sequence):
        sys.exit("kernel-ab: the build in %s did not time every kernel:\n%s" % (folder, out.stderr.strip()[-800:]))
    return [float(line.split()[1]) for line in lines]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a built bench/target folder of the build to compare with")
    parser.add_argument("--after", required=True, help="a built bench/target folder of the build compared")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each build, in turns (default 5)")
    parser.add_argument("--repeats", type=int, default=4, help="the sequence's repetitions per run (default 4)")
    parser.add_argument("--backend", default="cpu", help="the backend the kernels run on (default cpu)")
    parser.add_argument("kernels", nargs="+", help="LeNetKernels names, in the order a run times them")
    args = parser.parse_args()
    for folder in (args.before, args.after):
        if not os.path.isfile(os.path.join(folder, "bench-0.1.0-SNAPSHOT.jar")):
            sys.exit("kernel-ab: %s holds no bench-0.1.0-SNAPSHOT.jar; build it with"
                     " ./mvnw -q -B package -DskipTests -pl bench -am" % folder)
    if args.rounds < 1 or args.repeats < 1:
        sys.exit("kernel-ab: --rounds and --repeats must be 1 or more")
    java_bin = java()
    times = {"before": {k: [] for k in args.kernels}, "after": {k: [] for k in args.kernels}}
    builds = [("before", args.before), ("after", args.after)]
    for r in range(args.rounds):
        for name, folder in builds if r % 2 == 0 else builds[::-1]:
            print("round %d/%d: %s" % (r + 1, args.rounds, name), file=sys.stderr)
            medians = run(java_bin, folder, args.backend, args.kernels * args.repeats)
            for kernel, us in zip(args.kernels, medians[-len(args.kernels):]):
                times[name][kernel].append(us)
    print("| kernel | before (µs) | after (µs) | after / before |")
    print("|---|---|---|---|")
    for k in args.kernels:
        before, after = times["before"][k], times["after"][k]
        print("| %s | %.0f (%s) | %.0f (%s) | %.2f |" % (
            k, statistics.median(before), ", ".join("%.0f" % v for v in before),
            statistics.median(after), ", ".join("%.0f" % v for v in after),
            statistics.median(after) / statistics.median(before)))


if __name__ == "__main__":
    main()
