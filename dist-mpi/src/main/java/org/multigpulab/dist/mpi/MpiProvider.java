package org.multigpulab.dist.mpi;

import java.util.List;
import org.multigpulab.core.dist.ProcessGroup;

/**
 * {@code --dist mpi}: the group that {@code mpirun} (or {@code srun --mpi=pmix}) started this process in. A
 * process started without a launcher trains alone, as one rank, and says so.
 */
public final class MpiProvider implements ProcessGroup.Provider {

    /** Variables that Open MPI's and PMIx's launchers set in every process they start. */
    private static final List<String> LAUNCHED = List.of("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK");

    @Override
    public String name() {
        return "mpi";
    }

    @Override
    public ProcessGroup join() {
        if (LAUNCHED.stream().noneMatch(v -> System.getenv(v) != null)) {
            System.err.println("note: --dist mpi without mpirun or srun: training as one process");
            return ProcessGroup.SINGLE;
        }
        return new MpiProcessGroup(OpenMpi.load());
    }
}
