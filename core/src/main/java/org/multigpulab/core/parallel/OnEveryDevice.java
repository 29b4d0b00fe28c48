package org.multigpulab.core.parallel;

import java.util.List;
import org.multigpulab.device.Device;
import org.multigpulab.device.StepPart;

/** A range open on every device at once, for work that involves them all (a collective); close ends it. */
record OnEveryDevice(List<Device.Range> open) implements AutoCloseable {

    static OnEveryDevice range(List<Replica> replicas, StepPart part) {
        return new OnEveryDevice(
                replicas.stream().map(r -> r.device().range(part)).toList());
    }

    @Override
    public void close() {
        open.forEach(Device.Range::close);
    }
}
