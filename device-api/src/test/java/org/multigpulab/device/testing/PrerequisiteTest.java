package org.multigpulab.device.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The list that ./lab test installs from is the one the skip messages name. */
class PrerequisiteTest {

    @Test
    void readsEachNeedsPackagesFromTheList() {
        assertEquals(Optional.of(List.of("ocl-icd-libopencl1", "pocl-opencl-icd")), Prerequisite.packages("opencl"));
        assertEquals(Optional.of(List.of("openmpi-bin", "libopenmpi-dev")), Prerequisite.packages("open-mpi"));
        assertEquals(Optional.of(List.of("dataset-fashion-mnist")), Prerequisite.packages("fashion-mnist"));
        assertEquals(Optional.empty(), Prerequisite.packages("no-such-need"));
    }
}
