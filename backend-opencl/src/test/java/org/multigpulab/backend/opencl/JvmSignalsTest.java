package org.multigpulab.backend.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;

/**
 * PoCL's compiler claims the JVM's signals when it builds our kernels; with the JDK's {@code libjsig} preloaded (as
 * the build does for the tests and {@code ./lab} for its runs) the JVM keeps them, and without it the check names
 * the library that took them.
 */
class JvmSignalsTest {

    private static final int SIGWINCH = 28;

    @Test
    void theJvmKeepsItsSignalsAfterPoclBuildsTheKernels() {
        OpenClConformanceTest.requireOpenCl();
        Backends.open("opencl", DeviceRequest.of(1)).forEach(Device::close);
        assertEquals(
                List.of(),
                JvmSignals.takenFromTheJvm(),
                "signals no longer the JVM's (LD_PRELOAD=" + System.getenv("LD_PRELOAD") + ")");
    }

    @Test
    void namesTheLibraryWhoseHandlerIsInstalled() throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle signal = linker.downcallHandle(
                linker.defaultLookup().findOrThrow("signal"),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        // a handler in the C library, for a signal no test receives (a terminal's change of size)
        MemorySegment inLibc = linker.defaultLookup().findOrThrow("getpid");
        MemorySegment before = (MemorySegment) signal.invokeExact(SIGWINCH, inLibc);
        try {
            assertEquals("libc.so.6", JvmSignals.handlerOf(SIGWINCH));
        } finally {
            MemorySegment unused = (MemorySegment) signal.invokeExact(SIGWINCH, before);
        }
        assertEquals("default", JvmSignals.handlerOf(SIGWINCH));
        assertEquals("libjvm.so", JvmSignals.handlerOf(11), "SIGSEGV");
    }
}
