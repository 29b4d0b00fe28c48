package org.multigpulab.backend.djl;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Which malloc libtorch runs on. Its processor kernels allocate and free native memory in every call, and with
 * glibc's malloc an epoch took 5× as long as with tcmalloc on an AMD Zen 5 machine (docs/ARCHITECTURE.md, "The djl
 * backend").
 * {@code ./lab} preloads tcmalloc where it is installed; a run without it is told once how to get it.
 */
final class Allocator {

    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private Allocator() {}

    /** Whether tcmalloc is preloaded into this process. */
    static boolean tcmalloc() {
        String preload = System.getenv("LD_PRELOAD");
        return preload != null && preload.contains("libtcmalloc");
    }

    /** Says once per process, on standard error, that libtorch runs on glibc's malloc and what to do about it. */
    static void warnIfGlibc() {
        if (!tcmalloc() && WARNED.compareAndSet(false, true)) {
            System.err.println("note: libtorch runs on glibc's malloc here, which made its epochs up to 5× slower on"
                    + " some processors; install tcmalloc (sudo apt-get install libtcmalloc-minimal4) and ./lab"
                    + " preloads it");
        }
    }
}
