package org.multigpulab.backend.sim;

import java.util.Map;
import java.util.TreeMap;

/**
 * When each part of one allocation was last written and last read, in simulated time, so that the model lets
 * no kernel or copy read data before it is written, or overwrite data still being read, while work on other
 * parts goes on (a bucket of gradients is sent while the backward pass writes the next ones). The allocation is
 * cut, at the ends of the ranges its views were used with, into segments that each keep their own two times, so
 * a range waits only for work on elements it shares: a flat gradient of ResNet-50's 161 parameters keeps each
 * parameter's and each bucket's times apart. Elements never used have times 0.
 */
final class Hazards {

    /** Each segment's first element, mapped to its times {written, read}; a segment ends where the next starts. */
    private final TreeMap<Integer, double[]> segments = new TreeMap<>();

    /** The earliest time {@code [offset, offset + length)} may be read: after its last write. */
    double readable(int offset, int length) {
        double t = 0;
        for (double[] times : overlapping(offset, length).values()) {
            t = Math.max(t, times[0]);
        }
        return t;
    }

    /** The earliest time {@code [offset, offset + length)} may be written: after its last write and read. */
    double writable(int offset, int length) {
        double t = 0;
        for (double[] times : overlapping(offset, length).values()) {
            t = Math.max(t, Math.max(times[0], times[1]));
        }
        return t;
    }

    void written(int offset, int length, double end) {
        for (double[] times : cut(offset, length).values()) {
            times[0] = Math.max(times[0], end);
        }
    }

    void read(int offset, int length, double end) {
        for (double[] times : cut(offset, length).values()) {
            times[1] = Math.max(times[1], end);
        }
    }

    /** The segments that hold elements of {@code [offset, offset + length)}. */
    private Map<Integer, double[]> overlapping(int offset, int length) {
        Integer first = segments.floorKey(offset);
        return segments.subMap(first != null ? first : offset, true, offset + length, false);
    }

    /** The segments of {@code [offset, offset + length)} exactly, cutting those that cross its ends. */
    private Map<Integer, double[]> cut(int offset, int length) {
        cutAt(offset);
        cutAt(offset + length);
        return segments.subMap(offset, true, offset + length, false);
    }

    /** Makes {@code at} the start of a segment, which keeps the times of the one it was part of. */
    private void cutAt(int at) {
        Map.Entry<Integer, double[]> before = segments.floorEntry(at);
        if (before == null) {
            segments.put(at, new double[2]);
        } else if (before.getKey() != at) {
            segments.put(at, before.getValue().clone());
        }
    }
}
