package org.multigpulab.backend.djl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp.Scale;

/** The djl backend on a machine without CUDA: one device, djl:cpu, offline, self-tested. */
class DjlBackendTest {

    @Test
    void withoutGpusItOpensTheProcessor() {
        assertTrue(
                new DjlBackend().availability().available(),
                new DjlBackend().availability().reason());
        Device d = Backends.open("djl", DeviceRequest.of(1)).getFirst();
        assertEquals("djl:cpu", d.id().toString());
        assertTrue(d.info().description().startsWith("libtorch 2.7.1"), d.info().description());
        assertEquals("true", System.getProperty("ai.djl.offline"), "DJL must not download anything");
        d.close();
    }

    @Test
    void askingForMoreDevicesThanThereAreSaysWhatToDo() {
        DeviceException e = assertThrows(DeviceException.class, () -> Backends.open("djl", DeviceRequest.of(4)));
        assertTrue(
                e.getMessage().contains("no CUDA GPU")
                        && e.getMessage().contains("--backend sim --physical djl --gpus 4"),
                e.getMessage());
        assertThrows(DeviceException.class, () -> Backends.open("djl", new DeviceRequest(1, Map.of("threads", "2"))));
    }

    @Test
    void buffersSlicesAndCopiesMoveTheRightElements() {
        Device d = Backends.open("djl", DeviceRequest.of(1)).getFirst();
        Buffer a = d.upload(new float[] {1, 2, 3, 4, 5});
        Buffer b = d.allocate(3);
        d.copyFromPeer(a.slice(1, 3), b);
        d.kernels().launch(new Scale(10f, b.slice(1, 2), 2));
        assertArrayEquals(new float[] {2, 30, 40}, d.download(b));
        assertArrayEquals(new float[] {1, 2, 3, 4, 5}, d.download(a), "the source is untouched");
        Device sim = Backends.open("sim", DeviceRequest.of(1)).getFirst();
        Buffer onSim = sim.upload(new float[] {7, 8, 9});
        d.copyFromPeer(onSim, b); // from another backend: through the host
        assertArrayEquals(new float[] {7, 8, 9}, d.download(b));
        assertEquals(12 + 12, d.stats().bytesFromPeers());
        d.close();
    }

    /**
     * The fallback the gate takes where oneDNN is wrong must itself be right on every machine: libtorch's own
     * convolution. Whether oneDNN is on after the open is what the self-test decided here; it is put back so.
     */
    @Test
    void libtorchsOwnConvolutionsPassTheSelfTest() {
        Device d = Backends.open("djl", DeviceRequest.of(1)).getFirst();
        boolean decided = OneDnn.LIBTORCH.enabled();
        try {
            assertFalse(OneDnn.LIBTORCH.enable(false));
            assertEquals(Optional.empty(), ConvolutionSelfTest.failure(d));
        } finally {
            OneDnn.LIBTORCH.enable(decided);
            d.close();
        }
    }

    @Test
    void listsItsDevice() {
        List<String> ids =
                new DjlBackend().devices().stream().map(i -> i.id().toString()).toList();
        assertEquals(List.of("djl:cpu"), ids);
    }
}
