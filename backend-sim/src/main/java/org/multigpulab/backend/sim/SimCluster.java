package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.KernelStream;
import org.multigpulab.device.Timeline;

/**
 * The logical GPUs opened together over one physical device, and the timeline they share. The physical device
 * is closed when the last logical GPU is. In time-only mode there is no physical device ({@link #physical()} is
 * null): the GPUs hold no data and compute nothing, and only their simulated time advances.
 */
final class SimCluster {

    private final Device physical;
    private final SimTimeline timeline;
    private final List<SimDevice> devices = new ArrayList<>();
    /** Each logical GPU's calls not yet run on the physical device, in the order they were made. */
    private final List<List<KernelOp.Call>> queued = new ArrayList<>();

    private int open;

    /**
     * {@code profiles.size()} logical GPUs, device i timed as {@code profiles.get(i)}; no physical device: time
     * only. {@code hostPerGpu}: each GPU's work issued by a host thread of its own (a process per GPU), else all by
     * one. {@code calibration}: how the {@code host} profile was measured, else null.
     */
    SimCluster(
            Device physical,
            List<DeviceProfile> profiles,
            Topology topology,
            Nic nic,
            HostModel hostModel,
            boolean hostPerGpu,
            boolean trace,
            Timeline.Calibration calibration) {
        this.physical = physical;
        this.timeline = new SimTimeline(this, profiles, topology, nic, hostModel, hostPerGpu, trace, calibration);
        for (int i = 0; i < profiles.size(); i++) {
            devices.add(new SimDevice(this, i, profiles.get(i).memoryBytes()));
            queued.add(new ArrayList<>());
        }
        this.open = profiles.size();
    }

    Device physical() {
        return physical;
    }

    SimTimeline timeline() {
        return timeline;
    }

    List<SimDevice> devices() {
        return devices;
    }

    SimDevice device(int index) {
        return devices.get(index);
    }

    /** Queues {@code call} of logical GPU {@code device} (its buffers the logical ones) for the physical device. */
    void queue(int device, KernelOp.Call call) {
        queued.get(device).add(call);
    }

    /**
     * Runs every logical GPU's queued calls on the physical device, a stream per GPU, and empties the queues
     * (also when a call fails, whose error is then thrown here). Each call's wall time goes to its GPU's stats.
     * Nothing to do in time-only mode, where nothing is queued.
     */
    void runQueued() {
        List<KernelStream> streams = new ArrayList<>();
        for (int d = 0; d < queued.size(); d++) {
            if (!queued.get(d).isEmpty()) {
                streams.add(new KernelStream(
                        queued.get(d), SimKernels::underneath, devices.get(d).counter()));
                queued.get(d).clear();
            }
        }
        if (!streams.isEmpty()) {
            physical.kernels().launchStreams(streams);
        }
    }

    void closed(SimDevice device) {
        // what it queued can no longer be read
        queued.get(device.index()).clear();
        if (--open == 0 && physical != null) {
            physical.close();
        }
    }
}
