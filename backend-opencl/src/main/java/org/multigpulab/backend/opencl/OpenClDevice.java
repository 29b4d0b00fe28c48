package org.multigpulab.backend.opencl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.BufferBase;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.DeviceInfo;
import org.multigpulab.device.DeviceStats;
import org.multigpulab.device.InstrumentedKernels;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.StatsCounter;

/**
 * One OpenCL device with its own context, an in-order command queue and our kernel program built for it.
 * Kernels are enqueued and run asynchronously; uploads and downloads block. Closing releases every OpenCL
 * object it made, buffers included. Driven by one thread at a time.
 */
final class OpenClDevice implements Device {

    /** The work-items of a work-group in the kernels that add partial sums in local memory (reduce.cl). */
    static final int GROUP = 256;

    /** The OpenCL C sources, one file per family of kernels, built into one program. */
    private static final List<String> SOURCES =
            List.of("reduce.cl", "conv.cl", "pool.cl", "elementwise.cl", "gemm.cl", "loss.cl", "batchnorm.cl");

    private final DeviceInfo info;
    private final Arena arena = Arena.ofShared();
    private final StatsCounter stats = new StatsCounter();
    private final DeviceTimes times = new DeviceTimes(stats, arena);
    private final MemorySegment context;
    private final MemorySegment queue;
    private final MemorySegment program;
    /**
     * The kernels by name, made at their first launch: one per op that has one, named as the op
     * ({@link KernelOp#kernelName()}), and each of {@link OpenClKernels#SUMMED_BY_GROUPS} again, {@code _by_groups}.
     */
    private final Map<String, MemorySegment> kernelHandles = new HashMap<>();

    private final Set<OpenClBuffer> live = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Kernels kernels;
    private final boolean sumsByGroups;
    /** Scratch for kernel arguments and sizes: OpenCL copies them at the call, so one is enough. */
    private final MemorySegment argValue = arena.allocate(8);

    private final MemorySegment globalSize = arena.allocate(JAVA_LONG);
    private final MemorySegment localSize = arena.allocate(JAVA_LONG);
    private final MemorySegment launchEvent = arena.allocate(ADDRESS);
    private final MemorySegment zero = arena.allocate(JAVA_FLOAT);
    private MemorySegment staging = MemorySegment.NULL;
    private boolean closed;

    /** The device {@code found}, which sums by work-groups where it is a GPU. */
    OpenClDevice(DeviceId id, Discovery.Found found) {
        this(id, found, found.gpu());
    }

    /**
     * With {@code sumsByGroups}, the ops of {@link OpenClKernels#SUMMED_BY_GROUPS} take their {@code _by_groups}
     * kernels: a GPU's choice (one work-item per output leaves a GPU's many cores all but idle), where PoCL on the
     * processor takes longer with them (docs/performance-log.md, "OpenCL's sums by work-groups on the processor").
     * The conformance kit takes them on the processor too.
     */
    OpenClDevice(DeviceId id, Discovery.Found found, boolean sumsByGroups) {
        this.sumsByGroups = sumsByGroups;
        this.info = info(id, found);
        MemorySegment devices = arena.allocate(ADDRESS);
        devices.set(ADDRESS, 0, found.device());
        context = OpenCl.create(
                "clCreateContext",
                OpenCl.clCreateContext,
                arena,
                MemorySegment.NULL,
                1,
                devices,
                MemorySegment.NULL,
                MemorySegment.NULL);
        queue = OpenCl.create(
                "clCreateCommandQueue",
                OpenCl.clCreateCommandQueue,
                arena,
                context,
                found.device(),
                OpenCl.CL_QUEUE_PROFILING_ENABLE);
        program = build(found.device());
        kernels = new InstrumentedKernels(this, new OpenClKernels(this), times);
    }

    static DeviceInfo info(DeviceId id, Discovery.Found found) {
        return new DeviceInfo(
                id,
                found.name() + " (" + found.platformName() + ", " + found.computeUnits() + " compute units"
                        + (found.gpu() ? ", GPU" : "") + ")",
                found.memoryBytes());
    }

    private static String source() {
        StringBuilder text = new StringBuilder();
        for (String file : SOURCES) {
            try (InputStream in = OpenClDevice.class.getResourceAsStream("kernels/" + file)) {
                if (in == null) {
                    throw new IllegalStateException("kernel source " + file + " is missing from the jar");
                }
                text.append(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                        .append('\n');
            } catch (IOException e) {
                throw new IllegalStateException("cannot read kernel source " + file, e);
            }
        }
        return text.toString();
    }

    private MemorySegment build(MemorySegment device) {
        MemorySegment sources = arena.allocate(ADDRESS);
        sources.set(ADDRESS, 0, arena.allocateFrom(source()));
        MemorySegment built = OpenCl.create(
                "clCreateProgramWithSource",
                OpenCl.clCreateProgramWithSource,
                arena,
                context,
                1,
                sources,
                MemorySegment.NULL);
        MemorySegment devices = arena.allocate(ADDRESS);
        devices.set(ADDRESS, 0, device);
        try {
            OpenCl.call(
                    "clBuildProgram",
                    OpenCl.clBuildProgram,
                    built,
                    1,
                    devices,
                    arena.allocateFrom("-DGROUP=" + GROUP),
                    MemorySegment.NULL,
                    MemorySegment.NULL);
        } catch (OpenClException e) {
            throw new OpenClException(e.getMessage() + "; the compiler said:\n" + buildLog(built, device), e);
        } finally {
            JvmSignals.warnIfTaken();
        }
        return built;
    }

    private MemorySegment kernel(String name) {
        try {
            return OpenCl.create("clCreateKernel", OpenCl.clCreateKernel, arena, program, arena.allocateFrom(name));
        } catch (OpenClException e) {
            throw new OpenClException(
                    e.getMessage() + ": every op that OpenClKernels launches as a kernel of its own, and again each of"
                            + " OpenClKernels.SUMMED_BY_GROUPS by groups, needs a __kernel void " + name
                            + "(…) in one of " + SOURCES,
                    e);
        }
    }

    private String buildLog(MemorySegment built, MemorySegment device) {
        try (Arena temp = Arena.ofConfined()) {
            MemorySegment size = temp.allocate(JAVA_LONG);
            OpenCl.call(
                    "clGetProgramBuildInfo",
                    OpenCl.clGetProgramBuildInfo,
                    built,
                    device,
                    OpenCl.CL_PROGRAM_BUILD_LOG,
                    0L,
                    MemorySegment.NULL,
                    size);
            MemorySegment log = temp.allocate(size.get(JAVA_LONG, 0) + 1);
            OpenCl.call(
                    "clGetProgramBuildInfo",
                    OpenCl.clGetProgramBuildInfo,
                    built,
                    device,
                    OpenCl.CL_PROGRAM_BUILD_LOG,
                    size.get(JAVA_LONG, 0),
                    log,
                    MemorySegment.NULL);
            return log.getString(0);
        }
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
        if (length < 0) {
            throw new DeviceException("cannot allocate " + length + " floats on " + id());
        }
        long bytes = (long) Math.max(length, 1) * Float.BYTES; // OpenCL has no empty buffers
        MemorySegment mem = OpenCl.create(
                "clCreateBuffer",
                OpenCl.clCreateBuffer,
                arena,
                context,
                OpenCl.CL_MEM_READ_WRITE,
                bytes,
                MemorySegment.NULL);
        OpenCl.call(
                "clEnqueueFillBuffer",
                OpenCl.clEnqueueFillBuffer,
                queue,
                mem,
                zero,
                (long) Float.BYTES,
                0L,
                bytes,
                0,
                MemorySegment.NULL,
                MemorySegment.NULL);
        stats.allocated((long) length * Float.BYTES);
        OpenClBuffer buffer = new OpenClBuffer(this, mem, 0, length, true);
        live.add(buffer);
        return buffer;
    }

    void free(OpenClBuffer buffer) {
        live.remove(buffer);
        OpenCl.release(OpenCl.clReleaseMemObject, buffer.mem);
        stats.freed((long) buffer.length() * Float.BYTES);
    }

    private OpenClBuffer own(Buffer buffer, String role) {
        return BufferBase.own(this, buffer, OpenClBuffer.class, role);
    }

    private MemorySegment staging(long bytes) {
        if (staging.byteSize() < bytes) {
            staging = arena.allocate(Math.max(bytes, 2 * staging.byteSize()), 64);
        }
        return staging;
    }

    @Override
    public void upload(float[] src, int srcOffset, Buffer dst) {
        OpenClBuffer d = own(dst, "the upload target");
        write(src, srcOffset, d);
        stats.uploaded((long) d.length() * Float.BYTES);
    }

    /** A blocking write of {@code d.length()} floats from the host. */
    private void write(float[] src, int srcOffset, OpenClBuffer d) {
        long bytes = (long) d.length() * Float.BYTES;
        if (bytes == 0) {
            return;
        }
        MemorySegment host = staging(bytes);
        MemorySegment.copy(src, srcOffset, host, JAVA_FLOAT, 0, d.length());
        OpenCl.call(
                "clEnqueueWriteBuffer",
                OpenCl.clEnqueueWriteBuffer,
                queue,
                d.mem,
                1,
                (long) d.offset * Float.BYTES,
                bytes,
                host,
                0,
                MemorySegment.NULL,
                MemorySegment.NULL);
    }

    @Override
    public void download(Buffer src, float[] dst, int dstOffset) {
        OpenClBuffer s = own(src, "the download source");
        long bytes = (long) s.length() * Float.BYTES;
        if (bytes == 0) {
            return;
        }
        MemorySegment host = staging(bytes);
        OpenCl.call(
                "clEnqueueReadBuffer",
                OpenCl.clEnqueueReadBuffer,
                queue,
                s.mem,
                1,
                (long) s.offset * Float.BYTES,
                bytes,
                host,
                0,
                MemorySegment.NULL,
                MemorySegment.NULL);
        MemorySegment.copy(host, JAVA_FLOAT, 0, dst, dstOffset, s.length());
        stats.downloaded(bytes);
    }

    @Override
    public void copyFromPeer(Buffer src, Buffer dst) {
        OpenClBuffer d = own(dst, "the copy target");
        BufferBase.checkSameLength(src, d);
        long bytes = (long) d.length() * Float.BYTES;
        if (src instanceof OpenClBuffer s && s.device() == this) {
            if (bytes > 0) {
                OpenCl.call(
                        "clEnqueueCopyBuffer",
                        OpenCl.clEnqueueCopyBuffer,
                        queue,
                        s.mem,
                        d.mem,
                        (long) s.offset * Float.BYTES,
                        (long) d.offset * Float.BYTES,
                        bytes,
                        0,
                        MemorySegment.NULL,
                        MemorySegment.NULL);
            }
        } else {
            // Another context (another OpenCL device, or another backend): through the host.
            write(src.device().download(src), 0, d);
        }
        stats.copiedFromPeer(bytes);
    }

    /**
     * Sets the arguments of the kernel of {@code op} and enqueues it over {@code global} work-items; its event goes
     * to {@link DeviceTimes}, which reads its time on the device once it has run.
     */
    void launch(KernelOp op, long global, Object... args) {
        if (global > 0) {
            enqueueTimed(op.kernelName(), global, 0, args);
        }
    }

    /** As {@link #launch}, the kernel {@code name} over {@code groups} work-groups of {@link #GROUP} work-items. */
    void launchGroups(String name, long groups, Object... args) {
        if (groups > 0) {
            enqueueTimed(name, groups * GROUP, GROUP, args);
        }
    }

    /**
     * As {@link #launch}, over {@code n} work-items in work-groups of {@link #GROUP}, {@code n} added as the kernel's
     * last argument: the work-items of the last group from {@code n} on do nothing. A GPU's driver given no group
     * size may take groups of a few work-items where {@code n} has no larger divisor.
     */
    void launchElements(KernelOp op, int n, Object... args) {
        if (n > 0) {
            Object[] all = Arrays.copyOf(args, args.length + 1);
            all[args.length] = n;
            enqueueTimed(op.kernelName(), ((long) n + GROUP - 1) / GROUP * GROUP, GROUP, all);
        }
    }

    private void enqueueTimed(String name, long global, long local, Object[] args) {
        enqueue(name, global, local, launchEvent, args);
        times.launched(launchEvent.get(ADDRESS, 0));
    }

    /**
     * Runs the kernel of {@code op} once, alone on the queue, and returns its duration on the device in nanoseconds
     * from the event's profiling counters (the queue was made with profiling on).
     */
    long profile(KernelOp op, long global, Object... args) {
        synchronize();
        enqueue(op.kernelName(), global, 0, launchEvent, args);
        MemorySegment event = launchEvent.get(ADDRESS, 0);
        try {
            return times.nanos(event);
        } finally {
            OpenCl.release(OpenCl.clReleaseEvent, event);
        }
    }

    /**
     * Buffers become two arguments, the cl_mem and its element offset; Integers and Floats one each. A
     * {@code local} of 0 leaves the work-group's size to the driver.
     */
    private void enqueue(String name, long global, long local, MemorySegment event, Object[] args) {
        MemorySegment kernel = kernelHandles.computeIfAbsent(name, this::kernel);
        int index = 0;
        try {
            for (Object arg : args) {
                switch (arg) {
                    case OpenClBuffer b -> {
                        argValue.set(ADDRESS, 0, b.mem);
                        setArg(name, kernel, index++, ADDRESS.byteSize());
                        argValue.set(JAVA_INT, 0, b.offset);
                        setArg(name, kernel, index++, Integer.BYTES);
                    }
                    case Integer i -> {
                        argValue.set(JAVA_INT, 0, i);
                        setArg(name, kernel, index++, Integer.BYTES);
                    }
                    case Float f -> {
                        argValue.set(JAVA_FLOAT, 0, f);
                        setArg(name, kernel, index++, Float.BYTES);
                    }
                    default -> throw new IllegalArgumentException("kernel argument of type " + arg.getClass());
                }
            }
            globalSize.set(JAVA_LONG, 0, global);
            localSize.set(JAVA_LONG, 0, local);
            MemorySegment groupSize = local > 0 ? localSize : MemorySegment.NULL;
            int code = (int) OpenCl.clEnqueueNDRangeKernel.invokeExact(
                    queue, kernel, 1, MemorySegment.NULL, globalSize, groupSize, 0, MemorySegment.NULL, event);
            OpenCl.check("clEnqueueNDRangeKernel(" + name + ")", code);
        } catch (OpenClException | IllegalArgumentException e) {
            throw e;
        } catch (Throwable t) {
            throw new OpenClException("launching " + name + " failed: " + t, t);
        }
    }

    private void setArg(String name, MemorySegment kernel, int index, long size) throws Throwable {
        int code = (int) OpenCl.clSetKernelArg.invokeExact(kernel, index, size, argValue);
        OpenCl.check("clSetKernelArg(" + name + ", " + index + ")", code);
    }

    /** Whether the sums over a batch take a work-group per output (see the constructor). */
    boolean sumsByGroups() {
        return sumsByGroups;
    }

    @Override
    public Kernels kernels() {
        return kernels;
    }

    @Override
    public void synchronize() {
        OpenCl.call("clFinish", OpenCl.clFinish, queue);
        times.settleAll();
    }

    /** Waits for the kernels launched so far, whose times on the device are in the stats once they have run. */
    @Override
    public DeviceStats stats() {
        times.settleAll();
        return stats.snapshot();
    }

    @Override
    public void resetPeakMemory() {
        stats.resetPeak();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        synchronize();
        List.copyOf(live).forEach(OpenClBuffer::close);
        kernelHandles.values().forEach(k -> OpenCl.release(OpenCl.clReleaseKernel, k));
        OpenCl.release(OpenCl.clReleaseProgram, program);
        OpenCl.release(OpenCl.clReleaseCommandQueue, queue);
        OpenCl.release(OpenCl.clReleaseContext, context);
        arena.close();
    }

    @Override
    public String toString() {
        return id().toString();
    }
}
