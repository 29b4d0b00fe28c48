package org.multigpulab.jupyter.kernel;

import java.nio.charset.StandardCharsets;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.JupyterIO;

/** The kernel's standard streams and display, pointed at the cell that runs now (UTF-8). */
final class CellIO extends JupyterIO {

    CellIO() {
        super(StandardCharsets.UTF_8);
    }

    /** From now on output goes to the cell of {@code env}, until {@code env} is done. */
    void attach(ShellReplyEnvironment env, boolean stdinEnabled) {
        setEnv(env);
        env.defer(() -> retractEnv(env));
        setJupyterInEnabled(stdinEnabled);
    }
}
