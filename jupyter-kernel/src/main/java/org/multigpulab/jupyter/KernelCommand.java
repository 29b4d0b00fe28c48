package org.multigpulab.jupyter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.multigpulab.jupyter.kernel.JavaKernel;
import org.multigpulab.lessons.errors.UserError;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code ./lab notebook kernel FILE}: the kernel process Jupyter starts, serving the connection in FILE. */
@Command(
        name = "kernel",
        hidden = true,
        mixinStandardHelpOptions = true,
        description = "Run the Java kernel on the connection Jupyter wrote into FILE (Jupyter starts this itself).")
final class KernelCommand implements Callable<Integer> {

    @Parameters(paramLabel = "FILE", description = "the connection file from Jupyter")
    Path connectionFile;

    @Override
    public Integer call() throws Exception {
        if (!Files.isReadable(connectionFile)) {
            throw new UserError("the connection file " + connectionFile + " cannot be read; Jupyter starts the"
                    + " kernel with one, start Jupyter with ./lab notebook instead");
        }
        JupyterConnection connection =
                new JupyterConnection(KernelConnectionProperties.parse(Files.readString(connectionFile)));
        JavaKernel kernel = new JavaKernel();
        kernel.becomeHandlerForConnection(connection);
        connection.connect();
        connection.waitUntilClose();
        return 0;
    }
}
