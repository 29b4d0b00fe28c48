package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * When each part of one allocation was last written and last read, in simulated time, so that the model lets
 * no kernel or copy read data before it is written, or overwrite data still being read, while work on other
 * parts goes on (a bucket of gradients is sent while the backward pass writes the next ones). Parts are the
 * ranges that views were used with; an allocation sees a handful of distinct ones.
 */
final class Hazards {

    private record Part(int offset, int length, double[] times) { // times: {written, read}
        boolean overlaps(int otherOffset, int otherLength) {
            return offset < otherOffset + otherLength && otherOffset < offset + length;
        }
    }

    /** Past this many parts they are merged into one, which is conservative: it may delay, never reorder. */
    private static final int MAX_PARTS = 64;

    private final List<Part> parts = new ArrayList<>(2);

    /** The earliest time {@code [offset, offset + length)} may be read: after its last write. */
    double readable(int offset, int length) {
        double t = 0;
        for (Part p : parts) {
            if (p.overlaps(offset, length)) {
                t = Math.max(t, p.times[0]);
            }
        }
        return t;
    }

    /** The earliest time {@code [offset, offset + length)} may be written: after its last write and read. */
    double writable(int offset, int length) {
        double t = 0;
        for (Part p : parts) {
            if (p.overlaps(offset, length)) {
                t = Math.max(t, Math.max(p.times[0], p.times[1]));
            }
        }
        return t;
    }

    void written(int offset, int length, double end) {
        double[] times = part(offset, length);
        times[0] = Math.max(times[0], end);
    }

    void read(int offset, int length, double end) {
        double[] times = part(offset, length);
        times[1] = Math.max(times[1], end);
    }

    private double[] part(int offset, int length) {
        for (Part p : parts) {
            if (p.offset == offset && p.length == length) {
                return p.times;
            }
        }
        if (parts.size() == MAX_PARTS) {
            double[] all = new double[2];
            int from = Integer.MAX_VALUE, to = 0;
            for (Part q : parts) {
                all[0] = Math.max(all[0], q.times[0]);
                all[1] = Math.max(all[1], q.times[1]);
                from = Math.min(from, q.offset);
                to = Math.max(to, q.offset + q.length);
            }
            parts.clear();
            parts.add(new Part(from, to - from, all));
        }
        Part p = new Part(offset, length, new double[2]);
        parts.add(p);
        return p.times;
    }
}
