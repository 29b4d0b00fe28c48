package org.multigpulab.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link KernelBench} and prints, per kernel and backend, JMH's mean time and what it means: GFLOP/s and
 * GB/s from the call's FLOPs and bytes ({@link KernelOp.Call}). Arguments: the backends to run (default cpu and
 * djl), and which kernels: {@code lenet} (the default), {@code resnet}, or kernels by name. Where every one of
 * ResNet-18's convolutions ran on a backend, it adds up a training step's convolutions: each layer as often as the
 * network has it, forward, filter gradient, and input gradient but for the stem's.
 */
public final class KernelBenchMain {

    public static void main(String[] args) throws RunnerException {
        List<String> backends = new ArrayList<>(), kernels = new ArrayList<>();
        for (String arg : args) {
            switch (arg) {
                case "lenet" -> kernels.addAll(lenetNames());
                case "resnet" -> kernels.addAll(ResNetKernels.names());
                default -> (arg.contains("_") ? kernels : backends).add(arg);
            }
        }
        OptionsBuilder options = new OptionsBuilder();
        options.include(KernelBench.class.getSimpleName());
        if (!backends.isEmpty()) {
            options.param("backend", backends.toArray(String[]::new));
        }
        options.param("kernel", (kernels.isEmpty() ? lenetNames() : kernels).toArray(String[]::new));
        Options built = options.build();
        Collection<RunResult> results = new Runner(built).run();
        Map<String, KernelOp.Call> costs;
        try (Device cpu = Backends.open("cpu", DeviceRequest.of(1)).getFirst()) {
            costs = new HashMap<>(LeNetKernels.on(cpu));
        }
        for (String name : ResNetKernels.names()) {
            costs.put(name, ResNetKernels.call(name, n -> null));
        }
        System.out.printf(
                Locale.ROOT,
                "%n| kernel (batch 256; _32: a shard of 32) | backend | µs per call | GFLOP/s | GB/s |%n|---|---|---|---|---|%n");
        Map<String, Map<String, Double>> micros = new TreeMap<>();
        for (RunResult r : results) {
            String kernel = r.getParams().getParam("kernel");
            String backend = r.getParams().getParam("backend");
            double us = r.getPrimaryResult().getScore();
            micros.computeIfAbsent(backend, b -> new HashMap<>()).put(kernel, us);
            KernelOp.Call cost = costs.get(kernel);
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %.1f ± %.1f | %.1f | %.1f |%n",
                    kernel,
                    backend,
                    us,
                    r.getPrimaryResult().getScoreError(),
                    cost.flops() / us / 1e3,
                    cost.bytes() / us / 1e3);
        }
        micros.forEach((backend, times) -> resNetStep(backend, times, costs));
    }

    /** LeNet's kernels: the names KernelBench lists before ResNet's. */
    private static List<String> lenetNames() {
        try {
            String[] all = KernelBench.class
                    .getField("kernel")
                    .getAnnotation(Param.class)
                    .value();
            return Arrays.stream(all).filter(k -> !k.startsWith("resnet_")).toList();
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A ResNet-18 training step's convolutions on {@code backend}, where all of them were timed. */
    private static void resNetStep(String backend, Map<String, Double> times, Map<String, KernelOp.Call> costs) {
        double us = 0, flops = 0;
        for (Map.Entry<String, Integer> layer : ResNetKernels.COUNTS.entrySet()) {
            for (String pass : new String[] {"forward", "backward_filter", "backward_data"}) {
                if (layer.getKey().equals("stem") && pass.equals("backward_data")) {
                    continue; // the images need no gradient
                }
                String kernel = "resnet_" + layer.getKey() + "_" + pass;
                if (!times.containsKey(kernel)) {
                    return;
                }
                us += layer.getValue() * times.get(kernel);
                flops += layer.getValue() * (double) costs.get(kernel).flops();
            }
        }
        System.out.printf(
                Locale.ROOT,
                "%nResNet-18's convolutions in one training step at batch %d on %s: %.1f ms, %.1f GFLOP/s%n",
                ResNetKernels.BATCH,
                backend,
                us / 1e3,
                flops / us / 1e3);
    }
}
