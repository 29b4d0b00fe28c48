package org.multigpulab.jupyter.kernel;

/**
 * Where a cell's last expression hands its value over to the kernel: the kernel evaluates {@code
 * LastValue.hold(name)} after the expression, in the same JVM, and reads the object back to display it.
 */
public final class LastValue {

    private static volatile Object held;

    private LastValue() {}

    /** Called from a cell: keeps {@code value} until the kernel takes it. */
    public static void hold(Object value) {
        held = value;
    }

    /** The value held last, which is then forgotten. */
    static Object take() {
        Object value = held;
        held = null;
        return value;
    }
}
