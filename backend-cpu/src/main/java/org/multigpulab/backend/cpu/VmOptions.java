package org.multigpulab.backend.cpu;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/** The running JVM's -XX options that the kernels adapt to. */
final class VmOptions {

    private VmOptions() {}

    /** The option's value, or null where this JVM has no such option (another processor, another JVM). */
    static String get(String name) {
        try {
            return ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .getVMOption(name)
                    .getValue();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
