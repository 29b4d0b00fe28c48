package org.multigpulab.lessons.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.ParameterDistance;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.SafeTensors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./lab compare A B}: how far two saved parameter files are apart, overall and per tensor. */
@Command(
        name = "compare",
        mixinStandardHelpOptions = true,
        description = {
            "Compare two safetensors files of the model's parameters (from train --save).",
            "Prints ||A - B|| / ||B|| over all parameters and the largest difference per tensor;",
            "with --from START, how far the updates START -> A and START -> B are apart, tensor by tensor."
        })
final class CompareCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "A")
    Path a;

    @Parameters(index = "1", paramLabel = "B")
    Path b;

    @Option(
            names = "--from",
            paramLabel = "START",
            description = "The parameters both trainings started from: compare the updates, per tensor"
                    + " ||(A - START) - (B - START)|| / ||B - START||, instead of the parameters.")
    Path from;

    @Option(
            names = "--tolerance",
            paramLabel = "REL",
            description =
                    "Exit with status 1 when the relative distance (with --from: the worst tensor's) exceeds" + " REL.")
    Double tolerance;

    @Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    @Override
    public Integer call() {
        if (tolerance != null && !(tolerance >= 0 && tolerance < Double.POSITIVE_INFINITY)) {
            throw new UserError("--tolerance must be a finite number of 0 or more, such as 1e-6, not " + tolerance);
        }
        List<HostTensor> x = SafeTensors.read(a), y = SafeTensors.read(b);
        List<String> names = y.stream().map(HostTensor::name).toList();
        if (!x.stream().map(HostTensor::name).toList().equals(names)) {
            throw new UserError(a + " and " + b + " hold different tensors: "
                    + x.stream().map(HostTensor::name).toList() + " and " + names);
        }
        PrintWriter out = spec.commandLine().getOut();
        for (int p = 0; p < x.size(); p++) {
            if (!Arrays.equals(x.get(p).shape(), y.get(p).shape())) {
                throw new UserError(names.get(p) + " has shape " + x.get(p).shapeText() + " in " + a + " but "
                        + y.get(p).shapeText() + " in " + b);
            }
            double max = 0;
            for (int i = 0; i < x.get(p).size(); i++) {
                max = Math.max(
                        max, Math.abs((double) x.get(p).values()[i] - y.get(p).values()[i]));
            }
            out.printf("  %-3s %-16s max |A - B| %.3g%n", names.get(p), x.get(p).shapeText(), max);
        }
        double relative = ParameterDistance.relative(x, y);
        out.printf("relative distance ||A - B|| / ||B|| = %.3g%n", relative);
        if (from != null) {
            UpdateDistance updates = updates(SafeTensors.read(from), x, y);
            out.printf("updates from %s: %s%n", from, updates);
            relative = updates.worst().relative();
        }
        boolean within = tolerance == null || relative <= tolerance;
        if (tolerance != null) {
            out.printf(
                    "%s the tolerance %.3g (exit status %d)%n",
                    within ? "within" : "beyond", tolerance, within ? 0 : Lab.EXIT_FAILED);
        }
        out.flush();
        return within ? 0 : Lab.EXIT_FAILED;
    }

    private UpdateDistance updates(List<HostTensor> start, List<HostTensor> x, List<HostTensor> y) {
        try {
            return UpdateDistance.of(start, x, y);
        } catch (IllegalArgumentException e) {
            throw new UserError(from + " does not hold the parameters " + a + " and " + b + " hold: " + e.getMessage());
        }
    }
}
