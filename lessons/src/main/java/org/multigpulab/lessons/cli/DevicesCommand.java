package org.multigpulab.lessons.cli;

import java.io.PrintWriter;
import org.multigpulab.device.Availability;
import org.multigpulab.device.Backend;
import org.multigpulab.device.Backends;
import org.multigpulab.device.DeviceInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./lab devices}: every backend on the class path, whether it can run here (and why not), its devices. */
@Command(
        name = "devices",
        mixinStandardHelpOptions = true,
        description = "List every backend: available or why not, and the devices it offers.")
final class DevicesCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        for (Backend backend : Backends.all()) {
            Availability a = backend.availability();
            out.printf(
                    "%-8s %-13s %s%n",
                    backend.name(), a.available() ? "available" : "unavailable", backend.description());
            out.printf("%-8s %-13s %s%n", "", "", a.reason());
            if (a.available()) {
                for (DeviceInfo d : backend.devices()) {
                    out.printf(
                            "%-8s   %-11s %s, %.1f GiB%n",
                            "", d.id(), d.description(), d.memoryBytes() / (double) (1L << 30));
                }
            }
        }
        out.flush();
    }
}
