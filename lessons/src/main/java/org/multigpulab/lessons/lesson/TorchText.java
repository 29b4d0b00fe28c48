package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/** Prints tensors the way PyTorch does in the notebook, so the lesson's lines read like its output. */
final class TorchText {

    private static final int WIDTH = 80;

    private TorchText() {}

    /**
     * {@code tensor([[1., 1.]], device='sim:0')} for whole-valued floats; rows of a 2-D tensor on their own
     * lines; {@code requires_grad=True} when asked.
     */
    static String floats(float[] values, int[] shape, String device, boolean requiresGrad) {
        List<String> items = new ArrayList<>();
        for (float v : values) {
            items.add(v == Math.rint(v) ? (int) v + "." : Float.toString(v));
        }
        return tensor(items, shape, device, requiresGrad);
    }

    /** {@code tensor([[ 0,  1, ...]])}: integers, right-aligned to the widest. */
    static String ints(float[] values, int[] shape, String device) {
        int width = 0;
        for (float v : values) {
            width = Math.max(width, Integer.toString((int) v).length());
        }
        List<String> items = new ArrayList<>();
        for (float v : values) {
            items.add(String.format("%" + width + "d", (int) v));
        }
        return tensor(items, shape, device, false);
    }

    private static String tensor(List<String> items, int[] shape, String device, boolean requiresGrad) {
        String indent = "        ";
        StringBuilder body = new StringBuilder();
        if (shape.length == 1) {
            body.append(wrap(items, "tensor([".length()));
        } else {
            int cols = shape[shape.length - 1];
            StringJoiner rows = new StringJoiner(",\n" + indent, "[", "]");
            for (int r = 0; r < items.size() / cols; r++) {
                rows.add("[" + String.join(", ", items.subList(r * cols, (r + 1) * cols)) + "]");
            }
            body.append(rows);
        }
        StringBuilder suffix = new StringBuilder();
        if (device != null) {
            suffix.append(", device='").append(device).append("'");
        }
        if (requiresGrad) {
            suffix.append(", requires_grad=True");
        }
        String text = "tensor(" + (shape.length == 1 ? "[" + body + "]" : body.toString());
        String lastLine = text.substring(text.lastIndexOf('\n') + 1);
        if (!suffix.isEmpty() && lastLine.length() + suffix.length() > WIDTH) {
            text += ",\n       " + suffix.substring(2);
        } else {
            text += suffix;
        }
        return text + ")";
    }

    private static String wrap(List<String> items, int indent) {
        StringBuilder out = new StringBuilder();
        int line = indent;
        for (int i = 0; i < items.size(); i++) {
            String item = items.get(i) + (i < items.size() - 1 ? "," : "");
            if (line + item.length() + 1 > WIDTH && i > 0) {
                out.append("\n").append(" ".repeat(indent));
                line = indent;
            } else if (i > 0) {
                out.append(" ");
                line++;
            }
            out.append(item);
            line += item.length();
        }
        return out.toString();
    }
}
