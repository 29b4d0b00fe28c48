package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.OutOfDeviceMemoryException;

class SimBackendTest {

    @Test
    void opensNumberedLogicalGpusOverCpu() {
        List<Device> devices = Backends.open("sim", DeviceRequest.of(3));
        assertEquals(
                List.of(DeviceId.parse("sim:0"), DeviceId.parse("sim:1"), DeviceId.parse("sim:2")),
                devices.stream().map(Device::id).toList());
        assertTrue(devices.get(2).info().description().contains("cpu:0"));
    }

    @Test
    void aKernelRefusesABufferOfAnotherLogicalGpu() {
        List<Device> devices = Backends.open("sim", DeviceRequest.of(2));
        Buffer onOne = devices.get(1).upload(new float[] {1, 2});
        Buffer onZero = devices.get(0).allocate(2);
        DeviceException e = assertThrows(
                DeviceException.class, () -> devices.get(0).kernels().reluForward(onOne, onZero, 2));
        assertTrue(e.getMessage().contains("sim:1") && e.getMessage().contains("sim:0"), e.getMessage());
    }

    @Test
    void peerCopiesReallyCopyAndAreCounted() {
        List<Device> devices = Backends.open("sim", DeviceRequest.of(2));
        Buffer src = devices.get(0).upload(new float[] {1, 2, 3});
        Buffer dst = devices.get(1).allocate(3);
        devices.get(1).copyFromPeer(src, dst);
        devices.get(0).kernels().fill(9f, src, 3); // the copy must not share memory with the source
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
}
