package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.device.Device;

/**
 * The logical GPUs opened together over one physical device, and the timeline they share. The physical device
 * is closed when the last logical GPU is.
 */
final class SimCluster {

    private final Device physical;
    private final SimTimeline timeline;
    private final List<SimDevice> devices = new ArrayList<>();
    private int open;

    /** {@code profiles.size()} logical GPUs, device i timed as {@code profiles.get(i)}. */
    SimCluster(Device physical, List<DeviceProfile> profiles, Topology topology, boolean trace) {
        this.physical = physical;
        this.timeline = new SimTimeline(this, profiles, topology, trace);
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
        if (--open == 0) {
            physical.close();
        }
    }
}
