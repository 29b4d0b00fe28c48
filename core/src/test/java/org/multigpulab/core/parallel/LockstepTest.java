package org.multigpulab.core.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The passes of a {@link Lockstep} run one at a time, in device order between the points where they meet. */
class LockstepTest {

    @Test
    void passesRunInDeviceOrderAndMeetWhereTheyArrive() {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (Lockstep lockstep = new Lockstep(3)) {
            for (int run = 0; run < 2; run++) { // the threads are kept from run to run
                log.clear();
                lockstep.run(Collections.nCopies(3, i -> {
                    log.add("a" + i);
                    lockstep.arrive(i, () -> log.add("met"));
                    log.add("b" + i);
                    lockstep.yieldTurn(i);
                    log.add("c" + i);
                }));
                assertEquals(List.of("a0", "a1", "a2", "met", "b0", "b1", "b2", "c0", "c1", "c2"), log);
            }
        }
    }

    @Test
    void aFailingPassEndsTheRunWithItsFailure() {
        try (Lockstep lockstep = new Lockstep(2)) {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> lockstep.run(List.of(i -> lockstep.arrive(i, () -> {}), i -> {
                        throw new IllegalStateException("device 1 broke");
                    })));
            assertEquals("device 1 broke", e.getMessage());
        }
    }

    @Test
    void passesThatMeetAtDifferentPointsAreNamed() {
        try (Lockstep lockstep = new Lockstep(2)) {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> lockstep.run(List.of(i -> lockstep.arrive(i, () -> {}), i -> {})));
            assertTrue(e.getMessage().contains("the passes differ"), e.getMessage());
        }
    }
}
