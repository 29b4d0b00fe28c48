package org.multigpulab.backend.sim;

import java.util.List;
import java.util.Locale;
import org.multigpulab.device.DeviceException;

/**
 * The processor that runs the notebook's host side (its Python and its DataLoader's workers): a name, its
 * cores (vCPUs, the processors its system schedules on), and its single-thread speed as PassMark's single-thread rating gives it (cpubenchmark.net, "Single Thread
 * Rating" on each processor's page). {@link HostModel}'s figures were measured on {@link #MEASURED}; on another
 * processor each takes the ratio of the two ratings, as one thread's Python and PIL run no faster or slower than
 * the processor runs one thread.
 */
record HostCpu(String name, String displayName, double singleThreadRating, int cores) {

    static final String OPTION = "host-cpu";

    /**
     * The processor {@code scripts/pytorch-host.py}'s figures come from: this lab's 2-core VM, which /proc/cpuinfo
     * names "AMD EPYC, family 26, model 2" (Zen 5, EPYC 9005 "Turin"; the VM does not name the part). Its rating is
     * PassMark's for the EPYC 9005 parts at a 4.1 GHz boost, such as the EPYC 9555
     * (https://www.cpubenchmark.net/cpu.php?cpu=AMD+EPYC+9555): 3,400.
     */
    static final HostCpu MEASURED = new HostCpu("lab-zen5", "the lab's 2-core AMD EPYC (Zen 5)", 3400, 2);

    /**
     * AWS's p3 instances (V100-SXM2) run the Xeon E5-2686 v4 (Broadwell, 2.3 GHz, 3.0 GHz turbo;
     * https://aws.amazon.com/ec2/instance-types/p3/); PassMark's single-thread rating 1,900
     * (https://www.cpubenchmark.net/cpu.php?cpu=Intel+Xeon+E5-2686+v4+%40+2.30GHz). A p3.8xlarge has 32 vCPUs.
     */
    static final HostCpu XEON_E5_2686V4 = new HostCpu(
            "xeon-e5-2686v4", "Xeon E5-2686 v4 (AWS p3, a guess: the book's builds print no processor)", 1900, 32);

    /**
     * Colab's GPU runtime of 2020–2021: 2 vCPUs of an "Intel(R) Xeon(R) CPU @ 2.20GHz", family 6, model 79, GCP's
     * Broadwell platform (https://cloud.google.com/compute/docs/cpu-platforms: Xeon E5 v4, 2.2 GHz base, 3.7 GHz
     * single-core turbo), the Xeon E5-2699 v4's clocks; PassMark's single-thread rating for it 2,000
     * (https://www.cpubenchmark.net/cpu.php?cpu=Intel+Xeon+E5-2699+v4+%40+2.20GHz).
     */
    static final HostCpu COLAB_BROADWELL =
            new HostCpu("colab-broadwell", "Colab's Xeon @ 2.20GHz (Broadwell, 2 vCPUs)", 2000, 2);

    private static final List<HostCpu> ALL = List.of(MEASURED, XEON_E5_2686V4, COLAB_BROADWELL);

    /** The processor named {@code name}; a message listing the names for any other. */
    static HostCpu named(String name) {
        return ALL.stream()
                .filter(c -> c.name.equals(name.toLowerCase(Locale.ROOT)))
                .findFirst()
                .orElseThrow(() -> new DeviceException(
                        "sim option " + OPTION + " must be one of " + names() + ", not '" + name + "'"));
    }

    static List<String> names() {
        return ALL.stream().map(HostCpu::name).toList();
    }

    /** How many times as long one thread's work takes here as on {@link #MEASURED}. */
    double slowdown() {
        return MEASURED.singleThreadRating / singleThreadRating;
    }
}
