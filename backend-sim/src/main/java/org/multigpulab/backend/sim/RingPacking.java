package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The most rings at one speed that fit in what is left of a mesh's links, each ring through every GPU once and
 * back to the first, each link's directions apart. Like NCCL's search ({@code ncclTopoSearchRec}, NCCL 2.21.5) it
 * backtracks over whole sets of rings, stops as soon as it reaches the bound no GPU's links can exceed, and gives
 * up after a fixed amount of work (NCCL's search has a timeout too), keeping the most it found.
 */
final class RingPacking {

    /** Rings tried before the search settles for the best it has. */
    private static final int BUDGET = 20_000;

    private final double[][] left;
    private final double speed;
    private int tried;

    RingPacking(double[][] left, double speed) {
        this.left = left;
        this.speed = speed;
    }

    /** The most rings, at most {@code limit}. */
    int most(int limit) {
        int bound = limit;
        for (double[] row : left) {
            bound = Math.min(bound, (int) Math.floor(Arrays.stream(row).sum() / speed + 1e-9));
        }
        int most = 0;
        for (int[] ring : bound <= 0 ? List.<int[]>of() : rings()) {
            if (++tried > BUDGET) {
                break;
            }
            take(ring, speed);
            most = Math.max(most, 1 + most(bound - 1));
            take(ring, -speed);
            if (most == bound) {
                break;
            }
        }
        return most;
    }

    private void take(int[] ring, double amount) {
        for (int k = 0; k < ring.length; k++) {
            left[ring[k]][ring[(k + 1) % ring.length]] -= amount;
        }
    }

    /** Every ring from GPU 0 through all GPUs and back with the speed left on each link it takes. */
    private List<int[]> rings() {
        List<int[]> found = new ArrayList<>();
        extend(new int[left.length], 1, 1, found);
        return found;
    }

    private void extend(int[] ring, int length, int used, List<int[]> found) {
        int n = left.length;
        int last = ring[length - 1];
        if (length == n) {
            if (n == 1 || left[last][0] >= speed - 1e-9) {
                found.add(ring.clone());
            }
            return;
        }
        for (int next = 1; next < n; next++) {
            if ((used & (1 << next)) == 0 && left[last][next] >= speed - 1e-9) {
                ring[length] = next;
                extend(ring, length + 1, used | (1 << next), found);
            }
        }
    }
}
