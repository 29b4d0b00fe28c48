package org.multigpulab.backend.sim;

import java.util.List;
import java.util.Locale;
import org.multigpulab.device.DeviceException;

/**
 * The processor that runs the notebook's host side (its Python and its DataLoader's workers): a name, its vCPUs
 * (the processors its system schedules on), and its single-thread speed on PassMark's single-thread scale.
 * {@link HostModel}'s figures were measured on {@link #MEASURED}; on another processor each takes the ratio of the
 * two ratings, as one thread's Python and PIL run as fast as the processor runs one thread.
 *
 * <p>None of these exact parts is on PassMark's list, so each rating is a listed part's of the same family scaled by
 * the clock it runs at and by the core's gain per clock over that part's ({@link #rated}): PassMark's single-thread
 * ratings, as listed in https://gist.github.com/karussell/ee76723bdc75c3da388dfc9a54e932d4, of the EPYC 9454P
 * (Zen 4, 3.8 GHz boost) 2,979 and the Xeon E5-1650 v3 (Haswell, 3.8 GHz turbo) 2,123.
 */
record HostCpu(String name, String displayName, double singleThreadRating, int cores) {

    static final String OPTION = "host-cpu";

    /** PassMark's single-thread rating of the EPYC 9454P (Zen 4) and the Xeon E5-1650 v3 (Haswell). */
    private static final double ZEN4_EPYC_9454P = 2979, HASWELL_E5_1650V3 = 2123;
    /** The clock both run PassMark's single-thread test at: their boost, 3.8 GHz (AMD's and Intel's data sheets). */
    private static final double LISTED_GHZ = 3.8;
    /** Zen 5's instructions per clock over Zen 4's: +16 % (AMD, Computex 2024, the Zen 5 architecture's launch). */
    private static final double ZEN5_OVER_ZEN4 = 1.16;
    /** Broadwell's instructions per clock over Haswell's: about +5 % (Intel, IDF 2014, Broadwell's launch). */
    private static final double BROADWELL_OVER_HASWELL = 1.05;

    /**
     * The processor {@code scripts/pytorch-host.py}'s figures come from: this lab's 2-vCPU VM, which /proc/cpuinfo
     * names "AMD EPYC, family 26, model 2" (Zen 5, EPYC 9005 "Turin"; the VM does not name the part). It runs one
     * thread at 3.3–3.5 GHz: {@code scripts/core-clock.c} gave 3.46, 3.38, 3.32, 3.33 and 3.32 (3.21 and 3.28 with a
     * build running beside it).
     */
    static final HostCpu MEASURED =
            rated("lab-zen5", "the lab's 2-vCPU AMD EPYC (Zen 5)", ZEN4_EPYC_9454P, ZEN5_OVER_ZEN4, 3.4, 2);

    /**
     * AWS's p3 instances (V100-SXM2) run the Xeon E5-2686 v4, Broadwell, "with turbo up to 2.7 GHz" on p3
     * (https://aws.amazon.com/ec2/instance-types/p3/); a p3.8xlarge has 32 vCPUs.
     */
    static final HostCpu XEON_E5_2686V4 = rated(
            "xeon-e5-2686v4",
            "Xeon E5-2686 v4 (AWS p3, a guess: the book's builds print no processor)",
            HASWELL_E5_1650V3,
            BROADWELL_OVER_HASWELL,
            2.7,
            32);

    /**
     * Colab's GPU runtime of 2020–2021: 2 vCPUs of an "Intel(R) Xeon(R) CPU @ 2.20GHz", family 6, model 79, GCP's
     * Broadwell platform, 2.8 GHz with all cores busy (https://cloud.google.com/compute/docs/cpu-platforms).
     */
    static final HostCpu COLAB_BROADWELL = rated(
            "colab-broadwell",
            "Colab's Xeon @ 2.20GHz (Broadwell, 2 vCPUs)",
            HASWELL_E5_1650V3,
            BROADWELL_OVER_HASWELL,
            2.8,
            2);

    /**
     * The 16-core Intel Xeon beside the project's first H200 (2026-12-04; the machine did not name the part). Rated
     * by measurement rather than by PassMark: {@code scripts/pytorch-host.py}'s forward, backward and SGD there took
     * 287–299, 767–1,377 and 171–241 µs (two runs; means 293, 1,072, 206) against 375, 1,512 and 165 on
     * {@link #MEASURED} the same day (docs/performance-log.md, "The first GPU"): 1,571 against 2,052 µs.
     */
    static final HostCpu H200_XEON = new HostCpu(
            "h200-xeon",
            "the first H200's 16-core Xeon (2026-12-04)",
            MEASURED.singleThreadRating * (375 + 1512 + 165) / (293 + 1072 + 206.0),
            16);

    private static final List<HostCpu> ALL = List.of(MEASURED, XEON_E5_2686V4, COLAB_BROADWELL, H200_XEON);

    /** A part rated as a listed one ({@code listed}) whose core does {@code perClock} as much a cycle, at {@code ghz}. */
    private static HostCpu rated(
            String name, String displayName, double listed, double perClock, double ghz, int cores) {
        return new HostCpu(name, displayName, listed * perClock * ghz / LISTED_GHZ, cores);
    }

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
