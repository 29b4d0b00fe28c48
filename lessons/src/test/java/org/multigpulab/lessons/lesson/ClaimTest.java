package org.multigpulab.lessons.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Each kind of claim, with measurements that make it true and false, and the printed numbers checked. */
class ClaimTest {

    /** Two accuracies at chance are not compared; once one run has learned, they are. */
    @Test
    void accuraciesAtChanceAreNotCompared() {
        Claim c = Claim.notLearned("test accuracy at k=1 and k=4", 0.105, 0.098).orElseThrow();
        assertFalse(c.holds());
        assertEquals(
                "test accuracy at k=1 and k=4 not compared: 0.105 and 0.098 are both under 0.2, where a model that has"
                        + " not yet left its initial plateau sits (chance is 0.1); train longer, with more"
                        + " --train-samples or --epochs.",
                c.text());
        assertFalse(c.text().matches(".*[<>≤≥].*"), "no comparison for the lessons' claim checks to read");
        assertTrue(Claim.notLearned("test accuracy", 0.105, 0.41).isEmpty());
    }

    @Test
    void sameHoldsWithinTheToleranceAndSaysDifferentBeyondIt() {
        Claim same = Claim.same("test accuracy", 0.803, 0.801, 0.01, 3);
        assertTrue(same.holds());
        assertEquals("same test accuracy: 0.803 vs 0.801, |Δ| 0.002 < 0.01", same.text());
        Claim different = Claim.same("test accuracy", 0.803, 0.701, 0.01, 3);
        assertFalse(different.holds());
        assertEquals("different test accuracy: 0.803 vs 0.701, |Δ| 0.102 ≥ 0.01", different.text());
        ClaimLines.assertAgree(same.notice() + "\n" + different.notice());
    }

    @Test
    void theVerdictFollowsThePrintedRoundedNumbers() {
        // 0.0104 rounds to 0.010, which is not below 0.01: the printed line and the verdict agree
        Claim edge = Claim.same("accuracy", 0.5104, 0.5000, 0.01, 3);
        assertFalse(edge.holds(), edge.text());
        ClaimLines.assertAgree(edge.notice());
    }

    @Test
    void belowComparesAValueWithItsBound() {
        Claim small = Claim.below("update distance", 3.14e-7, 1e-5);
        assertTrue(small.holds());
        assertEquals("update distance 3.1e-07 < 1.0e-05", small.text());
        Claim large = Claim.below("update distance", 0.2, 1e-5);
        assertFalse(large.holds());
        assertEquals("update distance 0.2 ≥ 1.0e-05", large.text());
        assertFalse(Claim.below("distance", Double.NaN, 1).holds());
        ClaimLines.assertAgree(small.notice() + "\n" + large.notice());
    }

    @Test
    void aboveComparesAValueWithItsBound() {
        Claim drift = Claim.above("replica drift", 0.123, 1e-3);
        assertTrue(drift.holds());
        assertEquals("replica drift 0.12 > 0.001", drift.text());
        Claim none = Claim.above("replica drift", 0, 1e-3);
        assertFalse(none.holds());
        assertEquals("replica drift 0 ≤ 0.001", none.text());
        ClaimLines.assertAgree(drift.notice() + "\n" + none.notice());
        org.junit.jupiter.api.Assertions.assertThrows(
                AssertionError.class, () -> ClaimLines.assertAgree("Notice: drift 0.0001 > 0.001"));
    }

    @Test
    void ratioAboveComparesTheRatioWithTheFactor() {
        Claim faster = Claim.ratioAbove("speed-up", 3.0, 1.0, 1.5);
        assertTrue(faster.holds());
        assertEquals("speed-up: 3 / 1 = 3.00 > 1.5", faster.text());
        Claim slower = Claim.ratioAbove("speed-up", 1.2, 1.0, 1.5);
        assertFalse(slower.holds());
        ClaimLines.assertAgree(faster.notice() + "\n" + slower.notice());
    }

    @Test
    void andAddsTheConclusionThatFollows() {
        assertTrue(Claim.below("d", 1e-7, 1e-5).and(": same", ": not").text().endsWith(": same"));
        assertTrue(Claim.below("d", 1, 1e-5).and(": same", ": not").text().endsWith(": not"));
    }

    @Test
    void aLineThatContradictsItsNumbersIsCaught() {
        org.junit.jupiter.api.Assertions.assertThrows(
                AssertionError.class,
                () -> ClaimLines.assertAgree("Notice: same accuracy: 0.8 vs 0.7, |Δ| 0.1 < 0.01"));
        org.junit.jupiter.api.Assertions.assertThrows(
                AssertionError.class, () -> ClaimLines.assertAgree("Notice: distance 0.3 < 0.01"));
    }
}
