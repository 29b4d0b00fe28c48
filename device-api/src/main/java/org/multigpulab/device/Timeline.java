package org.multigpulab.device;

import java.util.List;

/**
 * The simulated time of a group of devices that a cost model times instead of a clock on the wall: what the
 * work issued to them would take on the modelled hardware. Devices opened together share one timeline;
 * backends that run on real hardware have none ({@link Device#timeline()} is empty).
 *
 * <p>Times are seconds since the devices were opened. Read it from the thread that drives the devices.
 */
public interface Timeline {

    /** What is modelled, for people: {@code "2× T4 over PCIe 3"}. */
    String description();

    /** The device profile's name, such as {@code t4}. */
    String profile();

    /** The interconnect's name, such as {@code pcie3}. */
    String topology();

    /** When everything issued so far, on every device and link, has finished. */
    double now();

    /** Per device, in device order: how its time was spent since the devices were opened. */
    List<DeviceTime> devices();

    /** Bytes that crossed each directed link between two devices, busiest first. */
    List<LinkTraffic> links();

    /**
     * The host runs collective {@code op} over {@code bytes} it holds (nccl-tests' size) with the same of
     * {@code nodes − 1} other nodes, each a process driving devices like these, over the network between the nodes,
     * and waits for it: the middle step of a hierarchical collective (within each node, across the nodes, within
     * each node again). A timeline without a network model leaves its time as it is.
     */
    default void acrossNodes(CollectiveCostModel.Collective op, long bytes, int nodes) {}

    /**
     * Runs {@code moves}, the copies and additions of one NCCL call, collective {@code op} over {@code bytes} of each
     * of this timeline's devices (nccl-tests' size), and charges them as that call: a timeline with a model of NCCL
     * times the call as a whole, by that model, and not the copies and additions one by one; one without runs
     * {@code moves} as they come.
     */
    default void asOneNcclCall(CollectiveCostModel.Collective op, long bytes, Runnable moves) {
        moves.run();
    }

    /**
     * The host program spent {@code seconds}, measured, on work of its own that no device does (gathering the
     * next batch from the data set). A timeline whose devices are this machine's processor (the {@code sim}
     * backend's {@code host} profile) counts it, as its one host thread launches nothing meanwhile; one that
     * models other hardware leaves its time as it is.
     */
    default void hostWork(double seconds) {}

    /**
     * How many nodes the modelled system has, this timeline's devices being one of them: 1 until
     * {@link #acrossNodes} said otherwise.
     */
    default int nodes() {
        return 1;
    }

    /**
     * The seconds the host program's own code (not its launches) has taken so far: Python, PyTorch's dispatcher,
     * autograd, when a model of them was asked for; else 0.
     */
    default double hostProgramSec() {
        return 0;
    }

    /**
     * An epoch of {@code images} that took the devices {@code epochSec}, the host program's code
     * {@code hostProgramSec} of it, with the program's data loading added as its model says (its worker processes
     * share the processor with the host thread); {@code epochSec} without a model of the host program.
     */
    default double epochWithHostProgram(double epochSec, double hostProgramSec, int images) {
        return epochSec;
    }

    /** The recorded events, in the order they were issued; empty unless recording was asked for. */
    List<TraceEvent> trace();

    /**
     * How the devices' time was measured when it is measured rather than taken from a datasheet (the {@code sim}
     * backend's {@code host} profile); null otherwise.
     */
    default Calibration calibration() {
        return null;
    }

    /**
     * A measured cost model: per layer and element-wise kernel, its seconds at the sizes measured ({@code tables},
     * what its calls are charged, read between those sizes); per kernel kind, what a call of a shape not measured
     * costs ({@code fixedSec + flops / flopsPerSec + bytes / bytesPerSec}, a rate null where the fit left its term
     * out); how long measuring took; whether it was read from {@code file} instead, kept from an earlier run on the
     * same device, processor, JVM and build.
     */
    record Calibration(
            String device,
            boolean cached,
            String file,
            double measureSec,
            List<MeasuredSizes> tables,
            List<KernelCost> kernels) {}

    /** A kernel's {@code seconds} at each of the {@code sizes} measured, sizes counted in {@code unit} (FLOPs or bytes). */
    record MeasuredSizes(String kernel, String unit, double[] sizes, double[] seconds) {}

    /** One kernel kind's measured cost. */
    record KernelCost(String kind, double fixedSec, Double flopsPerSec, Double bytesPerSec) {}

    /**
     * One device's time up to {@link #now()}: kernels running (on any stream; their durations added), its links
     * busy with copies (sending or receiving, overlapping time counted once), and idle, when it neither
     * computed nor moved data; {@code kernels} splits the compute time by kernel and size as the device's
     * {@link DeviceStats#kernelTimes()} splits the measured time, so that the two can be compared line by line.
     */
    record DeviceTime(
            DeviceId device,
            double computeSec,
            double commSec,
            double idleSec,
            long bytesSent,
            long bytesReceived,
            long peakBytes,
            List<KernelTime> kernels) {}

    /** Bytes copied from one device to another. */
    record LinkTraffic(DeviceId from, DeviceId to, long bytes) {}

    /**
     * One span of simulated time on a device's lane ({@code compute}, {@code copy} or {@code steps}): a kernel,
     * a copy, or a named range of work such as a collective step.
     */
    record TraceEvent(int device, String lane, String name, String category, double startSec, double durationSec) {}
}
