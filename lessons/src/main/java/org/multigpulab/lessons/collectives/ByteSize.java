package org.multigpulab.lessons.collectives;

import java.util.Locale;
import org.multigpulab.lessons.errors.UserError;

/** A size in bytes as nccl-tests reads it: a whole number with an optional K, M or G suffix (powers of 1024). */
public final class ByteSize {

    private ByteSize() {}

    /** {@code text} in bytes: "8" is 8, "32K" 32768, "8G" 8589934592; {@code option} names the flag in errors. */
    public static long parse(String option, String text) {
        String t = text.trim();
        long unit = 1;
        if (!t.isEmpty()) {
            switch (Character.toUpperCase(t.charAt(t.length() - 1))) {
                case 'K' -> unit = 1L << 10;
                case 'M' -> unit = 1L << 20;
                case 'G' -> unit = 1L << 30;
                default -> unit = 1;
            }
        }
        String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
        try {
            long value = Long.parseLong(digits);
            if (value >= 1 && value <= Long.MAX_VALUE / unit) {
                return value * unit;
            }
        } catch (NumberFormatException e) {
            // fall through to the message below
        }
        throw new UserError(option + " must be a size in bytes of 1 or more, with an optional K, M or G (such as 8,"
                + " 64K, 8G), not '" + text + "'");
    }

    /** {@code bytes} as nccl-tests would be given it: 8G, 64K, 12. */
    public static String format(long bytes) {
        String[] units = {"G", "M", "K"};
        int[] shifts = {30, 20, 10};
        for (int i = 0; i < units.length; i++) {
            if (bytes >= 1L << shifts[i] && bytes % (1L << shifts[i]) == 0) {
                return (bytes >> shifts[i]) + units[i];
            }
        }
        return String.format(Locale.ROOT, "%d", bytes);
    }
}
