package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp.Axpy;
import org.multigpulab.device.KernelOp.Fill;
import org.multigpulab.device.KernelOp.Gemm;
import org.multigpulab.device.KernelOp.ReluForward;
import org.multigpulab.device.KernelOp.Scale;
import org.multigpulab.device.OutOfDeviceMemoryException;
import org.multigpulab.device.Timeline;

class SimBackendTest {

    @Test
    void opensNumberedLogicalGpusOverCpu() {
        List<Device> devices = Backends.open("sim", DeviceRequest.of(3));
        assertEquals(
                List.of(DeviceId.parse("sim:0"), DeviceId.parse("sim:1"), DeviceId.parse("sim:2")),
                devices.stream().map(Device::id).toList());
        assertTrue(devices.get(2).info().description().contains("cpu:0"));
    }

    /** 1,024 GPUs open (time-only, as ./lab simulate opens them); one more is a message, not a heap run out. */
    @Test
    void opensUpTo1024GpusAndSaysSoBeyond() {
        Map<String, String> timeOnly = Map.of("compute", "off", "profile", "h100");
        assertEquals(
                1024, Backends.open("sim", new DeviceRequest(1024, timeOnly)).size());
        DeviceException e =
                assertThrows(DeviceException.class, () -> Backends.open("sim", new DeviceRequest(100_000, timeOnly)));
        assertTrue(
                e.getMessage().startsWith("backend sim simulates at most 1024 GPUs in one process, not 100000"),
                e.getMessage());
    }

    @Test
    void aKernelRefusesABufferOfAnotherLogicalGpu() {
        List<Device> devices = Backends.open("sim", DeviceRequest.of(2));
        Buffer onOne = devices.get(1).upload(new float[] {1, 2});
        Buffer onZero = devices.get(0).allocate(2);
        DeviceException e = assertThrows(
                DeviceException.class, () -> devices.get(0).kernels().launch(new ReluForward(onOne, onZero, 2)));
        assertTrue(e.getMessage().contains("sim:1") && e.getMessage().contains("sim:0"), e.getMessage());
    }

    /**
     * Kernels run on the physical device later than they are called, all GPUs' queues at once: whatever reads
     * or overwrites their buffers from outside (a download, a peer copy, an upload) sees them run first, in each
     * GPU's order, and the stats count them.
     */
    @Test
    void queuedCallsRunBeforeTheirBuffersAreReadOrOverwritten() {
        List<Device> devices = Backends.open("sim", DeviceRequest.of(4));
        List<Buffer> xs = new ArrayList<>(), ys = new ArrayList<>();
        for (int d = 0; d < devices.size(); d++) {
            Device device = devices.get(d);
            xs.add(device.upload(new float[] {d + 1, d + 1, d + 1}));
            ys.add(device.allocate(3));
            device.kernels().launch(new Fill(0f, ys.get(d), 3));
            device.kernels().launch(new Axpy(1f, xs.get(d), ys.get(d), 3)); // y = x, x read while queued
        }
        long launched = devices.get(2).stats().kernelLaunches();
        assertEquals(2, launched, "the stats count the calls queued so far");
        for (int d = 0; d < devices.size(); d++) {
            devices.get(d).upload(new float[] {-9, -9, -9}, 0, xs.get(d)); // x overwritten after y = x
            devices.get(d).kernels().launch(new Scale(2f, ys.get(d), 3));
        }
        Buffer copied = devices.get(0).allocate(3);
        devices.get(0).copyFromPeer(ys.get(3), copied);
        assertArrayEquals(new float[] {8, 8, 8}, devices.get(0).download(copied), "a peer copy of a queued result");
        for (int d = 0; d < devices.size(); d++) {
            float v = 2 * (d + 1);
            assertArrayEquals(new float[] {v, v, v}, devices.get(d).download(ys.get(d)), "sim:" + d);
        }
    }

    @Test
    void timeOnlyGpusComputeNothingButKeepTimeAndCapacity() {
        List<Device> timeOnly = Backends.open("sim", new DeviceRequest(2, Map.of("compute", "off", "memory-mb", "1")));
        List<Device> computing = Backends.open("sim", new DeviceRequest(2, Map.of("memory-mb", "1")));
        List<float[]> results = new ArrayList<>();
        for (List<Device> devices : List.of(timeOnly, computing)) {
            Buffer src = devices.get(0).upload(new float[] {1, 2, 3});
            Buffer dst = devices.get(1).allocate(3);
            devices.get(0).kernels().launch(new Fill(9f, src, 3));
            devices.get(1).copyFromPeer(src, dst);
            devices.get(1).kernels().launch(new Scale(2f, dst, 3));
            results.add(devices.get(1).download(dst));
        }
        assertArrayEquals(new float[] {0, 0, 0}, results.get(0), "a time-only GPU holds no data");
        assertArrayEquals(new float[] {18, 18, 18}, results.get(1));
        Timeline t = timeOnly.getFirst().timeline().orElseThrow();
        Timeline c = computing.getFirst().timeline().orElseThrow();
        assertEquals(c.now(), t.now(), 0.0, "the same simulated time");
        assertTrue(timeOnly.get(0).info().description().contains("time only"));
        assertThrows(OutOfDeviceMemoryException.class, () -> timeOnly.get(0).allocate(300_000));
        DeviceException host = assertThrows(
                DeviceException.class,
                () -> Backends.open("sim", new DeviceRequest(1, Map.of("compute", "off", "profile", "host"))));
        assertTrue(host.getMessage().contains("time-only"), host.getMessage());
    }

    @Test
    void peerCopiesReallyCopyAndAreCounted() {
        List<Device> devices = Backends.open("sim", DeviceRequest.of(2));
        Buffer src = devices.get(0).upload(new float[] {1, 2, 3});
        Buffer dst = devices.get(1).allocate(3);
        devices.get(1).copyFromPeer(src, dst);
        devices.get(0).kernels().launch(new Fill(9f, src, 3)); // the copy must not share memory with the source
        assertArrayEquals(new float[] {1, 2, 3}, devices.get(1).download(dst));
        assertEquals(12, devices.get(1).stats().bytesFromPeers());
        assertEquals(0, devices.get(0).stats().bytesFromPeers());
        assertEquals(12, devices.get(0).stats().bytesToPeers(), "the sender counts what it sent");
        assertEquals(0, devices.get(1).stats().bytesToPeers());
    }

    @Test
    void eachLogicalGpuHasItsOwnCapacity() {
        List<Device> devices = Backends.open("sim", new DeviceRequest(2, Map.of("memory-mb", "1")));
        devices.get(0).allocate(200_000); // 800,000 bytes of 1,048,576
        OutOfDeviceMemoryException e = assertThrows(
                OutOfDeviceMemoryException.class, () -> devices.get(0).allocate(100_000));
        assertTrue(
                e.getMessage().contains("sim:0")
                        && e.getMessage().contains("400000")
                        && e.getMessage().contains("248576")
                        && e.getMessage().contains("1048576"),
                e.getMessage());
        devices.get(1).allocate(200_000); // the other logical GPU still has all of its memory
        assertEquals(800_000, devices.get(0).stats().peakAllocatedBytes());
    }

    @Test
    void freedMemoryCanBeAllocatedAgain() {
        Device d = Backends.open("sim", new DeviceRequest(1, Map.of("memory-mb", "1")))
                .getFirst();
        for (int i = 0; i < 5; i++) {
            d.allocate(200_000).close();
        }
        assertEquals(0, d.stats().allocatedBytes());
    }

    @Test
    void badOptionsAreNamed() {
        assertTrue(assertThrows(
                        DeviceException.class,
                        () -> Backends.open("sim", new DeviceRequest(2, Map.of("phisical", "cpu"))))
                .getMessage()
                .contains("phisical"));
        assertTrue(assertThrows(
                        DeviceException.class,
                        () -> Backends.open("sim", new DeviceRequest(2, Map.of("physical", "nope"))))
                .getMessage()
                .contains("unknown backend 'nope'"));
        assertTrue(assertThrows(
                        DeviceException.class,
                        () -> Backends.open("sim", new DeviceRequest(2, Map.of("physical", "sim"))))
                .getMessage()
                .contains("sim cannot run on sim"));
        assertTrue(assertThrows(DeviceException.class, () -> Backends.open("cpu", DeviceRequest.of(2)))
                .getMessage()
                .contains("--backend sim --gpus 2"));
    }

    /** --profile t4,v100: one profile per logical GPU, each kernel charged at its own device's rates. */
    @Test
    void devicesOfOneRunMayHaveDifferentProfiles() {
        List<Device> devices = Backends.open("sim", new DeviceRequest(2, Map.of("profile", "t4,v100")));
        assertTrue(
                devices.get(0).info().description().contains("T4"),
                devices.get(0).info().description());
        assertTrue(
                devices.get(1).info().description().contains("V100"),
                devices.get(1).info().description());
        assertTrue(devices.get(0).timeline().orElseThrow().description().startsWith("T4"));
        double[] seconds = new double[2];
        int n = 512;
        for (int d = 0; d < 2; d++) {
            Device device = devices.get(d);
            Buffer a = device.allocate(n * n), c = device.allocate(n * n);
            device.kernels().launch(new Fill(1f, a, n * n));
            device.synchronize();
            double start = device.timeline().orElseThrow().now();
            device.kernels().launch(new Gemm(false, false, n, n, n, 1f, a, a, 0f, c));
            device.synchronize();
            seconds[d] = device.timeline().orElseThrow().now() - start;
        }
        // a V100's float32 peak is about twice a T4's, so the same multiply takes it less simulated time
        assertTrue(seconds[1] < 0.8 * seconds[0], "V100 vs T4: " + seconds[1] + " vs " + seconds[0] + " s");
        DeviceException e = assertThrows(
                DeviceException.class, () -> Backends.open("sim", new DeviceRequest(3, Map.of("profile", "t4,v100"))));
        assertTrue(e.getMessage().contains("one per GPU"), e.getMessage());
    }
}
