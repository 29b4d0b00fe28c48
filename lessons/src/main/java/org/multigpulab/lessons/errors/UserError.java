package org.multigpulab.lessons.errors;

/**
 * Something the user asked for cannot be done as asked: a bad option, a missing or damaged file, an output
 * that cannot be written. The message says what was wrong and what to do; {@code Lab} prints it as one line.
 */
public final class UserError extends RuntimeException {

    public UserError(String message) {
        super(message);
    }

    public UserError(String message, Throwable cause) {
        super(message, cause);
    }

    /** Checks a count the user gave: {@code option} (such as {@code --gpus}) must be 1 or more. */
    public static void requireOneOrMore(String option, int value) {
        if (value < 1) {
            throw new UserError(option + " must be 1 or more, not " + value);
        }
    }
}
