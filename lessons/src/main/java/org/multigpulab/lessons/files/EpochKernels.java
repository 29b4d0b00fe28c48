package org.multigpulab.lessons.files;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelTime;

/**
 * The kernels this process's devices ran in each epoch, its evaluation included: their stats when the epoch ended
 * less those when the one before it ended (or when training started), added over the devices. A difference within
 * one run: two runs of different lengths compile their kernels differently, so the difference of their reports
 * says little about a later epoch. For the run report's {@code epochs[].kernels}.
 */
public final class EpochKernels implements TrainingListener {

    private record Size(String kernel, long flopsPerLaunch) {}

    private final List<Device> devices;
    private final Map<Integer, List<RunReport.KernelSummary>> byEpoch = new HashMap<>();
    private Map<Size, long[]> before = Map.of();

    public EpochKernels(List<Device> devices) {
        this.devices = List.copyOf(devices);
    }

    @Override
    public void onStart(Start start) {
        before = totals();
    }

    @Override
    public void onEpoch(EpochDone epoch) {
        Map<Size, long[]> now = totals();
        byEpoch.put(
                epoch.epoch(),
                now.entrySet().stream()
                        .map(e -> {
                            long[] then = before.getOrDefault(e.getKey(), new long[2]);
                            long launches = e.getValue()[0] - then[0], nanos = e.getValue()[1] - then[1];
                            return new RunReport.KernelSummary(
                                    e.getKey().kernel(), e.getKey().flopsPerLaunch(), launches, nanos / 1e9);
                        })
                        .filter(k -> k.launches() > 0)
                        .sorted(Comparator.comparingDouble(RunReport.KernelSummary::sec)
                                .reversed())
                        .toList());
        before = now;
    }

    /**
     * Epoch {@code epoch}'s kernels, longest first; {@code null} for an epoch this process did not run (one that
     * a resumed run had finished), and for the epoch a run resumed inside, the batches this process ran.
     */
    public List<RunReport.KernelSummary> of(int epoch) {
        return byEpoch.get(epoch);
    }

    /** Launches and nanoseconds per kernel and size, added over the devices. */
    private Map<Size, long[]> totals() {
        Map<Size, long[]> totals = new HashMap<>();
        for (Device device : devices) {
            for (KernelTime k : device.stats().kernelTimes()) {
                long[] t = totals.computeIfAbsent(new Size(k.kernel(), k.flopsPerLaunch()), s -> new long[2]);
                t[0] += k.launches();
                t[1] += k.nanos();
            }
        }
        return totals;
    }
}
