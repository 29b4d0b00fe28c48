package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command's {@code --help} renders cleanly: a stray {@code %} in a description makes picocli print a
 * warning and the raw text instead, which a user sees before the help.
 */
class HelpTest {

    @Test
    void everyCommandsHelpRendersWithoutWarnings() {
        CommandLine lab = Lab.commandLine();
        List<CommandLine> commands = new ArrayList<>(List.of(lab));
        commands.addAll(lab.getSubcommands().values());
        PrintStream err = System.err;
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
        try {
            for (CommandLine command : commands) {
                String help = command.getUsageMessage();
                assertTrue(help.contains("Usage: lab"), command.getCommandName() + ":\n" + help);
            }
        } finally {
            System.setErr(err);
        }
        assertEquals("", warnings.toString(StandardCharsets.UTF_8));
    }

    @Test
    void trainsHelpNamesTheModels() {
        String help = Lab.commandLine().getSubcommands().get("train").getUsageMessage();
        assertTrue(
                help.contains("--model=NAME")
                        && help.contains("lenet (the notebook's LeNet")
                        && help.contains("mlp")
                        && help.contains("Default: lenet"),
                help);
    }
}
