package org.multigpulab.jupyter.kernel;

import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.jshell.JShell;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.execution.LocalExecutionControlProvider;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.LanguageInfo;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;
import org.dflib.jjava.jupyter.kernel.comm.CommManager;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;
import org.dflib.jjava.jupyter.kernel.util.StringStyler;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.publish.PublishError;
import org.dflib.jjava.jupyter.messages.publish.PublishExecuteInput;
import org.dflib.jjava.jupyter.messages.publish.PublishExecuteResult;
import org.dflib.jjava.jupyter.messages.reply.ErrorReply;
import org.dflib.jjava.jupyter.messages.reply.ExecuteReply;
import org.dflib.jjava.jupyter.messages.request.ExecuteRequest;
import org.multigpulab.jupyter.display.Notebook;

/**
 * The lab's Jupyter kernel: each cell is Java, evaluated by the JDK's JShell in this JVM against the lab's jars
 * (this process's class path), so the notebook helpers of {@link Notebook} reach the cell's output. Standard output
 * and error go to the cell as they are written, the last expression's value is shown (charts as images), a failing
 * cell becomes a Jupyter error and the kernel carries on, and an interrupt stops the running cell. Cells run one at
 * a time; an interrupt may come from another thread.
 */
public final class JavaKernel extends BaseKernel {

    /** What every notebook has imported before its first cell. */
    static final List<String> STARTUP = List.of(
            "import java.util.*;",
            "import java.nio.file.*;",
            "import static org.multigpulab.jupyter.display.Notebook.*;");

    private final CellIO cellIO;
    private final JShell shell;
    private final Cells cells;
    private final AtomicBoolean interrupted = new AtomicBoolean();
    private volatile boolean running;

    public JavaKernel() {
        this(new CellIO());
    }

    private JavaKernel(CellIO cellIO) {
        super(
                "multigpu-lab",
                Runtime.version().toString(),
                new LanguageInfo("java", Runtime.version().toString(), "text/x-java", ".jshell", "java", "java", null),
                List.of(),
                null,
                cellIO,
                new CommManager(),
                new Renderer(),
                null,
                new MagicsRegistry(),
                false,
                new StringStyler.Builder().build());
        this.cellIO = cellIO;
        shell = JShell.builder()
                .executionEngine(new LocalExecutionControlProvider(), Map.of())
                // the lab's JVM runs with the Vector API module; cells compile against it too
                .compilerOptions("--add-modules", "jdk.incubator.vector")
                .build();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                shell.addToClasspath(entry);
            }
        }
        cells = new Cells(shell, interrupted::get);
        STARTUP.forEach(shell::eval);
        Notebook.attach(io.display);
    }

    @Override
    public String getBanner() {
        return "multigpu-lab: Java " + Runtime.version() + " (JShell) with the lab's classes";
    }

    /** Runs one cell as cell number {@code count}; its value as display data, or {@code null} when there is none. */
    private DisplayData run(String code, int count) {
        interrupted.set(false);
        running = true;
        try {
            return cells.run(code, count)
                    .map(value -> Notebook.render(value.object(), value.text()))
                    .orElse(null);
        } finally {
            running = false;
            System.out.flush();
            System.err.flush();
        }
    }

    @Override
    public Object evalRaw(String code) {
        return run(code, executionCount.get());
    }

    /**
     * {@link BaseKernel}'s execute handler, with the error named as Java names it (the exception's class, its
     * message, and the cell's line) rather than by the class that carried it.
     */
    @Override
    protected synchronized void handleExecuteRequest(ShellReplyEnvironment env, Message<ExecuteRequest> request) {
        commManager.setMessageContext(request);
        int count = executionCount.getAndIncrement();
        env.setBusyDeferIdle();
        env.publish(new PublishExecuteInput(request.getContent().getCode(), count));
        replaceOutputStreams(env);
        cellIO.attach(env, request.getContent().isStdinEnabled());
        try {
            DisplayData out = run(request.getContent().getCode(), count);
            if (out != null) {
                env.publish(new PublishExecuteResult(count, out));
            }
            env.defer().reply(new ExecuteReply(count, Map.of()));
        } catch (CellError e) {
            env.publish(new PublishError(e.ename(), e.evalue(), e.traceback()));
            ErrorReply reply = new ErrorReply(e.ename(), e.evalue(), e.traceback());
            reply.setExecutionCount(count);
            env.defer().replyError(ExecuteReply.MESSAGE_TYPE.error(), reply);
        }
    }

    /**
     * Stops the running cell. JShell's stop reaches only a snippet that is running: between two snippets of a cell
     * (while JShell compiles the next) it does nothing, so it is asked again until the cell ends, for at most five
     * seconds; {@link Cells} also looks at the flag before each snippet. Code that neither loops in a cell nor
     * answers an interrupt (a long library call) ends the cell when it returns.
     */
    @Override
    public void interrupt() {
        interrupted.set(true);
        try {
            for (int i = 0; i < 100 && running; i++) {
                shell.stop();
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public DisplayData inspect(String code, int at, boolean extraDetail) {
        List<SourceCodeAnalysis.Documentation> docs = shell.sourceCodeAnalysis().documentation(code, at, extraDetail);
        if (docs.isEmpty()) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        for (SourceCodeAnalysis.Documentation doc : docs) {
            text.append(doc.signature()).append('\n');
            if (doc.javadoc() != null) {
                text.append(doc.javadoc()).append('\n');
            }
        }
        return new DisplayData(text.toString());
    }

    @Override
    public ReplacementOptions complete(String code, int at) {
        int[] anchor = new int[1];
        List<String> names = shell.sourceCodeAnalysis().completionSuggestions(code, at, anchor).stream()
                .map(SourceCodeAnalysis.Suggestion::continuation)
                .distinct()
                .toList();
        return new ReplacementOptions(names, anchor[0], at);
    }

    @Override
    public String isComplete(String code) {
        return switch (shell.sourceCodeAnalysis().analyzeCompletion(code).completeness()) {
            case COMPLETE, COMPLETE_WITH_SEMI, EMPTY -> IS_COMPLETE_YES;
            case DEFINITELY_INCOMPLETE, CONSIDERED_INCOMPLETE -> "    ";
            case UNKNOWN -> IS_COMPLETE_BAD;
        };
    }

    @Override
    public void onShutdown(boolean restarting) {
        Notebook.detach();
        shell.close();
    }
}
