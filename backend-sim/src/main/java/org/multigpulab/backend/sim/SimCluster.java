package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.device.Device;
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
    private int open;

    /**
     * {@code profiles.size()} logical GPUs, device i timed as {@code profiles.get(i)}; no physical device: time
     * only. {@code calibration}: how the {@code host} profile was measured, else null.
     */
    SimCluster(
            Device physical,
            List<DeviceProfile> profiles,
            Topology topology,
            Nic nic,
            HostModel hostModel,
            boolean trace,
            Timeline.Calibration calibration) {
        this.physical = physical;
        this.timeline = new SimTimeline(this, profiles, topology, nic, hostModel, trace, calibration);
        for (int i = 0; i < profiles.size(); i++) {
            devices.add(new SimDevice(this, i, profiles.get(i).memoryBytes()));
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

    void closed(SimDevice device) {
        if (--open == 0 && physical != null) {
            physical.close();
        }
    }
}
