package org.multigpulab.backend.opencl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the JVM still handles the signals it runs on. HotSpot takes SIGSEGV for its safepoints and null checks;
 * PoCL's compiler, LLVM, installs crash handlers for the same signals when it builds a program, and a second
 * thread that faults while LLVM's one-shot handler is running kills the process ("Segmentation fault", no
 * {@code hs_err} file). The JDK's remedy is its signal-chaining library, {@code libjsig.so}, preloaded: it keeps
 * the JVM's handlers installed and calls LLVM's only for faults that are not the JVM's. {@code ./lab} and the
 * tests preload it; a run without it is told once.
 *
 * <p>The handlers are read with the {@code rt_sigaction} system call, below {@code libjsig}'s {@code sigaction},
 * which answers a library with the handler it asked for rather than the one installed.
 */
final class JvmSignals {

    /**
     * The faults HotSpot takes in every run (SIGSEGV for safepoints and null checks, SIGFPE for a division by zero)
     * that LLVM and PoCL also claim, by name and number (x86-64). LLVM claims SIGUSR2 too, which the JVM sends
     * only to suspend threads for a profiler (JFR's sampler): {@code libjsig} leaves that one to LLVM.
     */
    static final Map<String, Integer> FAULTS = Map.of("SIGILL", 4, "SIGBUS", 7, "SIGFPE", 8, "SIGSEGV", 11);

    private static final long SYS_RT_SIGACTION = 13;
    /** The kernel's {@code struct sigaction}: handler, flags, restorer, mask (8 bytes each); handler first. */
    private static final long KERNEL_SIGACTION_BYTES = 32;
    /** {@code Dl_info}: the shared object's path first. */
    private static final long DL_INFO_BYTES = 32;

    /** Where the numbers above, the system call's and the structures' hold. */
    private static final boolean LINUX_X86_64 = System.getProperty("os.name").equals("Linux")
            && System.getProperty("os.arch").equals("amd64");

    /** The C library's functions, looked up on first use. */
    private static final class Libc {
        private static final Linker LINKER = Linker.nativeLinker();
        /** glibc's {@code syscall(number, ...)}, which reads every argument as a long. */
        static final MethodHandle SYSCALL = LINKER.downcallHandle(
                LINKER.defaultLookup().findOrThrow("syscall"),
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG),
                Linker.Option.firstVariadicArg(1));

        static final MethodHandle DLADDR = LINKER.downcallHandle(
                LINKER.defaultLookup().findOrThrow("dladdr"), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private JvmSignals() {}

    /**
     * The shared object whose code handles {@code signal} now ("libjvm.so"), or how it is handled otherwise; on
     * Linux on x86-64 only.
     */
    static String handlerOf(int signal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment action = arena.allocate(KERNEL_SIGACTION_BYTES);
            long rc = (long) Libc.SYSCALL.invokeExact(SYS_RT_SIGACTION, (long) signal, MemorySegment.NULL, action, 8L);
            if (rc != 0) {
                throw new IllegalStateException("rt_sigaction(" + signal + ") failed");
            }
            long handler = action.get(JAVA_LONG, 0);
            if (handler == 0 || handler == 1) {
                return handler == 0 ? "default" : "ignored";
            }
            MemorySegment info = arena.allocate(DL_INFO_BYTES);
            if ((int) Libc.DLADDR.invokeExact(MemorySegment.ofAddress(handler), info) == 0) {
                return "unknown code at 0x" + Long.toHexString(handler);
            }
            String path = info.get(ADDRESS, 0).reinterpret(4096).getString(0);
            return path.substring(path.lastIndexOf('/') + 1);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot read the handler of signal " + signal + ": " + e, e);
        }
    }

    /** The signals of {@link #FAULTS} that another library's handler has taken from the JVM, with that library. */
    static List<String> takenFromTheJvm() {
        List<String> taken = new ArrayList<>();
        FAULTS.forEach((name, number) -> {
            String handler = handlerOf(number);
            if (!handler.equals("libjvm.so")) {
                taken.add(name + " (" + handler + ")");
            }
        });
        return taken.stream().sorted().toList();
    }

    /** Says once per process, on standard error, when a library has taken the JVM's signals and what to do. */
    static void warnIfTaken() {
        if (!LINUX_X86_64 || WARNED.get()) {
            return;
        }
        List<String> taken;
        try {
            taken = takenFromTheJvm();
        } catch (IllegalStateException e) {
            return; // a check that cannot be made must not stop the run it guards
        }
        if (!taken.isEmpty() && WARNED.compareAndSet(false, true)) {
            System.err.println("warning: the OpenCL driver's compiler took the JVM's signal handlers "
                    + String.join(", ", taken) + ", and the JVM may crash at any moment; run through ./lab, or"
                    + " start java with LD_PRELOAD=$JAVA_HOME/lib/libjsig.so");
        }
    }
}
