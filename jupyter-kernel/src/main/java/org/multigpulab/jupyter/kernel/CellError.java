package org.multigpulab.jupyter.kernel;

import java.util.List;

/**
 * A cell that failed, as Jupyter shows it: {@code ename} (the Java exception's simple name, or the kind of failure
 * such as {@code CompilationError}), {@code evalue} (its message) and {@code traceback} (lines naming the cell and
 * line where it happened). Thrown out of a cell's evaluation; the kernel then carries on.
 */
final class CellError extends RuntimeException {

    private final String ename;
    private final List<String> traceback;

    CellError(String ename, String evalue, List<String> traceback) {
        super(evalue, null, false, false);
        this.ename = ename;
        this.traceback = List.copyOf(traceback);
    }

    String ename() {
        return ename;
    }

    String evalue() {
        return getMessage();
    }

    List<String> traceback() {
        return traceback;
    }
}
