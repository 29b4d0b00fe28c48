package org.multigpulab.jupyter.display;

import java.awt.image.RenderedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.imageio.ImageIO;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * What a cell shows for a value: an XChart chart as {@code image/png} and {@code image/svg+xml}, an image as
 * {@code image/png}, anything else as the text JShell gives it. Stateless.
 */
public final class ChartImages {

    private ChartImages() {}

    /** {@code value} as Jupyter display data; {@code text} is its {@code text/plain} form. */
    public static DisplayData render(Object value, String text) {
        DisplayData data = new DisplayData(text);
        try {
            if (value instanceof Chart<?, ?> chart) {
                data.putText(chart.getClass().getSimpleName() + ": " + chart.getTitle());
                data.putData("image/png", base64(BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG)));
                ByteArrayOutputStream svg = new ByteArrayOutputStream();
                VectorGraphicsEncoder.saveVectorGraphic(chart, svg, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
                // inline SVG starts at the element: an XML declaration breaks nbconvert's HTML export
                String drawn = svg.toString(StandardCharsets.UTF_8);
                data.putSVG(drawn.substring(Math.max(0, drawn.indexOf("<svg"))));
            } else if (value instanceof RenderedImage image) {
                ByteArrayOutputStream png = new ByteArrayOutputStream();
                ImageIO.write(image, "png", png);
                data.putData("image/png", base64(png.toByteArray()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not draw the image in memory", e);
        }
        return data;
    }

    private static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }
}
