package org.multigpulab.bench;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link KernelBench} and prints, per kernel and backend, JMH's mean time and what it means: GFLOP/s and
 * GB/s from the call's FLOPs and bytes ({@link KernelOp.Call}). Arguments: the backends to run (default cpu and
 * djl).
 */
public final class KernelBenchMain {

    public static void main(String[] args) throws RunnerException {
        OptionsBuilder options = new OptionsBuilder();
        options.include(KernelBench.class.getSimpleName());
        if (args.length > 0) {
            options.param("backend", args);
        }
        Options built = options.build();
        Collection<RunResult> results = new Runner(built).run();
        Map<String, KernelOp.Call> costs;
        try (Device cpu = Backends.open("cpu", DeviceRequest.of(1)).getFirst()) {
            costs = LeNetKernels.on(cpu);
        }
        System.out.printf(
                Locale.ROOT,
                "%n| kernel (batch 256; _32: a shard of 32) | backend | µs per call | GFLOP/s | GB/s |%n|---|---|---|---|---|%n");
        for (RunResult r : results) {
            String kernel = r.getParams().getParam("kernel");
            String backend = r.getParams().getParam("backend");
            double micros = r.getPrimaryResult().getScore();
            KernelOp.Call cost = costs.get(kernel);
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %.1f ± %.1f | %.1f | %.1f |%n",
                    kernel,
                    backend,
                    micros,
                    r.getPrimaryResult().getScoreError(),
                    cost.flops() / micros / 1e3,
                    cost.bytes() / micros / 1e3);
        }
    }
}
