package org.multigpulab.backend.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.FloatBuffer;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.BufferBase;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.DeviceInfo;
import org.multigpulab.device.DeviceStats;
import org.multigpulab.device.InstrumentedKernels;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.StatsCounter;

/**
 * One device of DJL's PyTorch engine: the CPU ({@code djl:cpu}) or a CUDA GPU ({@code djl:cuda:0}). Its buffers
 * are NDArrays of one {@link NDManager}, freed with the buffer; every kernel and copy works in a sub-manager of
 * its own that is closed when it returns, so native memory does not grow with the number of steps.
 */
final class DjlDevice implements Device {

    private final DeviceInfo info;
    private final ai.djl.Device djl;
    private final NDManager manager;
    private final StatsCounter stats = new StatsCounter();
    private final Kernels kernels;

    DjlDevice(DeviceInfo info, ai.djl.Device djl) {
        this.info = info;
        this.djl = djl;
        this.manager = NDManager.newBaseManager(djl, "PyTorch");
        this.kernels = new InstrumentedKernels(this, new DjlKernels(this), stats);
    }

    /** A short-lived manager on this device for one kernel's or copy's temporaries. */
    NDManager scope() {
        return manager.newSubManager();
    }

    ai.djl.Device djl() {
        return djl;
    }

    @Override
    public DeviceId id() {
        return info.id();
    }

    @Override
    public DeviceInfo info() {
        return info;
    }

    @Override
    public Buffer allocate(int length) {
        long bytes = (long) length * Float.BYTES;
        stats.checkFits(info, bytes);
        NDArray root = manager.zeros(new Shape(length), DataType.FLOAT32);
        stats.allocated(bytes);
        return new DjlBuffer(this, root, 0, length, true);
    }

    void freed(DjlBuffer buffer) {
        stats.freed((long) buffer.length() * Float.BYTES);
    }

    private DjlBuffer own(Buffer buffer, String role) {
        return BufferBase.own(this, buffer, DjlBuffer.class, role);
    }

    @Override
    public void upload(float[] src, int srcOffset, Buffer dst) {
        DjlBuffer d = own(dst, "the upload target");
        try (NDManager scope = scope()) {
            d.write(scope.create(FloatBuffer.wrap(src, srcOffset, d.length()), new Shape(d.length())));
        }
        stats.uploaded((long) d.length() * Float.BYTES);
    }

    @Override
    public void download(Buffer src, float[] dst, int dstOffset) {
        DjlBuffer s = own(src, "the download source");
        try (NDManager scope = scope()) {
            float[] values = s.read(scope).toFloatArray();
            System.arraycopy(values, 0, dst, dstOffset, values.length);
        }
        stats.downloaded((long) s.length() * Float.BYTES);
    }

    @Override
    public void copyFromPeer(Buffer src, Buffer dst) {
        DjlBuffer d = own(dst, "the copy target");
        BufferBase.checkSameLength(src, dst);
        try (NDManager scope = scope()) {
            if (src instanceof DjlBuffer s) {
                d.write(s.read(scope).toDevice(djl, true)); // GPU to GPU without the host
            } else {
                d.write(scope.create(src.device().download(src), new Shape(d.length())));
            }
        }
        stats.copiedFromPeer((long) d.length() * Float.BYTES);
    }

    @Override
    public Kernels kernels() {
        return kernels;
    }

    @Override
    public void synchronize() {
        // DJL's operations return once libtorch has queued them; a download waits for them, so reading one
        // element is the portable way to wait for the device
        try (NDManager scope = scope()) {
            scope.zeros(new Shape(1)).toFloatArray();
        }
    }

    @Override
    public DeviceStats stats() {
        return stats.snapshot();
    }

    @Override
    public void resetPeakMemory() {
        stats.resetPeak();
    }

    @Override
    public void close() {
        manager.close();
    }

    @Override
    public String toString() {
        return id().toString();
    }
}
