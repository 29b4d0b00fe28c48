package org.multigpulab.jupyter.kernel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import jdk.jshell.Diag;
import jdk.jshell.EvalException;
import jdk.jshell.ExpressionSnippet;
import jdk.jshell.JShell;
import jdk.jshell.JShellException;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.UnresolvedReferenceException;
import jdk.jshell.VarSnippet;

/**
 * Runs notebook cells in a JShell: a cell is cut into JShell snippets (statements, declarations, expressions),
 * evaluated in order until one fails. Remembers in which cell and line each snippet began, so that an error names
 * the cell's line, even when it happens in a method declared in an earlier cell. Not thread-safe: one cell at a
 * time.
 */
final class Cells {

    /** A cell's last expression: the object, and JShell's text for it. */
    record Value(Object object, String text) {}

    /** Where a snippet's source began: the cell's execution count and the line in that cell. */
    private record Place(int cell, int line) {}

    private final JShell shell;
    private final BooleanSupplier interrupted;
    private final Map<String, Place> places = new HashMap<>();

    Cells(JShell shell, BooleanSupplier interrupted) {
        this.shell = shell;
        this.interrupted = interrupted;
    }

    /** Runs {@code code} as cell {@code count}; its last expression's value, if it ends in one without a ';'. */
    Optional<Value> run(String code, int count) {
        SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
        Optional<Value> last = Optional.empty();
        String rest = code;
        while (!rest.isBlank()) {
            int start = code.length()
                    - rest.length()
                    + (rest.length() - rest.stripLeading().length());
            int line = lineAt(code, start);
            SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(rest);
            if (info.completeness() == SourceCodeAnalysis.Completeness.DEFINITELY_INCOMPLETE || info.source() == null) {
                throw new CellError(
                        "CompilationError",
                        "the cell ends before its last statement does (a missing ';', ')' or '}'?)",
                        List.of("cell [" + count + "] line " + line + ": " + firstLine(rest.strip())));
            }
            last = evaluate(info.source(), new Place(count, line));
            // as in IPython, a cell whose last expression ends in ';' shows no value
            if (rest.substring(0, rest.length() - info.remaining().length())
                    .strip()
                    .endsWith(";")) {
                last = Optional.empty();
            }
            rest = info.remaining();
        }
        return last;
    }

    private Optional<Value> evaluate(String source, Place place) {
        if (interrupted.getAsBoolean()) {
            throw interruptedAt(place);
        }
        Optional<Value> value = Optional.empty();
        for (SnippetEvent event : shell.eval(source)) {
            if (event.causeSnippet() != null) {
                continue; // an earlier snippet that this one changed
            }
            Snippet snippet = event.snippet();
            places.put(snippet.id(), place);
            if (interrupted.getAsBoolean()) {
                throw interruptedAt(place);
            }
            if (event.status() == Snippet.Status.REJECTED) {
                throw compilationError(snippet, source, place);
            }
            if (event.exception() != null) {
                throw runtimeError(event.exception());
            }
            value = valueOf(snippet, event);
        }
        return value;
    }

    /** The value of an expression snippet, fetched from the JVM the cell ran in; none for statements and void. */
    private Optional<Value> valueOf(Snippet snippet, SnippetEvent event) {
        String type = switch (snippet) {
            case ExpressionSnippet e -> e.typeName();
            case VarSnippet v when v.subKind() == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND -> v.typeName();
            default -> null;
        };
        if (type == null || type.equals("void") || event.value() == null) {
            return Optional.empty();
        }
        String name = snippet instanceof ExpressionSnippet e ? e.name() : ((VarSnippet) snippet).name();
        shell.eval(LastValue.class.getName() + ".hold(" + name + ");");
        return Optional.of(new Value(LastValue.take(), event.value()));
    }

    private static CellError interruptedAt(Place place) {
        return new CellError(
                "Interrupted",
                "the cell was stopped",
                List.of("interrupted in cell [" + place.cell() + "] at line " + place.line()));
    }

    private CellError compilationError(Snippet snippet, String source, Place place) {
        List<String> lines = new ArrayList<>();
        String message = null;
        for (Diag diag : shell.diagnostics(snippet).toList()) {
            if (!diag.isError()) {
                continue;
            }
            // JShell's wrapper class has no name a student knows; leave out the line that names it
            String text = diag.getMessage(Locale.ROOT).replaceAll("\n\\s*location: class\\s*$", "");
            message = message == null ? firstLine(text) : message;
            int at = (int) Math.max(0, Math.min(diag.getStartPosition(), source.length()));
            int lineStart = source.lastIndexOf('\n', at - 1) + 1;
            int lineEnd = source.indexOf('\n', at);
            String codeLine = source.substring(lineStart, lineEnd < 0 ? source.length() : lineEnd);
            // the place is where the snippet's first non-blank line is; its source may begin with blank lines
            int lead = source.length() - source.stripLeading().length();
            int line = place.line() + lineAt(source, at) - lineAt(source, lead);
            lines.add("cell [" + place.cell() + "] line " + line + ": " + text);
            lines.add("    " + codeLine);
            lines.add("    " + " ".repeat(at - lineStart) + "^");
        }
        if (message == null) {
            message = "JShell could not compile this";
            lines.add("cell [" + place.cell() + "] line " + place.line() + ": " + firstLine(source));
        }
        return new CellError("CompilationError", message, lines);
    }

    private CellError runtimeError(JShellException exception) {
        if (interrupted.getAsBoolean()) {
            return new CellError("Interrupted", "the cell was stopped", trace(exception));
        }
        if (exception instanceof UnresolvedReferenceException unresolved) {
            Snippet s = unresolved.getSnippet();
            return new CellError(
                    "UnresolvedReference",
                    "'" + firstLine(s.source().strip()) + "' uses something no cell has declared yet"
                            + " (it was declared in " + describe(places.get(s.id())) + ")",
                    trace(exception));
        }
        EvalException e = (EvalException) exception;
        String name = e.getExceptionClassName();
        return new CellError(name.substring(name.lastIndexOf('.') + 1), String.valueOf(e.getMessage()), trace(e));
    }

    /** The exception and its causes with their frames; a frame of a cell names the cell and line. */
    private List<String> trace(Throwable exception) {
        List<String> lines = new ArrayList<>();
        for (Throwable t = exception; t != null; t = t.getCause()) {
            String name = t instanceof EvalException e
                    ? e.getExceptionClassName()
                    : t.getClass().getName();
            lines.add((t == exception ? "" : "Caused by: ") + name + ": " + t.getMessage());
            for (StackTraceElement frame : t.getStackTrace()) {
                String file = frame.getFileName();
                if (file != null && file.startsWith("#")) {
                    Place place = places.get(file.substring(1));
                    lines.add("    at "
                            + (place == null
                                    ? frame.toString()
                                    : "cell [" + place.cell() + "] line "
                                            + (place.line() + frame.getLineNumber() - 1)));
                    if (frame.getMethodName().equals("do_it$")) {
                        break; // what follows is JShell's own machinery
                    }
                } else {
                    lines.add("    at " + frame);
                }
            }
        }
        return lines;
    }

    private static String describe(Place place) {
        return place == null ? "an earlier cell" : "cell [" + place.cell() + "] line " + place.line();
    }

    /** The 1-based line of {@code text} that holds the character at {@code index}. */
    private static int lineAt(String text, int index) {
        return (int) text.substring(0, Math.min(index, text.length()))
                        .chars()
                        .filter(c -> c == '\n')
                        .count()
                + 1;
    }

    private static String firstLine(String text) {
        int end = text.indexOf('\n');
        return end < 0 ? text : text.substring(0, end);
    }
}
