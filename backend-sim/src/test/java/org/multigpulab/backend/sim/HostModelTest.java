package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.multigpulab.device.StepPart;

/**
 * The notebook's host program by step part: its Python per device for the forward and backward passes and the
 * optimizer, its allreduce of each parameter once for all devices (on device 0's range), and nothing for what DDP
 * launches from C++ (a bucket's allreduce, the buffers' broadcast) or for the sum across processes.
 */
class HostModelTest {

    private static final HostModel HOST = HostModel.MEASURED;

    @Test
    void eachStepPartCostsThePythonThatLaunchesIt() {
        assertEquals(HOST.splitSec() + HOST.forwardSec(), HOST.seconds(new StepPart.Forward(), 1, 2));
        assertEquals(HOST.backwardSec(), HOST.seconds(new StepPart.Backward(), 1, 2));
        assertEquals(HOST.sgdSec(), HOST.seconds(new StepPart.OptimizerStep("sgd"), 0, 2));
        StepPart w1 = new StepPart.ParameterAllReduce("W1");
        assertEquals(HOST.allReducePerParameterSec() + 3 * HOST.allReducePerPeerSec(), HOST.seconds(w1, 0, 4));
        assertEquals(0, HOST.seconds(w1, 1, 4), "device 0's range carries the one call");
        assertEquals(0, HOST.seconds(new StepPart.BucketAllReduce(0), 0, 4));
        assertEquals(0, HOST.seconds(new StepPart.BufferBroadcast(), 0, 4));
        assertEquals(0, HOST.seconds(new StepPart.CrossProcessAllReduce(2), 0, 4));
    }
}
