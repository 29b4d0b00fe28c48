package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.StepPart;

/**
 * The notebook's host program by step part: its Python per device for the forward and backward passes and the
 * optimizer, its allreduce of each parameter once for all devices (on device 0's range), and nothing for what DDP
 * launches from C++ (a bucket's allreduce, the buffers' broadcast) or for the sum across processes; on another
 * processor, every figure scaled by the single-thread ratings; the epoch no shorter than its DataLoader.
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

    @Test
    void anotherProcessorScalesEveryFigureByTheSingleThreadRatings() {
        HostModel xeon = HOST.on(HostCpu.XEON_E5_2686V4);
        double k = HostCpu.MEASURED.singleThreadRating() / HostCpu.XEON_E5_2686V4.singleThreadRating();
        assertEquals(HOST.forwardSec() * k, xeon.forwardSec(), 1e-15);
        assertEquals(HOST.backwardSec() * k, xeon.backwardSec(), 1e-15);
        assertEquals(HOST.loaderWorkersPerImageSec() * k, xeon.loaderWorkersPerImageSec(), 1e-15);
        assertEquals(HOST.loaderHostPerImageSec() * k, xeon.loaderHostPerImageSec(), 1e-15);
        assertEquals(HOST.forwardSec(), xeon.on(HostCpu.MEASURED).forwardSec(), 1e-15, "and back");
    }

    @Test
    void anEpochIsNoShorterThanItsWorkersOrItsHostThread() {
        HostModel xeon = HOST.on(HostCpu.XEON_E5_2686V4);
        int images = 60_000;
        double workers = images * xeon.loaderWorkersPerImageSec() / xeon.workers();
        assertEquals(workers, xeon.epochSeconds(0.1, 0.05, images), 1e-12, "4 workers on 32 vCPUs, GPUs idle");
        double slowSteps = 10;
        assertEquals(
                slowSteps + images * xeon.loaderHostPerImageSec(),
                xeon.epochSeconds(slowSteps, 1, images),
                1e-12,
                "the host thread receives every batch besides its steps");
        HostModel twoCores = HOST;
        double shared = (images * (HOST.loaderWorkersPerImageSec() + HOST.loaderHostPerImageSec()) + 0.5) / 2;
        assertEquals(shared, twoCores.epochSeconds(0.1, 0.5, images), 1e-12, "on 2 cores all of it shares them");
    }

    @Test
    void anUnknownProcessorIsNamedWithTheKnownOnes() {
        String message = assertThrows(DeviceException.class, () -> HostCpu.named("pentium"))
                .getMessage();
        assertTrue(message.contains("xeon-e5-2686v4") && message.contains("pentium"), message);
    }
}
