package org.multigpulab.device;

import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * Every op of {@link Kernels}, described once. A constant says what the op is: its name in traces, stats and the
 * OpenCL program ({@code conv2d_forward}), and its buffer arguments in the order of the method, each read,
 * written, or updated (read and written back: accumulated into or changed in place). A {@link Call} says what
 * one call of it needs and does: the elements each buffer must hold for the shape, the floating-point operations,
 * the bytes moved, and how to make the same call on other kernels.
 *
 * <p>Everything generic about a kernel call derives from here: {@link InstrumentedKernels}' buffer checks,
 * counts and timing, the {@code sim} backend's read/write hazards and simulated time, the OpenCL backend's kernel
 * table. Adding an op: its method in {@link Kernels}; here a constant, a record of one call, and its line in
 * {@link Wrapper}; then each backend's method (or, for a fused op, a default in {@link Kernels} made of the
 * separate ops), the float64 reference and a case of the conformance kit.
 */
public enum KernelOp {

    // Each op's buffer arguments, in the order of its method in Kernels, and what it does to each.
    CONV2D_FORWARD(reads("x"), reads("w"), writes("y")),
    CONV2D_BACKWARD_DATA(reads("dy"), reads("w"), writes("dx")),
    CONV2D_BACKWARD_FILTER(reads("x"), reads("dy"), writes("dw")),
    BIAS_ADD(updates("y"), reads("b")),
    BIAS_ADD_BACKWARD(reads("dy"), writes("db")),
    AVG_POOL_FORWARD(reads("x"), writes("y")),
    AVG_POOL_BACKWARD(reads("dy"), writes("dx")),
    RELU_FORWARD(reads("x"), writes("y")),
    RELU_BACKWARD(reads("x"), reads("dy"), writes("dx")),
    CONV2D_BIAS_FORWARD(reads("x"), reads("w"), reads("b"), writes("y")),
    RELU_AVG_POOL_FORWARD(reads("x"), writes("y")),
    RELU_AVG_POOL_BACKWARD(reads("x"), reads("dy"), writes("dx")),
    CONV2D_BIAS_RELU_AVG_POOL_FORWARD(reads("x"), reads("w"), reads("b"), writes("y")),
    CONV2D_BIAS_RELU_AVG_POOL_BACKWARD(reads("x"), reads("w"), reads("b"), reads("dy"), writes("dw"), writes("db")),
    /** Reads {@code c} only when {@code beta ≠ 0} (see {@link Gemm#reads}). */
    GEMM(reads("a"), reads("b"), updates("c")),
    SOFTMAX_XENT_FORWARD(reads("logits"), reads("labels"), writes("loss")),
    SOFTMAX_XENT_BACKWARD(reads("logits"), reads("labels"), writes("dlogits")),
    AXPY(reads("x"), updates("y")),
    SCALE(updates("x")),
    ADD(reads("a"), reads("b"), writes("out")),
    FILL(writes("x")),
    ARGMAX_MATCHES(reads("logits"), reads("labels"), writes("count"));

    /** One buffer argument of an op: its name in the method and in error messages, and what the op does to it. */
    public record Arg(String role, boolean reads, boolean writes) {}

    private static Arg reads(String role) {
        return new Arg(role, true, false);
    }

    private static Arg writes(String role) {
        return new Arg(role, false, true);
    }

    private static Arg updates(String role) {
        return new Arg(role, true, true);
    }

    private final String kernelName;
    private final List<Arg> args;

    KernelOp(Arg... args) {
        this.kernelName = name().toLowerCase(Locale.ROOT);
        this.args = List.of(args);
    }

    /** The op's name in traces, stats and the OpenCL program: {@code conv2d_forward}. */
    public String kernelName() {
        return kernelName;
    }

    /** The buffer arguments, in the order of the {@link Kernels} method. */
    public List<Arg> args() {
        return args;
    }

    /**
     * One call of an op with its arguments: a value, made per launch by {@link Wrapper}. It holds the buffers,
     * so it is kept no longer than until it has run ({@code sim} queues it until then). Buffer {@code i} is the
     * {@code i}-th of {@link KernelOp#args()}.
     */
    public sealed interface Call {

        KernelOp op();

        /** Buffer argument {@code i}, in the order of {@link KernelOp#args()}. */
        Buffer buffer(int i);

        /** How many elements buffer {@code i} must hold for the shape of this call. */
        long needed(int i);

        /** Floating-point operations this call does. */
        long flops();

        /**
         * Makes the same call on {@code kernels}, with {@code map.apply(b)} in place of each buffer {@code b}
         * ({@code sim} passes the buffers underneath its logical ones).
         */
        void launch(Kernels kernels, UnaryOperator<Buffer> map);

        /** Makes the same call on {@code kernels}. */
        default void launch(Kernels kernels) {
            launch(kernels, UnaryOperator.identity());
        }

        /** Whether this call reads buffer {@code i}. */
        default boolean reads(int i) {
            return op().args.get(i).reads();
        }

        /** Whether this call writes buffer {@code i}. */
        default boolean writes(int i) {
            return op().args.get(i).writes();
        }

        /**
         * The calls of the separate ops a fused one stands for ({@code relu_forward} then {@code avg_pool_forward}
         * for {@code relu_avg_pool_forward}), for a cost model of software that launches them apart, as the
         * notebook's PyTorch does; for any other op, this call alone. They are for costing, never launched: the
         * intermediate tensor they pass, which the fused op never stores, is {@code null}.
         */
        default List<Call> unfused() {
            return List.of(this);
        }

        /**
         * The bytes this call must read and write at least: each element it reads read once, each it writes
         * written once. Every backend reports the same figures, because they come from the shapes, not from a
         * measurement; a cost model turns them into time.
         */
        default long bytes() {
            long elements = 0;
            for (int i = 0; i < op().args.size(); i++) {
                elements += needed(i) * ((reads(i) ? 1 : 0) + (writes(i) ? 1 : 0));
            }
            return Float.BYTES * elements;
        }
    }

    // One record per op, in the order of Kernels: the elements each buffer needs, the FLOPs, and the call itself.
    // Short methods sit on one line, so that an op's description reads as one block.

    public record Conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) implements Call {
        @Override
        public KernelOp op() {
            return CONV2D_FORWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x, w, y);
        }

        @Override
        public long needed(int i) {
            return pick(i, s.inputLength(), s.filterLength(), s.outputLength());
        }

        @Override
        public long flops() {
            return s.flops();
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.conv2dForward(m.apply(x), m.apply(w), m.apply(y), s);
        }
    }

    public record Conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) implements Call {
        @Override
        public KernelOp op() {
            return CONV2D_BACKWARD_DATA;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, dy, w, dx);
        }

        @Override
        public long needed(int i) {
            return pick(i, s.outputLength(), s.filterLength(), s.inputLength());
        }

        @Override
        public long flops() {
            return s.flops();
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.conv2dBackwardData(m.apply(dy), m.apply(w), m.apply(dx), s);
        }
    }

    public record Conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) implements Call {
        @Override
        public KernelOp op() {
            return CONV2D_BACKWARD_FILTER;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x, dy, dw);
        }

        @Override
        public long needed(int i) {
            return pick(i, s.inputLength(), s.outputLength(), s.filterLength());
        }

        @Override
        public long flops() {
            return s.flops();
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.conv2dBackwardFilter(m.apply(x), m.apply(dy), m.apply(dw), s);
        }
    }

    public record BiasAdd(Buffer y, Buffer b, BiasShape s) implements Call {
        @Override
        public KernelOp op() {
            return BIAS_ADD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, y, b);
        }

        @Override
        public long needed(int i) {
            return pick(i, s.length(), s.channels());
        }

        @Override
        public long flops() {
            return s.length();
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.biasAdd(m.apply(y), m.apply(b), s);
        }
    }

    public record BiasAddBackward(Buffer dy, Buffer db, BiasShape s) implements Call {
        @Override
        public KernelOp op() {
            return BIAS_ADD_BACKWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, dy, db);
        }

        @Override
        public long needed(int i) {
            return pick(i, s.length(), s.channels());
        }

        @Override
        public long flops() {
            return s.length();
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.biasAddBackward(m.apply(dy), m.apply(db), s);
        }
    }

    public record AvgPoolForward(Buffer x, Buffer y, PoolShape s) implements Call {
        @Override
        public KernelOp op() {
            return AVG_POOL_FORWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x, y);
        }

        @Override
        public long needed(int i) {
            return pick(i, s.inputLength(), s.outputLength());
        }

        @Override
        public long flops() {
            return (long) s.outputLength() * s.window() * s.window();
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.avgPoolForward(m.apply(x), m.apply(y), s);
        }
    }

    public record AvgPoolBackward(Buffer dy, Buffer dx, PoolShape s) implements Call {
        @Override
        public KernelOp op() {
            return AVG_POOL_BACKWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, dy, dx);
        }

        @Override
        public long needed(int i) {
            return pick(i, s.outputLength(), s.inputLength());
        }

        @Override
        public long flops() {
            return (long) s.outputLength() * s.window() * s.window();
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.avgPoolBackward(m.apply(dy), m.apply(dx), s);
        }
    }

    public record ReluForward(Buffer x, Buffer y, int n) implements Call {
        public ReluForward {
            count(RELU_FORWARD, n);
        }

        @Override
        public KernelOp op() {
            return RELU_FORWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x, y);
        }

        @Override
        public long needed(int i) {
            return n;
        }

        @Override
        public long flops() {
            return n;
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.reluForward(m.apply(x), m.apply(y), n);
        }
    }

    public record ReluBackward(Buffer x, Buffer dy, Buffer dx, int n) implements Call {
        public ReluBackward {
            count(RELU_BACKWARD, n);
        }

        @Override
        public KernelOp op() {
            return RELU_BACKWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x, dy, dx);
        }

        @Override
        public long needed(int i) {
            return n;
        }

        @Override
        public long flops() {
            return n;
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.reluBackward(m.apply(x), m.apply(dy), m.apply(dx), n);
        }
    }

    public record Conv2dBiasForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvShape s) implements Call {
        @Override
        public KernelOp op() {
            return CONV2D_BIAS_FORWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x, w, b, y);
        }

        @Override
        public long needed(int i) {
            return pick(i, s.inputLength(), s.filterLength(), s.outChannels(), s.outputLength());
        }

        @Override
        public long flops() {
            return unfused().stream().mapToLong(Call::flops).sum();
        }

        @Override
        public List<Call> unfused() {
            return List.of(new Conv2dForward(x, w, y, s), new BiasAdd(y, b, s.bias()));
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.conv2dBiasForward(m.apply(x), m.apply(w), m.apply(b), m.apply(y), s);
        }
    }

    public record ReluAvgPoolForward(Buffer x, Buffer y, PoolShape s) implements Call {
        @Override
        public KernelOp op() {
            return RELU_AVG_POOL_FORWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x, y);
        }

        @Override
        public long needed(int i) {
            return pick(i, s.inputLength(), s.outputLength());
        }

        @Override
        public long flops() {
            return unfused().stream().mapToLong(Call::flops).sum();
        }

        @Override
        public List<Call> unfused() {
            return List.of(new ReluForward(x, null, s.inputLength()), new AvgPoolForward(null, y, s));
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.reluAvgPoolForward(m.apply(x), m.apply(y), s);
        }
    }

    public record ReluAvgPoolBackward(Buffer x, Buffer dy, Buffer dx, PoolShape s) implements Call {
        @Override
        public KernelOp op() {
            return RELU_AVG_POOL_BACKWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x, dy, dx);
        }

        @Override
        public long needed(int i) {
            return pick(i, s.inputLength(), s.outputLength(), s.inputLength());
        }

        @Override
        public long flops() {
            return unfused().stream().mapToLong(Call::flops).sum();
        }

        @Override
        public List<Call> unfused() {
            return List.of(new AvgPoolBackward(dy, null, s), new ReluBackward(x, null, dx, s.inputLength()));
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.reluAvgPoolBackward(m.apply(x), m.apply(dy), m.apply(dx), s);
        }
    }

    public record Conv2dBiasReluAvgPoolForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvPoolShape s)
            implements Call {
        @Override
        public KernelOp op() {
            return CONV2D_BIAS_RELU_AVG_POOL_FORWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x, w, b, y);
        }

        @Override
        public long needed(int i) {
            ConvShape c = s.conv();
            return pick(i, c.inputLength(), c.filterLength(), c.outChannels(), s.outputLength());
        }

        /** The FLOPs of the separate ops: the model's arithmetic. */
        @Override
        public long flops() {
            return unfused().stream().mapToLong(Call::flops).sum();
        }

        @Override
        public List<Call> unfused() {
            return List.of(
                    new Conv2dForward(x, w, null, s.conv()),
                    new BiasAdd(null, b, s.conv().bias()),
                    new ReluForward(null, null, s.conv().outputLength()),
                    new AvgPoolForward(null, y, s.pool()));
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.conv2dBiasReluAvgPoolForward(m.apply(x), m.apply(w), m.apply(b), m.apply(y), s);
        }
    }

    public record Conv2dBiasReluAvgPoolBackward(
            Buffer x, Buffer w, Buffer b, Buffer dy, Buffer dw, Buffer db, ConvPoolShape s) implements Call {
        @Override
        public KernelOp op() {
            return CONV2D_BIAS_RELU_AVG_POOL_BACKWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return i < 3 ? pick(i, x, w, b) : pick(i - 3, dy, dw, db);
        }

        @Override
        public long needed(int i) {
            ConvShape c = s.conv();
            return i < 3
                    ? pick(i, c.inputLength(), c.filterLength(), c.outChannels())
                    : pick(i - 3, s.outputLength(), c.filterLength(), c.outChannels());
        }

        /**
         * The FLOPs of the backward ops the notebook's PyTorch runs (pooling's and ReLU's gradients, the filter's
         * and the bias's): the model's arithmetic, without the forward pass a backend computes again where
         * PyTorch keeps it.
         */
        @Override
        public long flops() {
            return unfused().stream().mapToLong(Call::flops).sum();
        }

        @Override
        public List<Call> unfused() {
            int n = s.conv().outputLength();
            return List.of(
                    new AvgPoolBackward(dy, null, s.pool()),
                    new ReluBackward(null, null, null, n),
                    new Conv2dBackwardFilter(x, null, dw, s.conv()),
                    new BiasAddBackward(null, db, s.conv().bias()));
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.conv2dBiasReluAvgPoolBackward(
                    m.apply(x), m.apply(w), m.apply(b), m.apply(dy), m.apply(dw), m.apply(db), s);
        }
    }

    public record Gemm(
            boolean transA, boolean transB, int m, int n, int k, float alpha, Buffer a, Buffer b, float beta, Buffer c)
            implements Call {
        public Gemm {
            if (m <= 0 || n <= 0 || k <= 0) {
                throw new DeviceException("gemm: m, n and k must be positive, got " + m + ", " + n + ", " + k);
            }
        }
        /** The FLOPs of {@code op(a)·op(b)} for {@code a} of {@code m × k}: a multiply and an add per term. */
        public static long flops(int m, int n, int k) {
            return 2L * m * n * k;
        }

        @Override
        public KernelOp op() {
            return GEMM;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, a, b, c);
        }

        @Override
        public long needed(int i) {
            return pick(i, (long) m * k, (long) k * n, (long) m * n);
        }

        @Override
        public long flops() {
            return flops(m, n, k);
        }
        /** With {@code beta == 0} the old contents of {@code c} are not read. */
        @Override
        public boolean reads(int i) {
            return i < 2 || beta != 0;
        }

        @Override
        public void launch(Kernels kernels, UnaryOperator<Buffer> map) {
            kernels.gemm(transA, transB, m, n, k, alpha, map.apply(a), map.apply(b), beta, map.apply(c));
        }
    }

    public record SoftmaxCrossEntropyForward(Buffer logits, Buffer labels, Buffer loss, int batch, int classes)
            implements Call {
        @Override
        public KernelOp op() {
            return SOFTMAX_XENT_FORWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, logits, labels, loss);
        }

        @Override
        public long needed(int i) {
            return pick(i, (long) batch * classes, batch, batch);
        }

        @Override
        public long flops() {
            return 4L * batch * classes;
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.softmaxCrossEntropyForward(m.apply(logits), m.apply(labels), m.apply(loss), batch, classes);
        }
    }

    public record SoftmaxCrossEntropyBackward(Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes)
            implements Call {
        @Override
        public KernelOp op() {
            return SOFTMAX_XENT_BACKWARD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, logits, labels, dlogits);
        }

        @Override
        public long needed(int i) {
            return pick(i, (long) batch * classes, batch, (long) batch * classes);
        }

        @Override
        public long flops() {
            return 4L * batch * classes;
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.softmaxCrossEntropyBackward(m.apply(logits), m.apply(labels), m.apply(dlogits), batch, classes);
        }
    }

    public record Axpy(float alpha, Buffer x, Buffer y, int n) implements Call {
        public Axpy {
            count(AXPY, n);
        }

        @Override
        public KernelOp op() {
            return AXPY;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x, y);
        }

        @Override
        public long needed(int i) {
            return n;
        }

        @Override
        public long flops() {
            return 2L * n;
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.axpy(alpha, m.apply(x), m.apply(y), n);
        }
    }

    public record Scale(float alpha, Buffer x, int n) implements Call {
        public Scale {
            count(SCALE, n);
        }

        @Override
        public KernelOp op() {
            return SCALE;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x);
        }

        @Override
        public long needed(int i) {
            return n;
        }

        @Override
        public long flops() {
            return n;
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.scale(alpha, m.apply(x), n);
        }
    }

    public record Add(Buffer a, Buffer b, Buffer out, int n) implements Call {
        public Add {
            count(ADD, n);
        }

        @Override
        public KernelOp op() {
            return ADD;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, a, b, out);
        }

        @Override
        public long needed(int i) {
            return n;
        }

        @Override
        public long flops() {
            return n;
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.add(m.apply(a), m.apply(b), m.apply(out), n);
        }
    }

    public record Fill(float value, Buffer x, int n) implements Call {
        public Fill {
            count(FILL, n);
        }

        @Override
        public KernelOp op() {
            return FILL;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, x);
        }

        @Override
        public long needed(int i) {
            return n;
        }

        @Override
        public long flops() {
            return 0;
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.fill(value, m.apply(x), n);
        }
    }

    public record ArgmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes) implements Call {
        @Override
        public KernelOp op() {
            return ARGMAX_MATCHES;
        }

        @Override
        public Buffer buffer(int i) {
            return pick(i, logits, labels, count);
        }

        @Override
        public long needed(int i) {
            return pick(i, (long) batch * classes, batch, 1);
        }

        @Override
        public long flops() {
            return (long) batch * classes;
        }

        @Override
        public void launch(Kernels k, UnaryOperator<Buffer> m) {
            k.argmaxMatches(m.apply(logits), m.apply(labels), m.apply(count), batch, classes);
        }
    }

    /**
     * The base of kernels in front of other kernels ({@link InstrumentedKernels}, {@code sim}'s): every method
     * makes the op's {@link Call} and hands it to {@link #call}, so a subclass handles all ops at once.
     */
    public abstract static class Wrapper implements Kernels {

        /** Handles one call: typically looks at it, then makes it on the kernels behind with {@link Call#launch}. */
        protected abstract void call(Call call);

        @Override
        public final void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
            call(new Conv2dForward(x, w, y, s));
        }

        @Override
        public final void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
            call(new Conv2dBackwardData(dy, w, dx, s));
        }

        @Override
        public final void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) {
            call(new Conv2dBackwardFilter(x, dy, dw, s));
        }

        @Override
        public final void biasAdd(Buffer y, Buffer b, BiasShape s) {
            call(new BiasAdd(y, b, s));
        }

        @Override
        public final void biasAddBackward(Buffer dy, Buffer db, BiasShape s) {
            call(new BiasAddBackward(dy, db, s));
        }

        @Override
        public final void avgPoolForward(Buffer x, Buffer y, PoolShape s) {
            call(new AvgPoolForward(x, y, s));
        }

        @Override
        public final void avgPoolBackward(Buffer dy, Buffer dx, PoolShape s) {
            call(new AvgPoolBackward(dy, dx, s));
        }

        @Override
        public final void reluForward(Buffer x, Buffer y, int n) {
            call(new ReluForward(x, y, n));
        }

        @Override
        public final void reluBackward(Buffer x, Buffer dy, Buffer dx, int n) {
            call(new ReluBackward(x, dy, dx, n));
        }

        @Override
        public final void conv2dBiasForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvShape s) {
            call(new Conv2dBiasForward(x, w, b, y, s));
        }

        @Override
        public final void reluAvgPoolForward(Buffer x, Buffer y, PoolShape s) {
            call(new ReluAvgPoolForward(x, y, s));
        }

        @Override
        public final void reluAvgPoolBackward(Buffer x, Buffer dy, Buffer dx, PoolShape s) {
            call(new ReluAvgPoolBackward(x, dy, dx, s));
        }

        @Override
        public final void conv2dBiasReluAvgPoolForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvPoolShape s) {
            call(new Conv2dBiasReluAvgPoolForward(x, w, b, y, s));
        }

        @Override
        public final void conv2dBiasReluAvgPoolBackward(
                Buffer x, Buffer w, Buffer b, Buffer dy, Buffer dw, Buffer db, ConvPoolShape s) {
            call(new Conv2dBiasReluAvgPoolBackward(x, w, b, dy, dw, db, s));
        }

        @Override
        public final void gemm(
                boolean transA,
                boolean transB,
                int m,
                int n,
                int k,
                float alpha,
                Buffer a,
                Buffer b,
                float beta,
                Buffer c) {
            call(new Gemm(transA, transB, m, n, k, alpha, a, b, beta, c));
        }

        @Override
        public final void softmaxCrossEntropyForward(
                Buffer logits, Buffer labels, Buffer loss, int batch, int classes) {
            call(new SoftmaxCrossEntropyForward(logits, labels, loss, batch, classes));
        }

        @Override
        public final void softmaxCrossEntropyBackward(
                Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes) {
            call(new SoftmaxCrossEntropyBackward(logits, labels, dlogits, batch, classes));
        }

        @Override
        public final void axpy(float alpha, Buffer x, Buffer y, int n) {
            call(new Axpy(alpha, x, y, n));
        }

        @Override
        public final void scale(float alpha, Buffer x, int n) {
            call(new Scale(alpha, x, n));
        }

        @Override
        public final void add(Buffer a, Buffer b, Buffer out, int n) {
            call(new Add(a, b, out, n));
        }

        @Override
        public final void fill(float value, Buffer x, int n) {
            call(new Fill(value, x, n));
        }

        @Override
        public final void argmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes) {
            call(new ArgmaxMatches(logits, labels, count, batch, classes));
        }
    }

    private static void count(KernelOp op, int n) {
        if (n < 0) {
            throw new DeviceException(op.kernelName + ": element count must not be negative, got " + n);
        }
    }

    private static <T> T pick(int i, T first) {
        return pick(i, first, null, null);
    }

    private static <T> T pick(int i, T first, T second) {
        return pick(i, first, second, null);
    }

    private static <T> T pick(int i, T first, T second, T third) {
        return pick(i, first, second, third, null);
    }

    private static <T> T pick(int i, T first, T second, T third, T fourth) {
        return switch (i) {
            case 0 -> first;
            case 1 -> second;
            case 2 -> third;
            case 3 -> fourth;
            default -> throw new IndexOutOfBoundsException(i);
        };
    }

    private static long pick(int i, long first, long second) {
        return pick(i, first, second, 0);
    }

    private static long pick(int i, long first, long second, long third) {
        return pick(i, first, second, third, 0);
    }

    private static long pick(int i, long first, long second, long third, long fourth) {
        return switch (i) {
            case 0 -> first;
            case 1 -> second;
            case 2 -> third;
            case 3 -> fourth;
            default -> throw new IndexOutOfBoundsException(i);
        };
    }
}
