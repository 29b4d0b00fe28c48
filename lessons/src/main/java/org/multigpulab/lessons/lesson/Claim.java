package org.multigpulab.lessons.lesson;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;
import java.util.Optional;

/**
 * A conclusion a lesson draws from what it measured: whether it holds, and the sentence that says so with the
 * numbers and the comparison it rests on ({@code same test accuracy: 0.803 vs 0.801, |Δ| 0.002 < 0.01}). When
 * the numbers say otherwise the sentence says otherwise, so a lesson never prints a conclusion its run did not
 * reach. Each factory rounds the printed numbers so that the printed comparison agrees with the verdict.
 */
public record Claim(boolean holds, String text) {

    /** The lesson's closing line. */
    public String notice() {
        return "Notice: " + text;
    }

    /**
     * {@code a} and {@code b} are the same {@code what} within {@code tolerance}: "same what: a vs b, |Δ| d <
     * tolerance", else "different what: a vs b, |Δ| d ≥ tolerance"; numbers printed with {@code digits} decimals.
     */
    public static Claim same(String what, double a, double b, double tolerance, int digits) {
        tolerance = shown(tolerance);
        double delta = Math.abs(round(a, digits) - round(b, digits));
        boolean holds = round(delta, digits) < tolerance;
        return new Claim(
                holds,
                (holds ? "same " : "different ") + what + ": " + fixed(a, digits) + " vs " + fixed(b, digits) + ", |Δ| "
                        + fixed(delta, digits) + (holds ? " < " : " ≥ ") + general(tolerance));
    }

    /**
     * {@code value} (a distance, an error) is below {@code bound}: "what value < bound", else "what value ≥ bound";
     * the value printed with 2 significant digits.
     */
    public static Claim below(String what, double value, double bound) {
        bound = shown(bound);
        boolean holds = shown(value) < bound;
        return new Claim(holds, what + " " + general(value) + (holds ? " < " : " ≥ ") + general(bound));
    }

    /**
     * {@code value} (a drift, a share) exceeds {@code bound}: "what value > bound", else "what value ≤ bound"; the
     * value printed with 2 significant digits.
     */
    public static Claim above(String what, double value, double bound) {
        bound = shown(bound);
        boolean holds = shown(value) > bound;
        return new Claim(holds, what + " " + general(value) + (holds ? " > " : " ≤ ") + general(bound));
    }

    /**
     * {@code larger} exceeds {@code smaller} by more than {@code factor}: "what: larger / smaller = r > factor", else
     * "… = r ≤ factor"; the two numbers with 3 significant digits, so that their quotient is the ratio printed with 2
     * decimals.
     */
    public static Claim ratioAbove(String what, double larger, double smaller, double factor) {
        factor = shown(factor);
        double ratio = round(larger / smaller, 2);
        boolean holds = ratio > factor;
        return new Claim(
                holds,
                what + ": " + general(larger, 3) + " / " + general(smaller, 3) + " = " + fixed(ratio, 2)
                        + (holds ? " > " : " ≤ ") + general(factor));
    }

    /**
     * How far two test accuracies near {@code accuracy} may differ by the choice of {@code testImages} test images
     * alone: two standard errors of a binomial proportion, 2·√(p(1−p)/n) (0.029 for p = 0.7 on 1,000 images, 0.009
     * on 10,000). Runs that differ only in float rounding, which training amplifies, differ by about this much.
     */
    public static double accuracyNoise(double accuracy, int testImages) {
        return 2 * Math.sqrt(accuracy * (1 - accuracy) / testImages);
    }

    /**
     * Below this test accuracy a LeNet has not left its initial plateau, where it guesses at about 0.1 of 10
     * classes: two runs still there differ by the test set's noise whatever they did, so they are not compared.
     */
    static final double LEARNED = 0.2;

    /**
     * The claim that {@code what} (two test accuracies {@code a} and {@code b}) is not compared, where neither run
     * has learned; empty where one has, and the comparison says something.
     */
    public static Optional<Claim> notLearned(String what, double a, double b) {
        if (Math.max(a, b) >= LEARNED) {
            return Optional.empty();
        }
        return Optional.of(new Claim(
                false,
                what + " not compared: " + fixed(a, 3) + " and " + fixed(b, 3) + " are both under " + general(LEARNED)
                        + ", where a model that has not yet left its initial plateau sits (chance is 0.1); train"
                        + " longer, with more --train-samples or --epochs."));
    }

    /** This claim's sentence followed by {@code then} when it holds, by {@code otherwise} when not. */
    public Claim and(String then, String otherwise) {
        return new Claim(holds, text + (holds ? then : otherwise));
    }

    /** {@code v} as printed, so that a verdict on the printed numbers is the verdict printed. */
    private static double shown(double v) {
        return Double.parseDouble(general(v));
    }

    private static double round(double v, int digits) {
        return Double.parseDouble(fixed(v, digits));
    }

    private static String fixed(double v, int digits) {
        return String.format(Locale.ROOT, "%." + digits + "f", v);
    }

    /** Two significant digits, plain for ordinary sizes (0.52, 12, 340), in exponent form otherwise (3.1e-06). */
    static String general(double v) {
        return general(v, 2);
    }

    private static String general(double v, int digits) {
        double size = Math.abs(v);
        if (v != 0 && (size < 1e-3 || size >= 1e6) || !Double.isFinite(v)) {
            return String.format(Locale.ROOT, "%." + (digits - 1) + "e", v);
        }
        return new BigDecimal(v)
                .round(new MathContext(digits))
                .stripTrailingZeros()
                .toPlainString();
    }
}
