package org.multigpulab.backend.opencl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.multigpulab.device.KernelObserver;
import org.multigpulab.device.KernelOp;

/**
 * Each kernel call's time on the device, from OpenCL's profiling counters, told to the device's stats in place of
 * the time the call took on the host. On a GPU the host only enqueues: it runs ahead and waits wherever the driver
 * makes it, so the host's times say where it waited, not where the device worked (a call that frees its temporary
 * buffers waits there for the queue, and would be charged the kernels before it).
 *
 * <p>The device hands over each event its kernels enqueue ({@link #launched}); the gate in front of the kernels
 * then reports the call ({@link #onKernel}), which takes the events launched since the last call. Calls are kept
 * until their events are read: half of them once {@value #SETTLE_AT} wait, all at {@link #settleAll}. The queue
 * runs in order, so waiting for these events holds the host at most that many calls ahead of the device.
 */
final class DeviceTimes implements KernelObserver {

    private static final int SETTLE_AT = 1024;

    private final KernelObserver stats;
    private final List<MemorySegment> launched = new ArrayList<>();
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final MemorySegment eventList;
    private final MemorySegment start;
    private final MemorySegment end;

    private record Pending(KernelOp.Call call, MemorySegment[] events) {}

    DeviceTimes(KernelObserver stats, Arena arena) {
        this.stats = stats;
        this.eventList = arena.allocate(ADDRESS);
        this.start = arena.allocate(JAVA_LONG);
        this.end = arena.allocate(JAVA_LONG);
    }

    /** An event of a kernel that the call being made has enqueued. */
    void launched(MemorySegment event) {
        launched.add(event);
    }

    /** The call whose kernels were launched since the last one: kept until they have run. */
    @Override
    public void onKernel(KernelOp.Call call, long hostNanos) {
        pending.add(new Pending(call, launched.toArray(MemorySegment[]::new)));
        launched.clear();
        if (pending.size() >= SETTLE_AT) {
            settle(SETTLE_AT / 2);
        }
    }

    /** Waits for every kept call's kernels and tells the stats their times. */
    void settleAll() {
        settle(pending.size());
    }

    private void settle(int calls) {
        for (int i = 0; i < calls; i++) {
            Pending p = pending.poll();
            long nanos = 0;
            for (MemorySegment event : p.events()) {
                nanos += nanos(event);
                OpenCl.release(OpenCl.clReleaseEvent, event);
            }
            stats.onKernel(p.call(), nanos);
        }
    }

    /** The event's kernel's time from its start to its end on the device, once it has run; the event is kept. */
    long nanos(MemorySegment event) {
        eventList.set(ADDRESS, 0, event);
        try {
            OpenCl.check("clWaitForEvents", (int) OpenCl.clWaitForEvents.invokeExact(1, eventList));
            OpenCl.check("clGetEventProfilingInfo", (int) OpenCl.clGetEventProfilingInfo.invokeExact(
                    event, OpenCl.CL_PROFILING_COMMAND_START, JAVA_LONG.byteSize(), start, MemorySegment.NULL));
            OpenCl.check("clGetEventProfilingInfo", (int) OpenCl.clGetEventProfilingInfo.invokeExact(
                    event, OpenCl.CL_PROFILING_COMMAND_END, JAVA_LONG.byteSize(), end, MemorySegment.NULL));
        } catch (OpenClException e) {
            throw e;
        } catch (Throwable t) {
            throw new OpenClException("reading a kernel's profiling counters failed: " + t, t);
        }
        return end.get(JAVA_LONG, 0) - start.get(JAVA_LONG, 0);
    }
}
