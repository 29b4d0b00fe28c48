package org.multigpulab.dist.mpi;

import java.util.Arrays;
import org.multigpulab.core.dist.ProcessGroup;

/**
 * Run by {@link OpenMpiTest} under {@code mpirun}: every collective once, each rank checking what it got, and
 * one line per rank on standard output. Exits 1 with the reason when a value is wrong.
 */
public final class MpiSmoke {

    public static void main(String[] args) {
        ProcessGroup group = ProcessGroup.join("mpi");
        int rank = group.rank(), size = group.size();
        float[] values = new float[1001];
        Arrays.fill(values, rank + 1);
        group.allReduce(values, 1, 999); // leaves the first and the last element alone
        float total = size * (size + 1) / 2f;
        check(values[0] == rank + 1 && values[1000] == rank + 1, "allReduce touched elements outside its range");
        check(values[1] == total && values[999] == total, "allReduce gave " + values[1] + ", not " + total);
        double[] counts = {rank, 0.5};
        group.allReduce(counts);
        check(
                counts[0] == size * (size - 1) / 2.0 && counts[1] == 0.5 * size,
                "double allReduce gave " + Arrays.toString(counts));
        float[] shared = {rank * 10f, rank * 10f + 1};
        group.broadcast(shared, 0);
        check(shared[0] == 0f && shared[1] == 1f, "broadcast gave " + Arrays.toString(shared));
        System.out.println("rank " + rank + " of " + size + " ok: " + group.description());
        group.close();
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.out.println("wrong: " + what);
            System.exit(1);
        }
    }
}
