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
        // parts of uneven lengths, starting past the array's start, as ZeRO's chunks are
        int[] parts = new int[size + 1];
        parts[0] = 3;
        for (int r = 0; r < size; r++) {
            parts[r + 1] = parts[r] + 5 + r;
        }
        float[] scattered = new float[parts[size] + 2];
        for (int i = 0; i < scattered.length; i++) {
            scattered[i] = i * (rank + 1);
        }
        group.reduceScatter(scattered, parts);
        for (int i = parts[rank]; i < parts[rank + 1]; i++) {
            check(scattered[i] == i * total, "reduceScatter gave " + scattered[i] + " at " + i + ", not " + i * total);
        }
        check(scattered[0] == 0 && scattered[1] == rank + 1, "reduceScatter touched elements before its parts");
        float[] gathered = new float[parts[size] + 2];
        Arrays.fill(gathered, -1);
        for (int i = parts[rank]; i < parts[rank + 1]; i++) {
            gathered[i] = rank * 100 + i;
        }
        group.allGather(gathered, parts);
        for (int r = 0; r < size; r++) {
            for (int i = parts[r]; i < parts[r + 1]; i++) {
                check(gathered[i] == r * 100 + i, "allGather gave " + gathered[i] + " at " + i);
            }
        }
        check(gathered[0] == -1 && gathered[gathered.length - 1] == -1, "allGather touched elements outside its parts");
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
