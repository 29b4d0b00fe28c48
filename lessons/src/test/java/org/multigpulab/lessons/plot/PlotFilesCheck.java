package org.multigpulab.lessons.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Checks a chart's files: a valid PNG of the lab's size and a valid SVG, both with at least one series drawn in
 * the plot area (an empty chart fails), and, given the run's numbers, that the SVG's series carry them.
 *
 * <p>XChart's SVG draws the plot area inside clipped groups; in them every series is drawn in its own colour, at
 * partial opacity: a line series as one {@code <ellipse>} marker per point, a bar series as one rectangular
 * {@code <path>} per bar. The points, grouped by colour in the order drawn, are the series in the chart's order.
 */
public final class PlotFilesCheck {

    /**
     * How far a drawn point may lie from where its value belongs: half a pixel, what a reader can tell apart
     * (0.2% of a 300-pixel axis). XChart writes coordinates with full double precision, so a point drawn for its
     * value misses by rounding only (about 1e-9 pixels).
     */
    static final double PIXELS = 0.5;

    private static final Pattern FILL = Pattern.compile("fill:rgb\\((\\d+),(\\d+),(\\d+)\\);fill-opacity:");
    private static final Pattern NUMBER = Pattern.compile("-?[0-9.]+(?:E-?\\d+)?");

    /** One series as drawn: its colour and each point's x and y in pixels (for a bar: its top). */
    record Series(Color colour, List<double[]> points) {}

    private PlotFilesCheck() {}

    /** The files of chart {@code name} are valid and show at least one series. */
    public static void assertChart(Path dir, String name) throws Exception {
        List<Series> series = assertSvg(dir.resolve(name + ".svg"));
        assertPng(dir.resolve(name + ".png"), series);
    }

    /**
     * {@link #assertChart}, and the chart's series are {@code expected}, in order: each point drawn where its
     * value belongs on axes shared by the series (one linear map from values to pixels per axis, fitted to all the
     * points on it; a curve's {@link Curve#axis()} says which y axis), within {@link #PIXELS}. Bars are checked by their heights only; their x is a category.
     */
    public static void assertSeries(Path dir, String name, List<Curve> expected) throws Exception {
        assertChart(dir, name);
        List<Series> drawn = series(dir.resolve(name + ".svg"));
        assertEquals(expected.size(), drawn.size(), name + ": series drawn");
        List<double[]> xs = new ArrayList<>();
        Map<Curve.YAxis, List<double[]>> ys = new LinkedHashMap<>();
        for (int s = 0; s < expected.size(); s++) {
            Curve curve = expected.get(s);
            List<double[]> points = drawn.get(s).points();
            assertEquals(curve.xs().size(), points.size(), name + ": points of " + curve.label());
            for (int i = 0; i < points.size(); i++) {
                xs.add(new double[] {curve.xs().get(i), points.get(i)[0]});
                ys.computeIfAbsent(curve.axis(), a -> new ArrayList<>())
                        .add(new double[] {curve.ys().get(i), points.get(i)[1]});
            }
        }
        ys.forEach((axis, pairs) -> assertLinear(pairs, name + " y (" + axis + " axis)", -1));
        if (!isBars(dir.resolve(name + ".svg"))) {
            assertLinear(xs, name + " x", 1);
        }
    }

    /** Pairs (value, pixel) lie on one line of the given slope sign, within {@link #PIXELS}. */
    private static void assertLinear(List<double[]> pairs, String what, int sign) {
        double n = pairs.size(), mv = 0, mp = 0;
        for (double[] p : pairs) {
            mv += p[0] / n;
            mp += p[1] / n;
        }
        double svv = 0, svp = 0;
        for (double[] p : pairs) {
            svv += (p[0] - mv) * (p[0] - mv);
            svp += (p[0] - mv) * (p[1] - mp);
        }
        double slope = svv == 0 ? 0 : svp / svv;
        if (svv != 0) {
            assertEquals(sign, Math.signum(slope), what + ": larger values drawn the other way, slope " + slope);
        }
        for (double[] p : pairs) {
            double at = mp + slope * (p[0] - mv);
            assertEquals(at, p[1], PIXELS, what + ": value " + p[0] + " drawn at " + p[1] + " px, belongs at " + at);
        }
    }

    static void assertPng(Path png, List<Series> series) throws IOException {
        assertTrue(Files.isRegularFile(png), png + " exists");
        byte[] head = Files.readAllBytes(png);
        assertEquals((byte) 0x89, head[0]);
        assertEquals("PNG", new String(head, 1, 3, StandardCharsets.US_ASCII), png + " is a PNG");
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(Charts.WIDTH, image.getWidth());
        assertEquals(Charts.HEIGHT, image.getHeight());
        // a marker of radius 4 covers about 50 pixels, a bar more; markers and lines blend where they cross, so
        // count coloured pixels (the series' palette; the empty plot area is white, grey and black) near the points
        int seen = 0;
        for (Series s : series) {
            for (double[] p : s.points()) {
                seen += colouredAround(image, (int) Math.round(p[0]), (int) Math.round(p[1]));
            }
        }
        assertTrue(seen >= 20, png + ": series drawn, " + seen + " coloured pixels at their points");
    }

    private static int colouredAround(BufferedImage image, int cx, int cy) {
        int count = 0;
        for (int y = Math.max(0, cy - 5); y <= Math.min(image.getHeight() - 1, cy + 5); y++) {
            for (int x = Math.max(0, cx - 5); x <= Math.min(image.getWidth() - 1, cx + 5); x++) {
                Color c = new Color(image.getRGB(x, y));
                int max = Math.max(c.getRed(), Math.max(c.getGreen(), c.getBlue()));
                int min = Math.min(c.getRed(), Math.min(c.getGreen(), c.getBlue()));
                count += max - min > 40 ? 1 : 0;
            }
        }
        return count;
    }

    /** The SVG is a document with at least one series in its plot area; returns the series. */
    static List<Series> assertSvg(Path svg) throws Exception {
        assertTrue(Files.isRegularFile(svg), svg + " exists");
        assertEquals("svg", parse(svg).getDocumentElement().getTagName(), svg + " is an SVG document");
        List<Series> series = series(svg);
        assertFalse(series.isEmpty(), svg + " draws no series: an empty chart");
        return series;
    }

    /** The series drawn in the plot area of {@code svg}, in the order drawn. */
    static List<Series> series(Path svg) throws Exception {
        Map<String, Series> byColour = new LinkedHashMap<>();
        collect(parse(svg).getDocumentElement(), false, byColour);
        return List.copyOf(byColour.values());
    }

    private static boolean isBars(Path svg) throws Exception {
        return parse(svg).getElementsByTagName("ellipse").getLength() == 0;
    }

    private static Document parse(Path svg) throws Exception {
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return factory.newDocumentBuilder().parse(svg.toFile());
    }

    /** Series points of {@code node} and below; {@code plot}: inside a clipped group, XChart's plot area. */
    private static void collect(Node node, boolean plot, Map<String, Series> byColour) {
        if (node instanceof Element e && e.getTagName().equals("g") && e.hasAttribute("clip-path")) {
            plot = true;
        }
        if (plot && node instanceof Element e) {
            Matcher fill = FILL.matcher(e.getAttribute("style"));
            double[] point = switch (e.getTagName()) {
                case "ellipse" -> new double[] {num(e, "cx"), num(e, "cy")};
                case "path" -> barTop(e.getAttribute("d"));
                default -> null;
            };
            if (point != null && fill.find()) {
                Color colour = new Color(
                        Integer.parseInt(fill.group(1)),
                        Integer.parseInt(fill.group(2)),
                        Integer.parseInt(fill.group(3)));
                byColour.computeIfAbsent(colour.toString(), c -> new Series(colour, new ArrayList<>()))
                        .points()
                        .add(point);
            }
        }
        NodeList children = node.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            collect(children.item(i), plot, byColour);
        }
    }

    /** A bar, {@code M x0,y0 L x1,y1 L x2,y2 L x3,y3 Z}: its centre x and its top y; null for other shapes. */
    private static double[] barTop(String d) {
        if (!d.matches("M[^MQCZ]*Z")) {
            return null;
        }
        List<Double> v = new ArrayList<>();
        Matcher m = NUMBER.matcher(d);
        while (m.find()) {
            v.add(Double.parseDouble(m.group()));
        }
        if (v.size() != 8) {
            return null;
        }
        double left = Math.min(v.get(0), v.get(2)), right = Math.max(v.get(0), v.get(2));
        double top = Math.min(Math.min(v.get(1), v.get(3)), Math.min(v.get(5), v.get(7)));
        return new double[] {(left + right) / 2, top};
    }

    private static double num(Element e, String attribute) {
        return Double.parseDouble(e.getAttribute(attribute));
    }
}
