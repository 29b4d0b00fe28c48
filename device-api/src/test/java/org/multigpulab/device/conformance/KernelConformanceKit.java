package org.multigpulab.device.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.multigpulab.device.conformance.Reference.wide;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvPoolShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceStats;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.KernelOp.Add;
import org.multigpulab.device.KernelOp.ArgmaxMatches;
import org.multigpulab.device.KernelOp.AvgPoolBackward;
import org.multigpulab.device.KernelOp.AvgPoolForward;
import org.multigpulab.device.KernelOp.Axpy;
import org.multigpulab.device.KernelOp.BiasAdd;
import org.multigpulab.device.KernelOp.BiasAddBackward;
import org.multigpulab.device.KernelOp.Conv2dBackwardData;
import org.multigpulab.device.KernelOp.Conv2dBackwardFilter;
import org.multigpulab.device.KernelOp.Conv2dBiasForward;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolForward;
import org.multigpulab.device.KernelOp.Conv2dForward;
import org.multigpulab.device.KernelOp.Fill;
import org.multigpulab.device.KernelOp.Gemm;
import org.multigpulab.device.KernelOp.ReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.ReluAvgPoolForward;
import org.multigpulab.device.KernelOp.ReluBackward;
import org.multigpulab.device.KernelOp.ReluForward;
import org.multigpulab.device.KernelOp.Scale;
import org.multigpulab.device.KernelOp.SoftmaxCrossEntropyBackward;
import org.multigpulab.device.KernelOp.SoftmaxCrossEntropyForward;
import org.multigpulab.device.KernelStream;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;
import org.opentest4j.TestAbortedException;

/**
 * The conformance kit: what every backend's device must do, checked on fresh random inputs each run. Every
 * failure names the random seed, and {@code -Dkit.seed=N} replays it. A backend's test extends this class and
 * says how to open a device. Everything runs twice: with each tensor in a buffer of its own, and with each as a
 * slice at a random offset inside a larger buffer whose other elements must stay untouched, as training keeps
 * every gradient in a slice of one buffer.
 *
 * <ul>
 *   <li>Every op of {@link KernelOp}, in its case of {@link #sample}, against {@link Reference#outputs}; then each
 *       kernel on more shapes against {@link Reference} in float64: the largest absolute error must stay within
 *       {@link #TOLERANCE} times the largest magnitude of the reference result.</li>
 *   <li>Every backward kernel against a central finite difference of the backend's own forward kernel along
 *       a random direction, within {@link #FD_TOLERANCE} relative.</li>
 *   <li>Edge shapes: batch 1, odd sizes, a filter as large as the image, overlapping pooling windows; shapes
 *       large enough to be split over cores; LeNet's own layers at the shard sizes training gives a device.</li>
 *   <li>Operations whose result is exactly representable (ReLU, pooling's 2×2 routing, copies, fill, add,
 *       scale, argmax) exactly; softmax cross-entropy on logits of ±100 and ±1000 and on equal logits.</li>
 *   <li>One whole training step of a small CNN equal to the float64 reference step.</li>
 * </ul>
 */
@ParameterizedClass(name = "{0}")
@EnumSource(KernelConformanceKit.Layout.class)
public abstract class KernelConformanceKit {

    /** Where the kit puts the tensors a kernel reads and writes. */
    public enum Layout {
        /** Each tensor in a buffer of its own, from its first element. */
        WHOLE,
        /** Each tensor a slice at a random offset inside a larger buffer, guard elements on both sides. */
        SLICED
    }

    /** What the guard elements around a slice hold: a kernel reading one of them gets far off the reference. */
    private static final float GUARD = 1e6f;
    /** Shard sizes training gives one device: a batch of 256 whole, over 2 and 3 devices, and one image. */
    static final int[] SHARDS = {256, 128, 86, 85, 1};

    /** Kernel results: max |got − ref| ≤ TOLERANCE · max |ref| (float32 sums of up to ~10⁴ terms). */
    public static final double TOLERANCE = 1e-4;
    /**
     * Backward kernels against finite differences: relative error of the directional derivative, of at least 1e-3
     * (a difference of the device's own float32 forward pass is good to a few 1e-6: seed 49712412586697 put a
     * pooling's −1.34e-4 at −1.31e-4).
     */
    public static final double FD_TOLERANCE = 1e-2;
    /**
     * What float32 rounding may add to that error, as a share of {@code Σ|grad_i·v_i|}: each element of a backward
     * kernel's result sums up to thousands of float32 products, so {@code <grad, v>} is only good to about 1e-7 of
     * that sum, and when its terms cancel the result alone is no scale (seed 45095462947578 gave −0.00708 against
     * −0.00721 from terms whose magnitudes sum to 2,572). One wrong element moves the sum by far more: about
     * {@code 1/n} of it, n ≤ 7,000 here.
     */
    public static final double FD_ROUNDING = 1e-6;

    @Parameter
    Layout layout;

    protected Device device;
    protected Kernels k;
    private long seed;
    private Random random;
    private final List<Guarded> guarded = new ArrayList<>();

    /** A slice handed to a kernel, and the buffer around it whose other elements hold {@link #GUARD}. */
    private record Guarded(Buffer whole, int offset, int length) {}

    /** Every failure in a test names the layout and the seed that reproduce it. */
    @RegisterExtension
    final TestExecutionExceptionHandler seedInFailures = (context, thrown) -> {
        if (thrown instanceof TestAbortedException) {
            throw thrown;
        }
        throw new AssertionError(thrown.getMessage() + " [" + replay() + "]", thrown);
    };

    /** Opens the device under test; it is closed after each test. */
    protected abstract Device openDevice();

    /**
     * The ops this backend leaves out, which it must refuse with a {@link DeviceException} naming the kernel: at most
     * max pooling, which only the models timed on {@code sim} without computing (torchvision's ResNets) launch.
     * None by default.
     */
    protected Set<Class<? extends KernelOp.Call>> leftOut() {
        return Set.of();
    }

    @BeforeEach
    void open() {
        seed = Long.getLong("kit.seed", System.nanoTime());
        random = new Random(seed);
        device = openDevice();
        k = device.kernels();
    }

    /** Checks that no kernel wrote outside its slices, then closes the device (if it opened). */
    @AfterEach
    void close() {
        if (device == null) {
            return;
        }
        try {
            for (Guarded g : guarded) {
                float[] all = device.download(g.whole());
                for (int i = 0; i < all.length; i++) {
                    boolean inside = i >= g.offset() && i < g.offset() + g.length();
                    if (!inside && Float.floatToRawIntBits(all[i]) != Float.floatToRawIntBits(GUARD)) {
                        throw new AssertionError("a kernel wrote " + all[i] + " at " + (i - g.offset())
                                + " from the start of a slice of " + g.length() + " elements on " + device.id()
                                + ", outside the slice [" + replay() + "]");
                    }
                }
            }
        } finally {
            device.close();
        }
    }

    private String replay() {
        return layout + " layout, random seed " + seed + "; replay with -Dkit.seed=" + seed;
    }

    // --- helpers ---------------------------------------------------------------------------------------

    private float[] randomFloats(int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) random.nextGaussian();
        }
        return a;
    }

    /** A tensor holding {@code values}, laid out as {@link #layout} says. */
    private Buffer up(float[] values) {
        if (layout == Layout.WHOLE) {
            return device.upload(values);
        }
        int before = 1 + random.nextInt(16), after = 1 + random.nextInt(16);
        float[] whole = new float[before + values.length + after];
        Arrays.fill(whole, GUARD);
        System.arraycopy(values, 0, whole, before, values.length);
        Buffer buffer = device.upload(whole);
        guarded.add(new Guarded(buffer, before, values.length));
        return buffer.slice(before, values.length);
    }

    /** A tensor of {@code n} zeros for a kernel to write, laid out as {@link #layout} says. */
    private Buffer out(int n) {
        return layout == Layout.WHOLE ? device.allocate(n) : up(new float[n]);
    }

    private float[] down(Buffer b, int n) {
        float[] out = new float[n];
        device.download(b.slice(0, n), out, 0);
        return out;
    }

    private void assertClose(String what, double[] expected, float[] actual) {
        assertClose(what, expected, actual, 1e-30);
    }

    /**
     * As {@link #assertClose(String, double[], float[])}, the bound taken relative to at least {@code minScale}:
     * a softmax cross-entropy near zero comes from float32 log-sum-exp minus the label's logit, whose error is
     * float32's resolution of the logits, not of the small difference, so its bound is relative to 1 nat.
     */
    private void assertClose(String what, double[] expected, float[] actual, double minScale) {
        assertEquals(expected.length, actual.length, what + ": length");
        double scale = 0, worst = 0;
        int at = -1;
        for (int i = 0; i < expected.length; i++) {
            if (!Double.isFinite(expected[i])) {
                throw new AssertionError(what + ": the float64 reference itself gives " + expected[i] + " at " + i);
            }
            scale = Math.max(scale, Math.abs(expected[i]));
            double err = Math.abs(expected[i] - actual[i]);
            if (!(err <= worst)) { // NaN too, once: it stays the worst
                worst = Double.isNaN(err) ? Double.POSITIVE_INFINITY : err;
                at = i;
            }
        }
        double bound = TOLERANCE * Math.max(scale, minScale);
        double w = worst;
        int a = at;
        assertTrue(
                worst <= bound,
                () -> what + " on " + device.id() + ": max error " + w + " at " + a + " (expected " + expected[a]
                        + ", got " + actual[a] + ") exceeds " + bound);
    }

    private static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += (double) a[i] * b[i];
        }
        return s;
    }

    private static float[] plus(float[] x, float h, float[] v) {
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = x[i] + h * v[i];
        }
        return out;
    }

    /**
     * Checks {@code <grad, v>} against {@code (L(x + h·v) − L(x − h·v)) / 2h} for a random direction v.
     */
    private void assertDirectionalDerivative(
            String what, float[] x, float[] grad, float h, Function<float[], Double> loss) {
        float[] v = randomDirection(x.length);
        assertDerivative(what, grad, v, (loss.apply(plus(x, h, v)) - loss.apply(plus(x, -h, v))) / (2 * h));
    }

    /**
     * {@link #assertDirectionalDerivative} for a loss the float64 reference computes: x moves in float64, by
     * {@code h = 1e-4}. Moved in float32 by 0.01, each element of x ± h·v was rounded by up to 6e-8, which over a
     * thousand rows put the difference 8e-5 off a directional derivative of 3e-4 (seed 45743709882414); in float64
     * neither that rounding nor the difference's h² term comes near the tolerance.
     */
    private void assertReferenceDirectionalDerivative(
            String what, float[] x, float[] grad, Function<double[], Double> loss) {
        float[] v = randomDirection(x.length);
        double h = 1e-4;
        double[] ahead = new double[x.length], behind = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            ahead[i] = x[i] + h * v[i];
            behind[i] = x[i] - h * v[i];
        }
        assertDerivative(what, grad, v, (loss.apply(ahead) - loss.apply(behind)) / (2 * h));
    }

    private float[] randomDirection(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return v;
    }

    private void assertDerivative(String what, float[] grad, float[] v, double numeric) {
        double analytic = dot(grad, v), terms = 0;
        for (int i = 0; i < grad.length; i++) {
            terms += Math.abs((double) grad[i] * v[i]);
        }
        double err = Math.abs(analytic - numeric),
                bound = FD_TOLERANCE * Math.max(Math.abs(numeric), 1e-3) + FD_ROUNDING * terms;
        assertTrue(
                err <= bound,
                () -> what + " on " + device.id() + ": backward gives " + analytic + ", finite difference " + numeric
                        + " (allowed " + bound + ")");
    }

    // --- shapes ----------------------------------------------------------------------------------------

    /**
     * Shapes for the finite-difference checks: small, because a loss summed in float over a large output loses
     * the digits a finite difference needs.
     */
    static Stream<ConvShape> smallConvShapes() {
        return Stream.of(
                new ConvShape(2, 1, 28, 28, 20, 3, 3), // the seed's conv1
                new ConvShape(2, 20, 13, 13, 50, 5, 5), // the seed's conv2
                new ConvShape(1, 3, 7, 9, 4, 3, 2), // batch 1, odd sizes, non-square filter
                new ConvShape(3, 2, 5, 5, 3, 5, 5), // filter as large as the image: 1×1 output
                new ConvShape(2, 3, 9, 8, 4, 3, 3, 2, 1), // ResNet's stride 2 and padding 1, odd sizes
                new ConvShape(2, 4, 8, 8, 6, 3, 3, 1, 1), // padding 1: the output as large as the input
                new ConvShape(2, 4, 7, 7, 6, 1, 1, 2, 0), // ResNet's 1×1 shortcut of stride 2
                new ConvShape(1, 2, 5, 6, 3, 2, 3, 3, 2)); // stride 3, padding 2: windows wholly in the padding
    }

    /**
     * The float64 reference's shapes: the small ones, one spread over cores, two with other channel counts, and
     * LeNet's at every shard size.
     */
    static Stream<ConvShape> convShapes() {
        // conv2 over many column panels, with images across their edges
        Stream<ConvShape> large = Stream.of(new ConvShape(19, 20, 13, 13, 50, 5, 5));
        // 100 and 20 output channels over 36 taps: seven vectors of channels at 512 and 128 bits, which the cpu
        // backend's filter gradient runs as blocks of three taps (conv2's 50 channels are seven at 256 bits)
        Stream<ConvShape> channels =
                Stream.of(new ConvShape(2, 4, 5, 5, 100, 3, 3), new ConvShape(2, 4, 5, 5, 20, 3, 3));
        Stream<ConvShape> lenet = IntStream.of(SHARDS)
                .boxed()
                .flatMap(b -> Stream.of(new ConvShape(b, 1, 28, 28, 20, 3, 3), new ConvShape(b, 20, 13, 13, 50, 5, 5)));
        // ResNet-18's kinds of layer, narrowed so that the float64 reference stays quick: the stem, 3×3 padded layers
        // of stride 1 and 2 and the 1×1 shortcut of stride 2 on 28×28 to 4×4 planes, and a filter of 1,152 taps (the
        // depth of ResNet's later layers, which cpu multiplies a block of taps at a time)
        Stream<ConvShape> resnet = Stream.of(
                new ConvShape(2, 1, 28, 28, 16, 3, 3, 1, 1),
                new ConvShape(2, 16, 28, 28, 16, 3, 3, 1, 1),
                new ConvShape(2, 16, 28, 28, 32, 3, 3, 2, 1),
                new ConvShape(2, 16, 28, 28, 32, 1, 1, 2, 0),
                new ConvShape(2, 32, 7, 7, 64, 3, 3, 2, 1),
                new ConvShape(2, 128, 4, 4, 24, 3, 3, 1, 1));
        return Stream.of(smallConvShapes(), large, channels, lenet, resnet).flatMap(s -> s);
    }

    static Stream<PoolShape> smallPoolShapes() {
        return Stream.of(
                new PoolShape(2 * 20, 26, 26, 2, 2), // the seed's first pooling
                new PoolShape(3, 7, 9, 2, 2), // odd sizes: the last row and column are dropped
                new PoolShape(5, 3, 3, 2, 2), // rows of one output
                new PoolShape(2, 6, 71, 2, 2), // rows of 35 outputs: over two vectors at 512 bits, and a part
                new PoolShape(3, 7, 17, 2, 2), // 3 rows of 8 outputs: half a vector at 512 bits
                new PoolShape(2, 7, 5, 2, 2), // 3 rows of 2 outputs: half a vector at 128 bits
                new PoolShape(1, 5, 5, 3, 1), // overlapping windows
                new PoolShape(4, 7, 7, 3, 2)); // several planes, a window wider than its stride
    }

    static Stream<PoolShape> poolShapes() {
        Stream<PoolShape> lenet = IntStream.of(SHARDS)
                .boxed()
                .flatMap(b -> Stream.of(new PoolShape(b * 20, 26, 26, 2, 2), new PoolShape(b * 50, 9, 9, 2, 2)));
        return Stream.of(smallPoolShapes(), Stream.of(new PoolShape(16 * 20, 26, 26, 2, 2)), lenet) // over cores
                .flatMap(s -> s);
    }

    /**
     * A convolution with its ReLU and pooling: LeNet's first layer at every shard size, and small ones whose pooling
     * drops the last row and column, overlaps its windows, or pools the whole output.
     */
    static Stream<ConvPoolShape> convPoolShapes() {
        Stream<ConvPoolShape> small = Stream.of(
                new ConvPoolShape(new ConvShape(2, 1, 28, 28, 20, 3, 3), 2, 2), // the seed's first layer
                new ConvPoolShape(new ConvShape(2, 20, 13, 13, 50, 5, 5), 2, 2), // 9 × 9: the ninth row dropped
                new ConvPoolShape(new ConvShape(1, 3, 7, 9, 4, 3, 2), 3, 1), // overlapping windows
                new ConvPoolShape(new ConvShape(3, 2, 6, 6, 3, 3, 3), 4, 4)); // one window over the whole output
        Stream<ConvPoolShape> lenet =
                IntStream.of(SHARDS).mapToObj(b -> new ConvPoolShape(new ConvShape(b, 1, 28, 28, 20, 3, 3), 2, 2));
        return Stream.concat(small, lenet);
    }

    static Stream<BiasShape> smallBiasShapes() {
        return Stream.of(new BiasShape(4, 20, 676), new BiasShape(1, 128, 1), new BiasShape(3, 7, 5));
    }

    static Stream<BiasShape> biasShapes() {
        Stream<BiasShape> lenet = IntStream.of(SHARDS)
                .boxed()
                .flatMap(b -> Stream.of(
                        new BiasShape(b, 20, 676),
                        new BiasShape(b, 50, 81),
                        new BiasShape(b, 128, 1),
                        new BiasShape(b, 10, 1)));
        return Stream.of(smallBiasShapes(), Stream.of(new BiasShape(32, 20, 676)), lenet) // spread over cores
                .flatMap(s -> s);
    }

    static Stream<Arguments> gemmCases() {
        int[][] sizes = {{1, 1, 1}, {7, 5, 3}, {10, 7, 20}, {64, 10, 128}, {3, 800, 17}, {33, 65, 9}, {13, 200, 31}};
        Stream.Builder<Arguments> cases = Stream.builder();
        for (int[] s : sizes) {
            for (boolean ta : new boolean[] {false, true}) {
                for (boolean tb : new boolean[] {false, true}) {
                    cases.add(Arguments.of(ta, tb, s[0], s[1], s[2], 1f, 0f));
                }
            }
            cases.add(Arguments.of(false, false, s[0], s[1], s[2], -0.5f, 1f));
            cases.add(Arguments.of(true, true, s[0], s[1], s[2], 2f, 0.25f));
            cases.add(Arguments.of(false, true, s[0], s[1], s[2], 2f, 0.25f));
        }
        // LeNet's dense layers 800→128 and 128→10 as training calls them: forward, weight and input gradients
        for (int b : SHARDS) {
            for (int[] layer : new int[][] {{800, 128}, {128, 10}}) {
                int in = layer[0], out = layer[1];
                cases.add(Arguments.of(false, false, b, out, in, 1f, 0f));
                cases.add(Arguments.of(true, false, in, out, b, 1f, 0f));
                cases.add(Arguments.of(false, true, b, in, out, 1f, 0f));
            }
        }
        return cases.build();
    }

    static Stream<Integer> lengths() {
        return Stream.of(1, 7, 1000, 129_068);
    }

    /** Element counts for element-wise kernels: {@link #lengths} and LeNet's first activation at a shard of 86. */
    static Stream<Integer> elementCounts() {
        return Stream.concat(lengths(), Stream.of(86 * 20 * 26 * 26));
    }

    // --- kernels against the float64 reference ---------------------------------------------------------

    // --- every op, one call on fresh random inputs, against the float64 reference ---------------------------

    static Stream<KernelOp> ops() {
        return KernelOp.all().stream();
    }

    /**
     * One call of {@code op} (its case in {@link #sample}) on fresh random inputs against {@link Reference#outputs},
     * every buffer it writes within {@link #TOLERANCE}. A new op fails here until the kit has its case; the tests
     * below add each op's edge shapes, exact results and finite differences.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("ops")
    void everyOpMatchesTheFloat64Reference(KernelOp op) {
        KernelOp.Call call = sample(op.type());
        if (leftOut().contains(op.type())) {
            assertTrue(
                    Set.of(KernelOp.MaxPoolForward.class, KernelOp.MaxPoolBackward.class)
                            .contains(op.type()),
                    "only max pooling may be left out, not " + op.kernelName());
            DeviceException refused = assertThrows(DeviceException.class, () -> k.launch(call));
            assertTrue(refused.getMessage().contains(op.kernelName()), refused.getMessage());
            return;
        }
        Map<Buffer, double[]> read = new IdentityHashMap<>();
        for (int i = 0; i < op.args().size(); i++) {
            if (call.reads(i)) {
                read.put(call.buffer(i), wide(down(call.buffer(i), (int) call.needed(i))));
            }
        }
        Map<Buffer, double[]> expected = Reference.outputs(call, read::get);
        k.launch(call);
        for (int i = 0; i < op.args().size(); i++) {
            if (call.writes(i)) {
                Buffer written = call.buffer(i);
                double minScale = call instanceof SoftmaxCrossEntropyForward ? 1 : 1e-30;
                assertClose(
                        op.kernelName() + " " + op.args().get(i).role(),
                        expected.get(written),
                        down(written, (int) call.needed(i)),
                        minScale);
            }
        }
    }

    /**
     * The kit's case of each op: one call on small odd shapes, its inputs fresh random numbers (labels random
     * classes), its outputs zeros.
     */
    private KernelOp.Call sample(Class<? extends KernelOp.Call> op) {
        ConvShape conv = new ConvShape(2, 3, 7, 6, 4, 3, 2);
        BiasShape bias = new BiasShape(3, 5, 7);
        PoolShape pool = new PoolShape(6, 7, 5, 3, 2);
        PoolShape padded = new PoolShape(6, 7, 5, 3, 2, 1);
        ConvPoolShape first = new ConvPoolShape(new ConvShape(3, 1, 9, 9, 5, 2, 2), 2, 2);
        int n = 37, batch = 5, classes = 7;
        Supplier<Buffer> labels = () -> up(randomLabels(batch, classes));
        return switch (op.getSimpleName()) {
            case "Conv2dForward" ->
                new Conv2dForward(in(conv.inputLength()), in(conv.filterLength()), out(conv.outputLength()), conv);
            case "Conv2dBackwardData" ->
                new Conv2dBackwardData(in(conv.outputLength()), in(conv.filterLength()), out(conv.inputLength()), conv);
            case "Conv2dBackwardFilter" ->
                new Conv2dBackwardFilter(
                        in(conv.inputLength()), in(conv.outputLength()), out(conv.filterLength()), conv);
            case "BiasAdd" -> new BiasAdd(in(bias.length()), in(bias.channels()), bias);
            case "BiasAddBackward" -> new BiasAddBackward(in(bias.length()), out(bias.channels()), bias);
            case "AvgPoolForward" -> new AvgPoolForward(in(pool.inputLength()), out(pool.outputLength()), pool);
            case "AvgPoolBackward" -> new AvgPoolBackward(in(pool.outputLength()), out(pool.inputLength()), pool);
            case "MaxPoolForward" ->
                new KernelOp.MaxPoolForward(in(padded.inputLength()), out(padded.outputLength()), padded);
            case "MaxPoolBackward" ->
                new KernelOp.MaxPoolBackward(
                        in(padded.inputLength()), in(padded.outputLength()), out(padded.inputLength()), padded);
            case "ReluForward" -> new ReluForward(in(n), out(n), n);
            case "ReluBackward" -> new ReluBackward(in(n), in(n), out(n), n);
            case "Conv2dBiasForward" ->
                new Conv2dBiasForward(
                        in(conv.inputLength()),
                        in(conv.filterLength()),
                        in(conv.outChannels()),
                        out(conv.outputLength()),
                        conv);
            case "ReluAvgPoolForward" -> new ReluAvgPoolForward(in(pool.inputLength()), out(pool.outputLength()), pool);
            case "ReluAvgPoolBackward" ->
                new ReluAvgPoolBackward(in(pool.inputLength()), in(pool.outputLength()), out(pool.inputLength()), pool);
            case "Conv2dBiasReluAvgPoolForward" ->
                new Conv2dBiasReluAvgPoolForward(
                        in(first.conv().inputLength()),
                        in(first.conv().filterLength()),
                        in(first.conv().outChannels()),
                        out(first.outputLength()),
                        first);
            case "Conv2dBiasReluAvgPoolBackward" ->
                new Conv2dBiasReluAvgPoolBackward(
                        in(first.conv().inputLength()),
                        in(first.conv().filterLength()),
                        in(first.conv().outChannels()),
                        in(first.outputLength()),
                        out(first.conv().filterLength()),
                        out(first.conv().outChannels()),
                        first);
            case "Gemm" -> new Gemm(true, false, 6, 5, 9, 0.5f, in(9 * 6), in(9 * 5), 1.5f, in(6 * 5));
            case "SoftmaxCrossEntropyForward" ->
                new SoftmaxCrossEntropyForward(in(batch * classes), labels.get(), out(batch), batch, classes);
            case "SoftmaxCrossEntropyBackward" ->
                new SoftmaxCrossEntropyBackward(
                        in(batch * classes), labels.get(), out(batch * classes), batch, classes);
            case "Axpy" -> new Axpy(-0.75f, in(n), in(n), n);
            case "Scale" -> new Scale(1.25f, in(n), n);
            case "Add" -> new Add(in(n), in(n), out(n), n);
            case "Fill" -> new Fill(3.5f, out(n), n);
            case "SgdStep" -> new KernelOp.SgdStep(0.1f, 0.9f, 0.25f, true, 0.01f, 0.5f, false, in(n), in(n), in(n), n);
            case "AdamStep" ->
                new KernelOp.AdamStep(
                        0.01f, 0.9f, 0.99f, 1e-3f, 0.05f, true, 3, 0.5f, in(n), in(n), in(n), positive(n), n);
            case "SquaredDeviations" ->
                new KernelOp.SquaredDeviations(in(bias.length()), in(bias.channels()), out(bias.channels()), bias);
            case "BatchNormForward" ->
                new KernelOp.BatchNormForward(
                        in(bias.length()),
                        in(bias.channels()),
                        positive(bias.channels()),
                        in(bias.channels()),
                        in(bias.channels()),
                        out(bias.length()),
                        1e-5f,
                        bias);
            case "BatchNormRunningUpdate" ->
                new KernelOp.BatchNormRunningUpdate(
                        in(bias.channels()),
                        positive(bias.channels()),
                        in(bias.channels()),
                        positive(bias.channels()),
                        up(new float[] {random.nextInt(100)}),
                        0.1f,
                        (long) bias.outer() * bias.inner(),
                        bias.channels());
            case "BatchNormBackwardReduce" ->
                new KernelOp.BatchNormBackwardReduce(
                        in(bias.length()),
                        in(bias.length()),
                        in(bias.channels()),
                        positive(bias.channels()),
                        out(bias.channels()),
                        out(bias.channels()),
                        1e-5f,
                        bias);
            case "BatchNormBackwardData" ->
                new KernelOp.BatchNormBackwardData(
                        in(bias.length()),
                        in(bias.length()),
                        in(bias.channels()),
                        positive(bias.channels()),
                        in(bias.channels()),
                        in(bias.channels()),
                        in(bias.channels()),
                        out(bias.length()),
                        1e-5f,
                        (long) bias.outer() * bias.inner(),
                        bias);
            case "ArgmaxMatches" -> new ArgmaxMatches(in(batch * classes), labels.get(), out(1), batch, classes);
            default ->
                throw new AssertionError("the conformance kit has no case of " + op.getSimpleName()
                        + ": add one to KernelConformanceKit.sample, beside the others");
        };
    }

    /** A tensor of {@code n} fresh random numbers above zero (second moments). */
    private Buffer positive(int n) {
        float[] a = randomFloats(n);
        for (int i = 0; i < n; i++) {
            a[i] = a[i] * a[i];
        }
        return up(a);
    }

    /** A tensor of {@code n} fresh random numbers. */
    private Buffer in(int n) {
        return up(randomFloats(n));
    }

    private float[] randomLabels(int batch, int classes) {
        float[] labels = new float[batch];
        for (int i = 0; i < batch; i++) {
            labels[i] = random.nextInt(classes);
        }
        return labels;
    }

    @ParameterizedTest
    @MethodSource("convShapes")
    void conv2dForwardMatchesReference(ConvShape s) {
        float[] x = randomFloats(s.inputLength()), w = randomFloats(s.filterLength());
        Buffer y = out(s.outputLength());
        k.launch(new Conv2dForward(up(x), up(w), y, s));
        assertClose("conv2d_forward " + s, Reference.conv2dForward(wide(x), wide(w), s), down(y, s.outputLength()));
    }

    @ParameterizedTest
    @MethodSource("convShapes")
    void conv2dBiasForwardMatchesReference(ConvShape s) {
        float[] x = randomFloats(s.inputLength()),
                w = randomFloats(s.filterLength()),
                b = randomFloats(s.outChannels());
        Buffer y = up(randomFloats(s.outputLength())); // stale contents must be overwritten
        k.launch(new Conv2dBiasForward(up(x), up(w), up(b), y, s));
        assertClose(
                "conv2d_bias_forward " + s,
                Reference.conv2dBiasForward(wide(x), wide(w), wide(b), s),
                down(y, s.outputLength()));
    }

    /**
     * The fused convolution and bias give the bits of the two ops run one after the other on the same device, so
     * that training fused ends where the notebook's separate ops end.
     */
    @ParameterizedTest
    @MethodSource("convShapes")
    void conv2dBiasForwardIsConvThenBiasExactly(ConvShape s) {
        Buffer x = up(randomFloats(s.inputLength())), w = up(randomFloats(s.filterLength()));
        Buffer b = up(randomFloats(s.outChannels()));
        Buffer separate = out(s.outputLength()), fused = out(s.outputLength());
        k.launch(new Conv2dForward(x, w, separate, s));
        k.launch(new BiasAdd(separate, b, s.bias()));
        k.launch(new Conv2dBiasForward(x, w, b, fused, s));
        assertExact(down(separate, s.outputLength()), down(fused, s.outputLength()), "conv2d_bias_forward " + s);
    }

    @ParameterizedTest
    @MethodSource("convShapes")
    void conv2dBackwardDataMatchesReference(ConvShape s) {
        float[] dy = randomFloats(s.outputLength()), w = randomFloats(s.filterLength());
        Buffer dx = up(randomFloats(s.inputLength())); // stale contents must be overwritten
        k.launch(new Conv2dBackwardData(up(dy), up(w), dx, s));
        assertClose(
                "conv2d_backward_data " + s,
                Reference.conv2dBackwardData(wide(dy), wide(w), s),
                down(dx, s.inputLength()));
    }

    @ParameterizedTest
    @MethodSource("convShapes")
    void conv2dBackwardFilterMatchesReference(ConvShape s) {
        float[] x = randomFloats(s.inputLength()), dy = randomFloats(s.outputLength());
        Buffer dw = up(randomFloats(s.filterLength()));
        k.launch(new Conv2dBackwardFilter(up(x), up(dy), dw, s));
        assertClose(
                "conv2d_backward_filter " + s,
                Reference.conv2dBackwardFilter(wide(x), wide(dy), s),
                down(dw, s.filterLength()));
    }

    @ParameterizedTest
    @MethodSource("biasShapes")
    void biasAddAndBackwardMatchReference(BiasShape s) {
        float[] y = randomFloats(s.length()), b = randomFloats(s.channels());
        Buffer yb = up(y);
        k.launch(new BiasAdd(yb, up(b), s));
        assertClose("bias_add " + s, Reference.biasAdd(wide(y), wide(b), s), down(yb, s.length()));
        Buffer db = up(randomFloats(s.channels()));
        k.launch(new BiasAddBackward(up(y), db, s));
        assertClose("bias_add_backward " + s, Reference.biasAddBackward(wide(y), s), down(db, s.channels()));
    }

    @ParameterizedTest
    @MethodSource("poolShapes")
    void avgPoolMatchesReference(PoolShape s) {
        float[] x = randomFloats(s.inputLength()), dy = randomFloats(s.outputLength());
        Buffer y = out(s.outputLength());
        k.launch(new AvgPoolForward(up(x), y, s));
        assertClose("avg_pool_forward " + s, Reference.avgPoolForward(wide(x), s), down(y, s.outputLength()));
        Buffer dx = up(randomFloats(s.inputLength()));
        k.launch(new AvgPoolBackward(up(dy), dx, s));
        assertClose("avg_pool_backward " + s, Reference.avgPoolBackward(wide(dy), s), down(dx, s.inputLength()));
    }

    @ParameterizedTest
    @MethodSource("poolShapes")
    void reluAvgPoolMatchesReference(PoolShape s) {
        float[] x = randomFloats(s.inputLength()), dy = randomFloats(s.outputLength());
        Buffer y = out(s.outputLength());
        k.launch(new ReluAvgPoolForward(up(x), y, s));
        assertClose("relu_avg_pool_forward " + s, Reference.reluAvgPoolForward(wide(x), s), down(y, s.outputLength()));
        Buffer dx = up(randomFloats(s.inputLength()));
        k.launch(new ReluAvgPoolBackward(up(x), up(dy), dx, s));
        assertClose(
                "relu_avg_pool_backward " + s,
                Reference.reluAvgPoolBackward(wide(x), wide(dy), s),
                down(dx, s.inputLength()));
    }

    /**
     * The fused ReLU and pooling give the bits of the two ops run one after the other on the same device, so that
     * training fused ends where the notebook's separate ops end: on random activations with NaN, zero and minus
     * zero among them, and in the backward pass where the gradient buffer held other values before.
     */
    @ParameterizedTest
    @MethodSource("poolShapes")
    void reluAvgPoolIsReluThenAvgPoolExactly(PoolShape s) {
        int n = s.inputLength();
        float[] x = randomFloats(n), dy = randomFloats(s.outputLength());
        float[] kinds = {Float.NaN, -0f, 0f};
        for (int i = 0; i < n / 50 + 1; i++) {
            x[random.nextInt(n)] = kinds[random.nextInt(kinds.length)];
        }
        Buffer xb = up(x), activation = out(n), separate = out(s.outputLength()), fused = out(s.outputLength());
        k.launch(new ReluForward(xb, activation, n));
        k.launch(new AvgPoolForward(activation, separate, s));
        k.launch(new ReluAvgPoolForward(xb, fused, s));
        assertExact(down(separate, s.outputLength()), down(fused, s.outputLength()), "relu_avg_pool_forward " + s);

        Buffer dyb = up(dy), dActivation = out(n), dSeparate = out(n), dFused = up(randomFloats(n));
        k.launch(new AvgPoolBackward(dyb, dActivation, s));
        k.launch(new ReluBackward(xb, dActivation, dSeparate, n));
        k.launch(new ReluAvgPoolBackward(xb, dyb, dFused, s));
        assertExact(down(dSeparate, n), down(dFused, n), "relu_avg_pool_backward " + s);
    }

    @ParameterizedTest
    @MethodSource("convPoolShapes")
    void conv2dBiasReluAvgPoolMatchesReference(ConvPoolShape s) {
        ConvShape c = s.conv();
        float[] x = randomFloats(c.inputLength()),
                w = randomFloats(c.filterLength()),
                b = randomFloats(c.outChannels());
        float[] dy = randomFloats(s.outputLength());
        Buffer xb = up(x), wb = up(w), bb = up(b);
        Buffer y = up(randomFloats(s.outputLength())); // stale contents must be overwritten
        k.launch(new Conv2dBiasReluAvgPoolForward(xb, wb, bb, y, s));
        assertClose(
                "conv2d_bias_relu_avg_pool_forward " + s,
                Reference.reluAvgPoolForward(Reference.conv2dBiasForward(wide(x), wide(w), wide(b), c), s.pool()),
                down(y, s.outputLength()));

        // The ReLU's gradient is taken where the device's own float32 convolution is positive: a float64 one
        // may differ in sign where it is within rounding of zero, and one such output moves a filter's gradient
        // by a whole term.
        Buffer conv = out(c.outputLength());
        k.launch(new Conv2dBiasForward(xb, wb, bb, conv, c));
        double[] dconv = Reference.reluAvgPoolBackward(wide(down(conv, c.outputLength())), wide(dy), s.pool());
        Buffer dw = up(randomFloats(c.filterLength())), db = up(randomFloats(c.outChannels()));
        k.launch(new Conv2dBiasReluAvgPoolBackward(xb, wb, bb, up(dy), dw, db, s));
        assertClose(
                "conv2d_bias_relu_avg_pool_backward dw " + s,
                Reference.conv2dBackwardFilter(wide(x), dconv, c),
                down(dw, c.filterLength()));
        assertClose(
                "conv2d_bias_relu_avg_pool_backward db " + s,
                Reference.biasAddBackward(dconv, c.bias()),
                down(db, c.outChannels()));
    }

    /**
     * The fused first layer gives the bits of its ops run one after the other on the same device in the forward
     * pass, so that a network's activations are what the separate ops give, and its gradients within the
     * rounding of sums taken in another order.
     */
    @ParameterizedTest
    @MethodSource("convPoolShapes")
    void conv2dBiasReluAvgPoolIsItsOpsInTurn(ConvPoolShape s) {
        ConvShape c = s.conv();
        Buffer x = up(randomFloats(c.inputLength())), w = up(randomFloats(c.filterLength()));
        Buffer b = up(randomFloats(c.outChannels())), dy = up(randomFloats(s.outputLength()));
        Buffer conv = out(c.outputLength()), separate = out(s.outputLength()), fused = out(s.outputLength());
        k.launch(new Conv2dBiasForward(x, w, b, conv, c));
        k.launch(new ReluAvgPoolForward(conv, separate, s.pool()));
        k.launch(new Conv2dBiasReluAvgPoolForward(x, w, b, fused, s));
        assertExact(
                down(separate, s.outputLength()),
                down(fused, s.outputLength()),
                "conv2d_bias_relu_avg_pool_forward " + s);

        Buffer dconv = out(c.outputLength()), dw = out(c.filterLength()), db = out(c.outChannels());
        k.launch(new ReluAvgPoolBackward(conv, dy, dconv, s.pool()));
        k.launch(new Conv2dBackwardFilter(x, dconv, dw, c));
        k.launch(new BiasAddBackward(dconv, db, c.bias()));
        Buffer dwFused = up(randomFloats(c.filterLength())), dbFused = up(randomFloats(c.outChannels()));
        k.launch(new Conv2dBiasReluAvgPoolBackward(x, w, b, dy, dwFused, dbFused, s));
        assertClose(
                "conv2d_bias_relu_avg_pool_backward dw " + s,
                wide(down(dw, c.filterLength())),
                down(dwFused, c.filterLength()));
        assertClose(
                "conv2d_bias_relu_avg_pool_backward db " + s,
                wide(down(db, c.outChannels())),
                down(dbFused, c.outChannels()));
    }

    @ParameterizedTest
    @MethodSource("elementCounts")
    void reluMatchesReference(int n) {
        float[] x = randomFloats(n), dy = randomFloats(n);
        Buffer y = out(n), dx = out(n);
        k.launch(new ReluForward(up(x), y, n));
        k.launch(new ReluBackward(up(x), up(dy), dx, n));
        assertClose("relu_forward", Reference.reluForward(wide(x)), down(y, n));
        assertClose("relu_backward", Reference.reluBackward(wide(x), wide(dy)), down(dx, n));
    }

    /**
     * ReLU keeps a NaN, as {@code torch.relu} does, so that a diverging run shows in its loss; zero and minus zero
     * stay zero. Every lane position of a vector, and the scalar tail after it, gets each kind of value.
     */
    @Test
    void reluKeepsNaNAndZeroesSignedZeros() {
        int n = 67;
        float[] x = new float[n];
        float[] kinds = {Float.NaN, -0f, 0f, -1.5f, 2.5f};
        for (int i = 0; i < n; i++) {
            x[i] = kinds[i % kinds.length];
        }
        Buffer y = out(n);
        k.launch(new ReluForward(up(x), y, n));
        float[] got = down(y, n);
        for (int i = 0; i < n; i++) {
            String what = "relu_forward of " + x[i] + " at " + i + " on " + device.id();
            if (Float.isNaN(x[i])) {
                assertTrue(Float.isNaN(got[i]), what + " gave " + got[i]);
            } else {
                assertEquals(Math.max(x[i], 0f), got[i], 0f, what);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("gemmCases")
    void gemmMatchesReference(boolean ta, boolean tb, int m, int n, int kk, float alpha, float beta) {
        float[] a = randomFloats(m * kk), b = randomFloats(kk * n), c = randomFloats(m * n);
        Buffer cb = up(c);
        k.launch(new Gemm(ta, tb, m, n, kk, alpha, up(a), up(b), beta, cb));
        assertClose(
                "gemm ta=" + ta + " tb=" + tb + " " + m + "x" + n + "x" + kk + " alpha=" + alpha + " beta=" + beta,
                Reference.gemm(ta, tb, m, n, kk, alpha, wide(a), wide(b), beta, wide(c)),
                down(cb, m * n));
    }

    /** A gradient's squared norm as the trainer checks it: a 1×k by k×1 product of one buffer with itself. */
    @ParameterizedTest
    @MethodSource("lengths")
    void squaredNormMatchesReference(int length) {
        float[] g = randomFloats(length);
        Buffer gb = up(g);
        Buffer norm = up(new float[1]);
        k.launch(new Gemm(false, true, 1, 1, length, 1f, gb, gb, 0f, norm));
        assertClose(
                "squared norm of " + length + " values",
                Reference.gemm(false, true, 1, 1, length, 1, wide(g), wide(g), 0, null),
                down(norm, 1));
    }

    @ParameterizedTest
    @MethodSource("lengths")
    void softmaxCrossEntropyMatchesReference(int batch) {
        int classes = 10;
        float[] logits = randomFloats(batch * classes);
        for (int i = 0; i < logits.length; i++) {
            logits[i] *= 5; // confident rows too
        }
        float[] labels = new float[batch];
        for (int i = 0; i < batch; i++) {
            labels[i] = random.nextInt(classes);
        }
        Buffer loss = out(batch), d = out(batch * classes);
        k.launch(new SoftmaxCrossEntropyForward(up(logits), up(labels), loss, batch, classes));
        k.launch(new SoftmaxCrossEntropyBackward(up(logits), up(labels), d, batch, classes));
        assertClose(
                "softmax_xent_forward",
                Reference.softmaxCrossEntropyForward(wide(logits), wide(labels), batch, classes),
                down(loss, batch),
                1);
        assertClose(
                "softmax_xent_backward",
                Reference.softmaxCrossEntropyBackward(wide(logits), wide(labels), batch, classes),
                down(d, batch * classes),
                1);
    }

    @ParameterizedTest
    @MethodSource("elementCounts")
    void blasOneMatchesReference(int n) {
        float[] x = randomFloats(n), y = randomFloats(n);
        float alpha = (float) random.nextGaussian();
        Buffer yb = up(y);
        k.launch(new Axpy(alpha, up(x), yb, n));
        double[] axpy = wide(y);
        for (int i = 0; i < n; i++) {
            axpy[i] += (double) alpha * x[i];
        }
        assertClose("axpy", axpy, down(yb, n));

        Buffer xb = up(x);
        k.launch(new Scale(alpha, xb, n));
        double[] scaled = wide(x);
        for (int i = 0; i < n; i++) {
            scaled[i] *= alpha;
        }
        assertClose("scale", scaled, down(xb, n));

        Buffer sum = out(n);
        k.launch(new Add(up(x), up(y), sum, n));
        double[] added = wide(x);
        for (int i = 0; i < n; i++) {
            added[i] += y[i];
        }
        assertClose("add", added, down(sum, n));

        Buffer filled = up(x);
        k.launch(new Fill(alpha, filled, n));
        double[] same = new double[n];
        Arrays.fill(same, alpha);
        assertClose("fill", same, down(filled, n));
    }

    /**
     * Logits of ±100 and ±1000, where a softmax without its maximum subtracted overflows float32 (at ±100) and
     * float64 (at ±1000), and rows of equal logits, whose probabilities are exactly 1/classes.
     */
    @ParameterizedTest
    @ValueSource(floats = {100, 1000})
    void softmaxCrossEntropyHoldsOnExtremeAndEqualLogits(float big) {
        int classes = 10, batch = 6;
        float[] logits = new float[batch * classes];
        for (int j = 0; j < classes; j++) {
            logits[j] = j == 3 ? big : -big; // confident and right
            logits[classes + j] = j == 3 ? big : -big; // confident and wrong (label 7)
            logits[2 * classes + j] = big; // equal, large
            logits[3 * classes + j] = -big; // equal, small
            logits[4 * classes + j] = 0; // equal, zero
            logits[5 * classes + j] = j % 2 == 0 ? big : -big; // half at each extreme
        }
        float[] labels = {3, 7, 0, 9, 5, 2};
        Buffer loss = out(batch), d = out(batch * classes);
        k.launch(new SoftmaxCrossEntropyForward(up(logits), up(labels), loss, batch, classes));
        k.launch(new SoftmaxCrossEntropyBackward(up(logits), up(labels), d, batch, classes));
        assertClose(
                "softmax_xent_forward on ±" + big + " and equal logits",
                Reference.softmaxCrossEntropyForward(wide(logits), wide(labels), batch, classes),
                down(loss, batch),
                1);
        assertClose(
                "softmax_xent_backward on ±" + big + " and equal logits",
                Reference.softmaxCrossEntropyBackward(wide(logits), wide(labels), batch, classes),
                down(d, batch * classes),
                1);
    }

    /**
     * The operations whose every result is one correctly rounded float32 operation, or no arithmetic at all, give
     * the reference's result exactly (zero and minus zero count as equal, as they do in arithmetic): ReLU both ways, a 2×2 average pooling's backward routing (a quarter of
     * each gradient), copies, fill, add, scale by a power of two, and argmax's count.
     */
    @ParameterizedTest
    @MethodSource("elementCounts")
    void exactOperationsAreExact(int n) {
        float[] x = randomFloats(n), dy = randomFloats(n);
        Buffer y = out(n), dx = out(n);
        k.launch(new ReluForward(up(x), y, n));
        k.launch(new ReluBackward(up(x), up(dy), dx, n));
        assertExact(narrow(Reference.reluForward(wide(x))), down(y, n), "relu_forward");
        assertExact(narrow(Reference.reluBackward(wide(x), wide(dy))), down(dx, n), "relu_backward");

        Buffer sum = out(n);
        k.launch(new Add(up(x), up(dy), sum, n));
        float[] added = new float[n];
        for (int i = 0; i < n; i++) {
            added[i] = x[i] + dy[i];
        }
        assertExact(added, down(sum, n), "add");
        Buffer scaled = up(x);
        k.launch(new Scale(0.25f, scaled, n));
        float[] quarter = new float[n];
        for (int i = 0; i < n; i++) {
            quarter[i] = x[i] * 0.25f;
        }
        assertExact(quarter, down(scaled, n), "scale by 0.25");
        Buffer filled = up(x);
        k.launch(new Fill(-3.5f, filled, n));
        float[] constant = new float[n];
        Arrays.fill(constant, -3.5f);
        assertExact(constant, down(filled, n), "fill");
        Buffer copy = out(n);
        device.copyFromPeer(up(x), copy);
        assertExact(x, down(copy, n), "copy");

        PoolShape pool = new PoolShape(Math.max(1, n / 676), 26, 26, 2, 2);
        float[] g = randomFloats(pool.outputLength());
        Buffer routed = up(randomFloats(pool.inputLength()));
        k.launch(new AvgPoolBackward(up(g), routed, pool));
        assertExact(
                narrow(Reference.avgPoolBackward(wide(g), pool)),
                down(routed, pool.inputLength()),
                "avg_pool_backward 2×2 " + pool);
    }

    /** Each element equal to the expected one: no rounding allowed, ±0 equal, NaN where NaN is expected. */
    private void assertExact(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (!(expected[i] == actual[i] || Float.isNaN(expected[i]) && Float.isNaN(actual[i]))) {
                throw new AssertionError(what + " on " + device.id() + " is not exact: at " + i + " expected "
                        + expected[i] + ", got " + actual[i]);
            }
        }
    }

    /**
     * Reductions give the same bits on every call with the same inputs, before and after a JIT or a driver has
     * compiled them: a run repeats itself, and a training resumed from a checkpoint can end bit for bit where
     * the uninterrupted one does.
     */
    @Test
    void repeatedCallsGiveTheSameBits() {
        ConvShape conv = new ConvShape(2, 1, 8, 8, 4, 3, 3);
        BiasShape bias = conv.bias();
        Buffer x = up(randomFloats(conv.inputLength())), dy = up(randomFloats(conv.outputLength()));
        Buffer dw = out(conv.filterLength()), db = out(bias.channels());
        float[] firstDw = null, firstDb = null;
        for (int call = 0; call < 3_000; call++) {
            k.launch(new Conv2dBackwardFilter(x, dy, dw, conv));
            k.launch(new BiasAddBackward(dy, db, bias));
            if (call == 0) {
                firstDw = down(dw, conv.filterLength());
                firstDb = down(db, bias.channels());
            }
        }
        assertArrayEquals(firstDw, down(dw, conv.filterLength()), "conv2d_backward_filter, call 3,000 against call 1");
        assertArrayEquals(firstDb, down(db, bias.channels()), "bias_add_backward, call 3,000 against call 1");
    }

    /**
     * Streams of a step's calls (conv2's shape at a batch large enough to split over cores, a filter gradient
     * summed per chunk, ReLU and pooling, a bias gradient), each on buffers of its own, give the bits the same
     * calls give one after another, whatever the backend runs at once; each stream's observer is told its calls
     * in order.
     */
    @ParameterizedTest(name = "{0} streams")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void streamsGiveTheBitsOfTheirCallsOneAfterAnother(int count) {
        ConvShape conv = new ConvShape(4, 20, 13, 13, 50, 5, 5);
        PoolShape pool = new PoolShape(4 * 50, 9, 9, 2, 2);
        List<List<KernelOp.Call>> alone = new ArrayList<>(), together = new ArrayList<>();
        List<List<Buffer>> aloneOut = new ArrayList<>(), togetherOut = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            float[] x = randomFloats(conv.inputLength()), w = randomFloats(conv.filterLength());
            float[] b = randomFloats(conv.outChannels()), dy = randomFloats(conv.outputLength());
            for (List<List<KernelOp.Call>> calls : List.of(alone, together)) {
                Buffer xb = up(x), wb = up(w), bb = up(b), dyb = up(dy);
                Buffer y = out(conv.outputLength()), pooled = out(pool.outputLength());
                Buffer dw = out(conv.filterLength()), db = out(conv.outChannels());
                calls.add(List.of(
                        new KernelOp.Conv2dBiasForward(xb, wb, bb, y, conv),
                        new KernelOp.ReluAvgPoolForward(y, pooled, pool),
                        new KernelOp.Conv2dBackwardFilter(xb, dyb, dw, conv),
                        new KernelOp.BiasAddBackward(dyb, db, conv.bias())));
                (calls == alone ? aloneOut : togetherOut).add(List.of(y, pooled, dw, db));
            }
        }
        alone.forEach(calls -> calls.forEach(k::launch));
        List<List<String>> told = new ArrayList<>();
        List<KernelStream> streams = new ArrayList<>();
        for (List<KernelOp.Call> calls : together) {
            List<String> names = new ArrayList<>();
            told.add(names);
            streams.add(new KernelStream(calls, UnaryOperator.identity(), (call, nanos) -> {
                assertTrue(nanos >= 0, "a call's time: " + nanos + " ns");
                names.add(call.op().kernelName());
            }));
        }
        k.launchStreams(streams);
        int[] lengths = {conv.outputLength(), pool.outputLength(), conv.filterLength(), conv.outChannels()};
        for (int i = 0; i < count; i++) {
            assertEquals(together.get(i).stream().map(c -> c.op().kernelName()).toList(), told.get(i), "stream " + i);
            for (int j = 0; j < lengths.length; j++) {
                String what = together.get(i).get(j).op().kernelName() + " of stream " + i + " of " + count;
                assertExact(
                        down(aloneOut.get(i).get(j), lengths[j]),
                        down(togetherOut.get(i).get(j), lengths[j]),
                        what);
            }
        }
    }

    private static float[] narrow(double[] values) {
        float[] out = new float[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (float) values[i];
        }
        return out;
    }

    @Test
    void argmaxMatchesCountsCorrectRowsAndFirstMaximumWinsTies() {
        int batch = 257, classes = 10;
        float[] logits = randomFloats(batch * classes);
        float[] labels = new float[batch];
        int expected = 0;
        for (int r = 0; r < batch; r++) {
            labels[r] = random.nextInt(classes);
            int best = 0;
            for (int j = 1; j < classes; j++) {
                if (logits[r * classes + j] > logits[r * classes + best]) {
                    best = j;
                }
            }
            expected += best == (int) labels[r] ? 1 : 0;
        }
        Buffer count = out(1);
        k.launch(new ArgmaxMatches(up(logits), up(labels), count, batch, classes));
        assertEquals(expected, down(count, 1)[0], "argmax_matches");

        float[] tie = {1, 5, 5, 0}; // one row, two maxima: the first (index 1) wins
        k.launch(new ArgmaxMatches(up(tie), up(new float[] {1}), count, 1, 4));
        assertEquals(1f, down(count, 1)[0], "a tie goes to the first maximum");
        k.launch(new ArgmaxMatches(up(tie), up(new float[] {2}), count, 1, 4));
        assertEquals(0f, down(count, 1)[0], "a tie goes to the first maximum");
    }

    // --- backward kernels against finite differences ---------------------------------------------------

    private double weighted(Buffer out, int n, float[] g) {
        return dot(down(out, n), g);
    }

    @ParameterizedTest
    @MethodSource("smallConvShapes")
    /**
     * The finite difference is taken on the float64 reference's forward pass: a convolution is linear in its input
     * and in its filter, so that difference is the exact derivative, where one of the device's float32 forward
     * passes loses the digits it needs (conv2's loss sums 8,100 outputs of 500 products each; seed 24508426121493
     * put it 1.8 % off on opencl), and x moves in float64 too ({@link #assertReferenceDirectionalDerivative}). The
     * device's forward pass is checked against the same reference elsewhere.
     */
    void convolutionBackwardMatchesFiniteDifferences(ConvShape s) {
        float[] x = randomFloats(s.inputLength()),
                w = randomFloats(s.filterLength()),
                g = randomFloats(s.outputLength());
        Buffer dx = out(s.inputLength()), dw = out(s.filterLength());
        k.launch(new Conv2dBackwardData(up(g), up(w), dx, s));
        k.launch(new Conv2dBackwardFilter(up(x), up(g), dw, s));
        assertReferenceDirectionalDerivative(
                "conv2d_backward_data " + s,
                x,
                down(dx, s.inputLength()),
                xs -> weighted(Reference.conv2dForward(xs, wide(w), s), g));
        assertReferenceDirectionalDerivative(
                "conv2d_backward_filter " + s,
                w,
                down(dw, s.filterLength()),
                ws -> weighted(Reference.conv2dForward(wide(x), ws, s), g));
    }

    private static double weighted(double[] y, float[] g) {
        double s = 0;
        for (int i = 0; i < y.length; i++) {
            s += y[i] * g[i];
        }
        return s;
    }

    @ParameterizedTest
    @MethodSource("smallBiasShapes")
    void biasBackwardMatchesFiniteDifferences(BiasShape s) {
        float[] y0 = randomFloats(s.length()), b = randomFloats(s.channels()), g = randomFloats(s.length());
        Buffer db = out(s.channels());
        k.launch(new BiasAddBackward(up(g), db, s));
        assertDirectionalDerivative("bias_add_backward " + s, b, down(db, s.channels()), 0.1f, bs -> {
            Buffer y = up(y0);
            k.launch(new BiasAdd(y, up(bs), s));
            return weighted(y, s.length(), g);
        });
    }

    /**
     * BatchNorm in training on the device, statistics and all, as the tape runs it: Σx, the mean, the squared
     * deviations, the biased variance, the normalisation; then its backward pass. Its three gradients against finite
     * differences of {@link Reference#batchNormTraining} (the statistics move with x), and its output against that
     * reference.
     */
    @ParameterizedTest
    @MethodSource("smallBiasShapes")
    void batchNormTrainingMatchesReferenceAndFiniteDifferences(BiasShape s) {
        int c = s.channels(), count = s.outer() * s.inner();
        float eps = 1e-5f;
        float[] x = randomFloats(s.length()), gamma = randomFloats(c), beta = randomFloats(c);
        float[] g = randomFloats(s.length());
        Buffer xb = up(x), gammab = up(gamma), mean = out(c), var = out(c), y = out(s.length());
        k.launch(new BiasAddBackward(xb, mean, s));
        k.launch(new Scale(1f / count, mean, c));
        k.launch(new KernelOp.SquaredDeviations(xb, mean, var, s));
        k.launch(new Scale(1f / count, var, c));
        k.launch(new KernelOp.BatchNormForward(xb, mean, var, gammab, up(beta), y, eps, s));
        assertClose(
                "batch_norm_forward in training " + s,
                Reference.batchNormTraining(wide(x), wide(gamma), wide(beta), eps, s),
                down(y, s.length()));
        Buffer gb = up(g), sumDy = out(c), sumDyXhat = out(c), dx = out(s.length());
        k.launch(new KernelOp.BatchNormBackwardReduce(xb, gb, mean, var, sumDy, sumDyXhat, eps, s));
        k.launch(new KernelOp.BatchNormBackwardData(xb, gb, mean, var, gammab, sumDy, sumDyXhat, dx, eps, count, s));
        assertReferenceDirectionalDerivative(
                "batch_norm_backward_data " + s,
                x,
                down(dx, s.length()),
                xs -> weighted(Reference.batchNormTraining(xs, wide(gamma), wide(beta), eps, s), g));
        assertReferenceDirectionalDerivative(
                "batch_norm_backward_reduce (gamma) " + s,
                gamma,
                down(sumDyXhat, c),
                gs -> weighted(Reference.batchNormTraining(wide(x), gs, wide(beta), eps, s), g));
        assertReferenceDirectionalDerivative(
                "batch_norm_backward_reduce (beta) " + s,
                beta,
                down(sumDy, c),
                bs -> weighted(Reference.batchNormTraining(wide(x), wide(gamma), bs, eps, s), g));
    }

    /**
     * A channel whose values are all alike but for a tiny spread, as a convolution of N(0, 0.01²) weights plus its
     * bias gives: its variance is the spread's, which {@code E[x²] − E[x]²} in float32 would lose entirely.
     */
    @Test
    void squaredDeviationsKeepTheSpreadOfValuesFarFromZero() {
        BiasShape s = new BiasShape(64, 3, 49);
        float[] x = randomFloats(s.length());
        for (int i = 0; i < x.length; i++) {
            x[i] = 0.3f + 1e-3f * x[i];
        }
        Buffer xb = up(x), mean = out(3), m2 = out(3);
        k.launch(new BiasAddBackward(xb, mean, s));
        k.launch(new Scale(1f / (s.outer() * s.inner()), mean, 3));
        k.launch(new KernelOp.SquaredDeviations(xb, mean, m2, s));
        double[] exactMean = Reference.biasAddBackward(wide(x), s);
        for (int c = 0; c < 3; c++) {
            exactMean[c] /= s.outer() * s.inner();
        }
        assertClose("squared_deviations " + s, Reference.squaredDeviations(wide(x), exactMean, s), down(m2, 3));
    }

    /** BatchNorm at every channel count and plane size of ResNet-18 on 28×28 images, at small batches. */
    static Stream<BiasShape> batchNormShapes() {
        return Stream.of(
                new BiasShape(3, 64, 784),
                new BiasShape(2, 128, 196),
                new BiasShape(2, 256, 49),
                new BiasShape(5, 512, 16),
                new BiasShape(1, 512, 16));
    }

    @ParameterizedTest
    @MethodSource("batchNormShapes")
    void batchNormKernelsMatchReference(BiasShape s) {
        int c = s.channels();
        float[] x = randomFloats(s.length()), dy = randomFloats(s.length()), mean = randomFloats(c);
        float[] var = randomFloats(c), gamma = randomFloats(c), beta = randomFloats(c);
        for (int i = 0; i < c; i++) {
            var[i] = var[i] * var[i] + 0.01f;
        }
        float eps = 1e-5f;
        Buffer xb = up(x), dyb = up(dy), meanb = up(mean), varb = up(var), gammab = up(gamma);
        Buffer m2 = out(c), y = out(s.length()), sumDy = out(c), sumDyXhat = out(c), dx = out(s.length());
        k.launch(new KernelOp.SquaredDeviations(xb, meanb, m2, s));
        assertClose("squared_deviations " + s, Reference.squaredDeviations(wide(x), wide(mean), s), down(m2, c));
        k.launch(new KernelOp.BatchNormForward(xb, meanb, varb, gammab, up(beta), y, eps, s));
        assertClose(
                "batch_norm_forward " + s,
                Reference.batchNormForward(wide(x), wide(mean), wide(var), wide(gamma), wide(beta), eps, s),
                down(y, s.length()));
        k.launch(new KernelOp.BatchNormBackwardReduce(xb, dyb, meanb, varb, sumDy, sumDyXhat, eps, s));
        double[][] sums = Reference.batchNormBackwardReduce(wide(x), wide(dy), wide(mean), wide(var), eps, s);
        assertClose("batch_norm_backward_reduce sum_dy " + s, sums[0], down(sumDy, c));
        assertClose("batch_norm_backward_reduce sum_dy_xhat " + s, sums[1], down(sumDyXhat, c));
        long count = (long) s.outer() * s.inner();
        k.launch(new KernelOp.BatchNormBackwardData(xb, dyb, meanb, varb, gammab, sumDy, sumDyXhat, dx, eps, count, s));
        assertClose(
                "batch_norm_backward_data " + s,
                Reference.batchNormBackwardData(
                        wide(x),
                        wide(dy),
                        wide(mean),
                        wide(var),
                        wide(gamma),
                        wide(down(sumDy, c)),
                        wide(down(sumDyXhat, c)),
                        eps,
                        count,
                        s),
                down(dx, s.length()));
    }

    @ParameterizedTest
    @MethodSource("smallPoolShapes")
    void poolBackwardMatchesFiniteDifferences(PoolShape s) {
        float[] x = randomFloats(s.inputLength()), g = randomFloats(s.outputLength());
        Buffer y = out(s.outputLength()), dx = out(s.inputLength());
        k.launch(new AvgPoolBackward(up(g), dx, s));
        assertDirectionalDerivative("avg_pool_backward " + s, x, down(dx, s.inputLength()), 0.1f, xs -> {
            k.launch(new AvgPoolForward(up(xs), y, s));
            return weighted(y, s.outputLength(), g);
        });
    }

    @ParameterizedTest
    @MethodSource("lengths")
    void reluBackwardMatchesFiniteDifferences(int n) {
        float[] x = randomFloats(n), g = randomFloats(n);
        for (int i = 0; i < n; i++) {
            x[i] = Math.copySign(0.2f + Math.abs(x[i]), x[i]); // away from the kink at 0
        }
        Buffer y = out(n), dx = out(n);
        k.launch(new ReluBackward(up(x), up(g), dx, n));
        assertDirectionalDerivative("relu_backward", x, down(dx, n), 0.1f, xs -> {
            k.launch(new ReluForward(up(xs), y, n));
            return weighted(y, n, g);
        });
    }

    /**
     * The finite difference is taken on the float64 reference's forward pass: the device's float32 losses, summed
     * over 129,068 rows, lose the digits a difference with a step of 0.01 needs (seed 30443481427887 put it 1.3 %
     * off on cpu), and x is moved in float64 too ({@link #assertReferenceDirectionalDerivative}). The device's
     * forward pass is checked against the same reference elsewhere.
     */
    @ParameterizedTest
    @MethodSource("lengths")
    void softmaxCrossEntropyBackwardMatchesFiniteDifferences(int batch) {
        int classes = 10;
        float[] logits = randomFloats(batch * classes), labels = new float[batch];
        for (int i = 0; i < batch; i++) {
            labels[i] = random.nextInt(classes);
        }
        Buffer d = out(batch * classes);
        k.launch(new SoftmaxCrossEntropyBackward(up(logits), up(labels), d, batch, classes));
        assertReferenceDirectionalDerivative(
                "softmax_xent_backward",
                logits,
                down(d, batch * classes),
                zs -> Arrays.stream(Reference.softmaxCrossEntropyForward(zs, wide(labels), batch, classes))
                        .sum());
    }

    // --- one training step -----------------------------------------------------------------------------

    /**
     * A small CNN, x [3, 1, 6, 6] → conv 2×1×3×3 + b → ReLU → avg-pool 2/2 → flatten 8 → dense 8×3 + b →
     * softmax cross-entropy, one SGD step {@code p -= lr · grad / batch}: on the device and in float64.
     */
    @Test
    void oneTrainingStepMatchesReferenceStep() {
        int batch = 3, classes = 3;
        ConvShape cs = new ConvShape(batch, 1, 6, 6, 2, 3, 3);
        BiasShape convBias = cs.bias();
        PoolShape ps = new PoolShape(batch * 2, 4, 4, 2, 2);
        BiasShape denseBias = new BiasShape(batch, classes, 1);
        int features = 8;
        float lr = 0.5f;
        float[] x = randomFloats(cs.inputLength()),
                w1 = randomFloats(cs.filterLength()),
                b1 = randomFloats(2),
                w2 = randomFloats(features * classes),
                b2 = randomFloats(classes);
        float[] labels = {0, 2, 1};

        // On the device.
        Buffer xB = up(x), w1B = up(w1), b1B = up(b1), w2B = up(w2), b2B = up(b2), yB = up(labels);
        Buffer conv = out(cs.outputLength()),
                act = out(cs.outputLength()),
                pool = out(ps.outputLength()),
                logits = out(batch * classes);
        k.launch(new Conv2dForward(xB, w1B, conv, cs));
        k.launch(new BiasAdd(conv, b1B, convBias));
        k.launch(new ReluForward(conv, act, cs.outputLength()));
        k.launch(new AvgPoolForward(act, pool, ps));
        k.launch(new Gemm(false, false, batch, classes, features, 1f, pool, w2B, 0f, logits));
        k.launch(new BiasAdd(logits, b2B, denseBias));
        Buffer dLogits = out(batch * classes),
                dW2 = out(features * classes),
                dB2 = out(classes),
                dPool = out(ps.outputLength()),
                dAct = out(cs.outputLength()),
                dConv = out(cs.outputLength()),
                dW1 = out(cs.filterLength()),
                dB1 = out(2);
        k.launch(new SoftmaxCrossEntropyBackward(logits, yB, dLogits, batch, classes));
        k.launch(new Gemm(true, false, features, classes, batch, 1f, pool, dLogits, 0f, dW2));
        k.launch(new BiasAddBackward(dLogits, dB2, denseBias));
        k.launch(new Gemm(false, true, batch, features, classes, 1f, dLogits, w2B, 0f, dPool));
        k.launch(new AvgPoolBackward(dPool, dAct, ps));
        k.launch(new ReluBackward(conv, dAct, dConv, cs.outputLength()));
        k.launch(new Conv2dBackwardFilter(xB, dConv, dW1, cs));
        k.launch(new BiasAddBackward(dConv, dB1, convBias));
        float step = -lr / batch;
        List<Buffer> params = List.of(w1B, b1B, w2B, b2B);
        List<Buffer> grads = List.of(dW1, dB1, dW2, dB2);
        for (int i = 0; i < params.size(); i++) {
            k.launch(new Axpy(step, grads.get(i), params.get(i), params.get(i).length()));
        }

        // In float64.
        double[] rConv = Reference.biasAdd(Reference.conv2dForward(wide(x), wide(w1), cs), wide(b1), convBias);
        double[] rAct = Reference.reluForward(rConv);
        double[] rPool = Reference.avgPoolForward(rAct, ps);
        double[] rLogits = Reference.biasAdd(
                Reference.gemm(false, false, batch, classes, features, 1, rPool, wide(w2), 0, null),
                wide(b2),
                denseBias);
        double[] rdLogits = Reference.softmaxCrossEntropyBackward(rLogits, wide(labels), batch, classes);
        double[] rdW2 = Reference.gemm(true, false, features, classes, batch, 1, rPool, rdLogits, 0, null);
        double[] rdB2 = Reference.biasAddBackward(rdLogits, denseBias);
        double[] rdPool = Reference.gemm(false, true, batch, features, classes, 1, rdLogits, wide(w2), 0, null);
        double[] rdConv = Reference.reluBackward(rConv, Reference.avgPoolBackward(rdPool, ps));
        double[] rdW1 = Reference.conv2dBackwardFilter(wide(x), rdConv, cs);
        double[] rdB1 = Reference.biasAddBackward(rdConv, convBias);
        List<float[]> start = List.of(w1, b1, w2, b2);
        List<double[]> rGrads = List.of(rdW1, rdB1, rdW2, rdB2);
        String[] names = {"W1", "b1", "W2", "b2"};
        for (int i = 0; i < params.size(); i++) {
            double[] expected = wide(start.get(i));
            for (int j = 0; j < expected.length; j++) {
                expected[j] -= (double) lr / batch * rGrads.get(i)[j];
            }
            assertClose("parameter " + names[i] + " after one step", expected, down(params.get(i), expected.length));
        }
    }

    // --- memory, and the shared gate -------------------------------------------------------------------

    @Test
    void memoryRoundTripsThroughUploadDownloadSlicesAndCopies() {
        Buffer zeros = device.allocate(5);
        assertArrayEquals(new float[5], down(zeros, 5), "a new buffer is all zero");
        float[] values = randomFloats(10);
        Buffer b = up(values);
        assertArrayEquals(values, down(b, 10));
        device.upload(new float[] {7, 8}, 0, b.slice(3, 2));
        float[] expected = values.clone();
        expected[3] = 7;
        expected[4] = 8;
        assertArrayEquals(expected, down(b, 10), "an upload into a slice writes only that window");
        Buffer copy = device.allocate(4);
        device.copyFromPeer(b.slice(2, 4), copy);
        assertArrayEquals(Arrays.copyOfRange(expected, 2, 6), down(copy, 4));
        k.launch(new Axpy(1f, copy, b.slice(6, 4), 4));
        for (int i = 0; i < 4; i++) {
            expected[6 + i] += expected[2 + i];
        }
        assertArrayEquals(expected, down(b, 10), "a kernel on a slice writes only that window");
    }

    @Test
    void kernelsRefuseBuffersTooShortForTheShape() {
        Buffer small = device.allocate(3);
        DeviceException e = assertThrows(DeviceException.class, () -> k.launch(new ReluForward(small, small, 4)));
        assertTrue(e.getMessage().contains("needs 4"), e.getMessage());
    }

    @Test
    void statsCountKernelsFlopsAndBytes() {
        DeviceStats before = device.stats();
        int m = 4, n = 5, kk = 6;
        Buffer a = device.upload(randomFloats(m * kk)),
                b = device.upload(randomFloats(kk * n)),
                c = device.allocate(m * n);
        k.launch(new Gemm(false, false, m, n, kk, 1f, a, b, 0f, c));
        DeviceStats after = device.stats();
        assertEquals(1, after.kernelLaunches() - before.kernelLaunches());
        assertEquals(2L * m * n * kk, after.flops() - before.flops());
        assertEquals((long) Float.BYTES * (m * kk + kk * n), after.bytesUploaded() - before.bytesUploaded());
        assertTrue(after.peakAllocatedBytes() >= (long) Float.BYTES * (m * kk + kk * n + m * n));
        c.close();
        device.resetPeakMemory();
        DeviceStats reset = device.stats();
        assertEquals(reset.allocatedBytes(), reset.peakAllocatedBytes(), "the peak counts from now on");
        a.close();
        b.close();
    }
}
