package org.multigpulab.jupyter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChartBuilder;
import org.multigpulab.core.Synthetic;
import org.multigpulab.device.testing.Prerequisite;

/**
 * Every notebook in {@code notebooks/} executed headless as {@code ./lab notebook --execute} does (Jupyter's
 * nbconvert, on the lab's kernel, with the notebooks' own small slice of Fashion-MNIST), then its outputs checked:
 * no cell failed, the all-reduce leaves 3, 3 on both devices, each training cell ends with the notebook's line and
 * holds its learning curve as a PNG. One executed notebook is rendered to HTML and photographed by headless
 * Chromium, and the photo is checked for the page and the chart.
 */
class NotebooksTest {

    private static final Gson GSON = new Gson();
    private static final Path JUPYTER = Path.of("/usr/bin/jupyter");
    private static final Path NBCONVERT = Path.of("/usr/bin/jupyter-nbconvert");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Pattern SUMMARY =
            Pattern.compile("test acc: \\d\\.\\d\\d, \\d+\\.\\d sec/epoch on \\[sim:0(, sim:1)?\\].*");

    @TempDir
    static Path work;

    /** Each executed notebook by name. */
    private static final Map<String, JsonObject> executed = new TreeMap<>();

    @BeforeAll
    static void executeEveryNotebook() throws Exception {
        Prerequisite.require("jupyter", Files.isExecutable(NBCONVERT), NBCONVERT + " is not there");
        Path data = Synthetic.realDataDir();
        Path share = work.resolve("share");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        new KernelSpec(List.of(
                        java,
                        "--enable-native-access=ALL-UNNAMED",
                        "--add-modules",
                        "jdk.incubator.vector",
                        "-cp",
                        System.getProperty("java.class.path"),
                        LabWithNotebooks.class.getName(),
                        "notebook",
                        "kernel"))
                .writeInto(share.resolve("kernels"));
        // Two nbconvert processes at once, each executing its half of the notebooks one after another in a folder of
        // its own (a notebook's plots go under the folder it runs in): a notebook's kernel leaves the processor's
        // two cores a fifth idle, starting up and in Python, which the other half fills.
        List<Path> notebooks;
        try (Stream<Path> all = Files.list(notebooksFolder())) {
            notebooks =
                    all.filter(p -> p.toString().endsWith(".ipynb")).sorted().toList();
        }
        Path out = work.resolve("out");
        List<Process> halves = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (int half = 0; half < 2; half++) {
            Path in = Files.createDirectories(work.resolve("in-" + half));
            List<String> command = new ArrayList<>(List.of(
                    JUPYTER.toString(),
                    "nbconvert",
                    "--to",
                    "notebook",
                    "--execute",
                    "--ExecutePreprocessor.timeout=600",
                    "--output-dir",
                    out.toString()));
            for (int i = half; i < notebooks.size(); i += 2) {
                Path copy = in.resolve(notebooks.get(i).getFileName());
                Files.copy(notebooks.get(i), copy);
                command.add(copy.toString());
            }
            Path log = Files.createTempFile(work, "nbconvert", ".log");
            ProcessBuilder builder =
                    new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment()
                    .putAll(Map.of("JUPYTER_PATH", share.toString(), "FASHION_MNIST_DIR", data.toString()));
            halves.add(builder.start());
            logs.add(log);
        }
        for (int half = 0; half < 2; half++) {
            checkEnded(List.of("nbconvert", "half " + half), halves.get(half).waitFor(), logs.get(half));
        }
        for (Path notebook : notebooks) {
            executed.put(
                    notebook.getFileName().toString().replace(".ipynb", ""), read(out.resolve(notebook.getFileName())));
        }
        assertFalse(executed.isEmpty(), "no notebooks in " + notebooksFolder());
    }

    @Test
    void everyCellOfEveryNotebookRanWithoutError() {
        for (var notebook : executed.entrySet()) {
            for (JsonObject cell : codeCells(notebook.getValue())) {
                assertFalse(cell.get("execution_count").isJsonNull(), notebook.getKey() + ": a cell did not run");
                for (JsonElement output : cell.getAsJsonArray("outputs")) {
                    assertFalse(
                            output.getAsJsonObject()
                                    .get("output_type")
                                    .getAsString()
                                    .equals("error"),
                            notebook.getKey() + ": " + output);
                }
            }
        }
    }

    @Test
    void theAllReduceLeavesThreeThreeOnBothDevices() {
        String printed = stdout(cellCalling(executed.get("multi-gpu-training"), "Collectives.allReduce(data)"));
        assertTrue(printed.contains("before allreduce: [[1.0, 1.0] on sim:0, [2.0, 2.0] on sim:1]"), printed);
        assertTrue(printed.contains("after allreduce: [[3.0, 3.0] on sim:0, [3.0, 3.0] on sim:1]"), printed);
    }

    @Test
    void eachTrainingCellEndsWithTheNotebooksLineAndHoldsItsLearningCurve() throws IOException {
        JsonObject notebook = executed.get("multi-gpu-training");
        List<JsonObject> trainings = codeCells(notebook).stream()
                .filter(c -> source(c).startsWith("train("))
                .toList();
        assertEquals(2, trainings.size(), "train(1, ...) and train(2, ...)");
        for (JsonObject cell : trainings) {
            List<String> lines = stdout(cell).lines().toList();
            assertTrue(SUMMARY.matcher(lines.getLast()).matches(), lines.getLast());
            BufferedImage chart = png(cell);
            assertNotNull(chart, "the learning curve's image/png decodes");
            assertTrue(countNear(chart, seriesColour(0)) > 50, "the test accuracy curve is drawn in the chart");
        }
    }

    @Test
    void theRenderedNotebookShowsItsTextAndTheChart() throws Exception {
        Prerequisite.require("chromium", Files.isExecutable(CHROMIUM), CHROMIUM + " is not there");
        Path notebook = work.resolve("render/multi-gpu-training.ipynb");
        Files.createDirectories(notebook.getParent());
        Files.writeString(notebook, GSON.toJson(executed.get("multi-gpu-training")));
        // Debian's nbconvert 6.5 strips inline SVG down to an empty element: export the PNG of each chart
        Path config = work.resolve("render/png-first.py");
        Files.writeString(
                config,
                "c.NbConvertBase.display_data_priority = ['text/html', 'text/markdown', 'image/png', 'text/plain']\n");
        jupyter(Map.of(), "nbconvert", "--config", config.toString(), "--to", "html", notebook.toString());
        Path html = notebook.resolveSibling("multi-gpu-training.html");
        Path shot = work.resolve("render/screenshot.png");
        run(List.of(
                CHROMIUM.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=1200,8000",
                "--screenshot=" + shot,
                html.toUri().toString()));
        BufferedImage page = ImageIO.read(shot.toFile());
        long inked = 0;
        for (int y = 0; y < page.getHeight(); y++) {
            for (int x = 0; x < page.getWidth(); x++) {
                Color c = new Color(page.getRGB(x, y));
                inked += c.getRed() + c.getGreen() + c.getBlue() < 3 * 200 ? 1 : 0;
            }
        }
        double share = (double) inked / ((long) page.getWidth() * page.getHeight());
        assertTrue(share > 0.01, "the page is not blank: " + share + " of its pixels are dark");
        assertTrue(countNear(page, seriesColour(0)) > 50, "the learning curve shows on the page");
    }

    /** XChart's colour of series {@code i}, as drawn on white with its transparency. */
    private static Color seriesColour(int i) {
        Color c = new XYChartBuilder().build().getStyler().getSeriesColors()[i];
        double a = c.getAlpha() / 255.0;
        return new Color(
                (int) Math.round(a * c.getRed() + (1 - a) * 255),
                (int) Math.round(a * c.getGreen() + (1 - a) * 255),
                (int) Math.round(a * c.getBlue() + (1 - a) * 255));
    }

    private static long countNear(BufferedImage image, Color colour) {
        long n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                Color c = new Color(image.getRGB(x, y));
                int d = Math.abs(c.getRed() - colour.getRed())
                        + Math.abs(c.getGreen() - colour.getGreen())
                        + Math.abs(c.getBlue() - colour.getBlue());
                n += d < 30 ? 1 : 0;
            }
        }
        return n;
    }

    private static BufferedImage png(JsonObject cell) throws IOException {
        for (JsonElement output : cell.getAsJsonArray("outputs")) {
            JsonObject data = output.getAsJsonObject().getAsJsonObject("data");
            if (data != null && data.has("image/png")) {
                return ImageIO.read(new ByteArrayInputStream(
                        Base64.getDecoder().decode(text(data.get("image/png")).replace("\n", ""))));
            }
        }
        throw new AssertionError("no image/png in " + source(cell));
    }

    private static JsonObject cellCalling(JsonObject notebook, String call) {
        return codeCells(notebook).stream()
                .filter(c -> source(c).contains(call))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no cell calls " + call));
    }

    private static List<JsonObject> codeCells(JsonObject notebook) {
        List<JsonObject> cells = new ArrayList<>();
        for (JsonElement cell : notebook.getAsJsonArray("cells")) {
            if (cell.getAsJsonObject().get("cell_type").getAsString().equals("code")) {
                cells.add(cell.getAsJsonObject());
            }
        }
        return cells;
    }

    private static String stdout(JsonObject cell) {
        StringBuilder text = new StringBuilder();
        for (JsonElement output : cell.getAsJsonArray("outputs")) {
            JsonObject o = output.getAsJsonObject();
            if (o.get("output_type").getAsString().equals("stream")
                    && o.get("name").getAsString().equals("stdout")) {
                text.append(text(o.get("text")));
            }
        }
        return text.toString();
    }

    private static String source(JsonObject cell) {
        return text(cell.get("source"));
    }

    /** A notebook's multi-line string: one string, or an array of lines. */
    private static String text(JsonElement value) {
        if (value instanceof JsonArray lines) {
            StringBuilder joined = new StringBuilder();
            lines.forEach(l -> joined.append(l.getAsString()));
            return joined.toString();
        }
        return value.getAsString();
    }

    private static JsonObject read(Path notebook) throws IOException {
        return GSON.fromJson(Files.readString(notebook, StandardCharsets.UTF_8), JsonObject.class);
    }

    private static void jupyter(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(JUPYTER.toString()));
        command.addAll(List.of(args));
        run(command, env);
    }

    private static void run(List<String> command) throws Exception {
        run(command, Map.of());
    }

    /** Runs {@code command}; a failure shows the end of what it printed. */
    private static void run(List<String> command, Map<String, String> env) throws Exception {
        Path log = Files.createTempFile(work, "run", ".log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        checkEnded(command, builder.start().waitFor(), log);
    }

    /** A command that ended with {@code status}, its output in {@code log}: a failure shows the output's end. */
    private static void checkEnded(List<String> command, int status, Path log) throws IOException {
        if (status != 0) {
            List<String> lines = Files.readAllLines(log);
            throw new AssertionError(String.join(" ", command) + " ended with " + status + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
        }
    }

    private static Path notebooksFolder() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("notebooks")) && Files.isRegularFile(dir.resolve("lab"))) {
                return dir.resolve("notebooks");
            }
        }
        throw new AssertionError("no notebooks/ folder above " + Path.of("").toAbsolutePath());
    }
}
