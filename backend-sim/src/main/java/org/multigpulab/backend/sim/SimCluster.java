package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceId;

/**
 * The logical GPUs opened together over one physical device. The physical device is closed when the last
 * logical GPU is.
 */
final class SimCluster {

    private final Device physical;
    private final List<SimDevice> devices = new ArrayList<>();
    private int open;

    SimCluster(Device physical, int count, long capacityBytes) {
        this.physical = physical;
        for (int i = 0; i < count; i++) {
            devices.add(new SimDevice(this, DeviceId.of(SimBackend.NAME, i), capacityBytes));
        }
        this.open = count;
    }

    Device physical() {
        return physical;
    }

    List<SimDevice> devices() {
        return devices;
    }

    void closed(SimDevice device) {
        if (--open == 0) {
            physical.close();
        }
    }
}
