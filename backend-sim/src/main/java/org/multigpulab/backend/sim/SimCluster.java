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

    SimCluster(Device physical, int count, DeviceProfile profile, Topology topology, boolean trace) {
        this.physical = physical;
        this.timeline = new SimTimeline(this, count, profile, topology, trace);
        for (int i = 0; i < count; i++) {
            devices.add(new SimDevice(this, i, profile.memoryBytes()));
        }
        this.open = count;
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
