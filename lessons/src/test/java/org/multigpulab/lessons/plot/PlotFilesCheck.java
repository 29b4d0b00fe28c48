package org.multigpulab.lessons.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;

/** Checks that a chart's files are a valid, non-blank PNG of the lab's size and a valid SVG with drawing in it. */
public final class PlotFilesCheck {

    private PlotFilesCheck() {}

    public static void assertChart(Path dir, String name) throws Exception {
        assertPng(dir.resolve(name + ".png"));
        assertSvg(dir.resolve(name + ".svg"));
    }

    static void assertPng(Path png) throws IOException {
        assertTrue(Files.isRegularFile(png), png + " exists");
        byte[] head = Files.readAllBytes(png);
        assertEquals((byte) 0x89, head[0]);
        assertEquals("PNG", new String(head, 1, 3, StandardCharsets.US_ASCII), png + " is a PNG");
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(Charts.WIDTH, image.getWidth());
        assertEquals(Charts.HEIGHT, image.getHeight());
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) {
                colours.add(image.getRGB(x, y));
            }
        }
        assertTrue(colours.size() > 10, png + " is not blank: " + colours.size() + " colours");
    }

    static void assertSvg(Path svg) throws Exception {
        assertTrue(Files.isRegularFile(svg), svg + " exists");
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Document doc = factory.newDocumentBuilder().parse(svg.toFile());
        assertEquals("svg", doc.getDocumentElement().getTagName(), svg + " is an SVG document");
        assertTrue(doc.getElementsByTagName("path").getLength() > 10, svg + " draws lines");
    }
}
