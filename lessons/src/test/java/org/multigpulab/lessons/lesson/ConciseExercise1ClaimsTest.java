package org.multigpulab.lessons.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** concise-exercise-1's wall-time conclusion is drawn only from epochs that did not pay for the JIT. */
class ConciseExercise1ClaimsTest {

    private static List<ScaledBatchRuns.Row> rows(int epochs, double secAtOne, double secAtFour) {
        return List.of(
                new ScaledBatchRuns.Row(1, 256, 0.2f, epochs, 235, 0.70, secAtOne),
                new ScaledBatchRuns.Row(2, 512, 0.4f, epochs, 118, 0.70, secAtOne),
                new ScaledBatchRuns.Row(4, 1024, 0.8f, epochs, 59, 0.70, secAtFour));
    }

    @Test
    void oneEpochARunComparesNoWallTime() {
        Claim wall = ConciseExercise1Lesson.claims(rows(1, 26.8, 1.0), 1000).getLast();
        assertFalse(wall.holds());
        assertTrue(wall.text().startsWith("wall time not compared: each run had one epoch"), wall.text());
    }

    @Test
    void laterEpochsDecideTheSpeedUp() {
        List<Claim> claims = ConciseExercise1Lesson.claims(rows(2, 9.0, 9.3), 1000);
        assertFalse(claims.getLast().holds(), claims.getLast().text());
        assertTrue(
                claims.getLast().text().contains("they run one after another"),
                claims.getLast().text());
        assertEquals(
                2, ClaimLines.assertAgree(claims.stream().map(Claim::notice).reduce("", (a, b) -> a + b + "\n")));
        assertTrue(ConciseExercise1Lesson.claims(rows(2, 12.0, 4.0), 1000)
                .getLast()
                .holds());
    }
}
