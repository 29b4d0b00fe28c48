package org.multigpulab.lessons.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks, in a lesson's printed output, that every comparison a {@link Claim} printed agrees with its own numbers:
 * "a vs b, |Δ| d < t" has d = |a − b| and the sign d against t; "v < t", "v ≥ t", "v > t" or "v ≤ t" is true of v and t; "x / y = r >
 * f" has r = x / y, rounded. At least one claim must be present.
 */
final class ClaimLines {

    private static final String NUMBER = "(-?[0-9.]+(?:e[-+]?\\d+)?)";
    private static final Pattern SAME =
            Pattern.compile(NUMBER + " vs " + NUMBER + ", \\|Δ\\| " + NUMBER + " ([<≥]) " + NUMBER);
    private static final Pattern RATIO =
            Pattern.compile(NUMBER + " / " + NUMBER + " = " + NUMBER + " ([>≤]) " + NUMBER);
    private static final Pattern BELOW = Pattern.compile("(?<![|/=] )" + NUMBER + " ([<≥]) " + NUMBER);
    private static final Pattern ABOVE = Pattern.compile("(?<![|/=] )" + NUMBER + " ([>≤]) " + NUMBER);

    private ClaimLines() {}

    /** Asserts every claim in {@code output} agrees with its numbers; returns how many there were. */
    static int assertAgree(String output) {
        int claims = 0;
        for (String line : output.lines().toList()) {
            Matcher same = SAME.matcher(line);
            while (same.find()) {
                double a = num(same, 1), b = num(same, 2), d = num(same, 3), t = num(same, 5);
                assertEquals(Math.abs(a - b), d, 1e-9 + Math.ulp(d) * 4, "|Δ| in: " + line);
                assertEquals(d < t, same.group(4).equals("<"), "comparison in: " + line);
                claims++;
            }
            Matcher ratio = RATIO.matcher(line);
            while (ratio.find()) {
                double x = num(ratio, 1), y = num(ratio, 2), r = num(ratio, 3), f = num(ratio, 5);
                assertEquals(x / y, r, Math.abs(x / y) * 0.06 + 0.006, "ratio in: " + line);
                assertEquals(r > f, ratio.group(4).equals(">"), "comparison in: " + line);
                claims++;
            }
            if (!SAME.matcher(line).find() && !RATIO.matcher(line).find()) {
                Matcher below = BELOW.matcher(line);
                while (below.find()) {
                    double v = num(below, 1), t = num(below, 3);
                    assertEquals(v < t, below.group(2).equals("<"), "comparison in: " + line);
                    claims++;
                }
                Matcher above = ABOVE.matcher(line);
                while (above.find()) {
                    double v = num(above, 1), t = num(above, 3);
                    assertEquals(v > t, above.group(2).equals(">"), "comparison in: " + line);
                    claims++;
                }
            }
        }
        assertTrue(claims > 0, "no claim with its numbers in:\n" + output);
        return claims;
    }

    private static double num(Matcher m, int group) {
        return Double.parseDouble(m.group(group));
    }
}
