package org.multigpulab.core.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.device.Device;

/** The concise API: a loop written as for one device, whose errors still name the loop's epoch and batch. */
class DataParallelTest {

    @Test
    void aDivergingStepNamesTheEpochAndBatchOfTheLoop() {
        FashionMnist.Splits data = Synthetic.splits(64, 16);
        List<Device> devices = Synthetic.sim(2);
        int epoch = 0, batch = 0;
        TrainingDivergedException diverged = null;
        try (DataParallel net = DataParallel.wrap(new LeNet(), new LeNet().initialState(0), devices)) {
            loop:
            for (epoch = 1; epoch <= 3; epoch++) {
                float lr = epoch == 1 ? 0.1f : 1e30f; // the second epoch blows up
                BatchIterator it = new BatchIterator(data.train(), 16);
                for (batch = 1; it.hasNext(); batch++) {
                    try {
                        net.step(it.next(), lr);
                    } catch (TrainingDivergedException e) {
                        diverged = e;
                        break loop;
                    }
                }
            }
        } finally {
            devices.forEach(Device::close);
        }
        assertNotNull(diverged, "a learning rate of 1e30 must diverge");
        assertEquals(2, epoch, diverged.getMessage());
        assertTrue(diverged.getMessage().contains(" in epoch 2, batch " + batch + " on sim:"), diverged.getMessage());
        assertTrue(
                diverged.getMessage().endsWith("--lr (now 1.0E30)"),
                "the learning rate of the step: " + diverged.getMessage());
    }
}
