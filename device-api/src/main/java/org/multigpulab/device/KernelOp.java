package org.multigpulab.device;

import static java.lang.annotation.ElementType.RECORD_COMPONENT;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * What a kernel op is: its name in traces, stats and the OpenCL program ({@code conv2d_forward}) and its buffer
 * arguments, each read, written or updated (read and written back: accumulated into or changed in place). Every op
 * is declared once, as a record of the sealed {@link Call} below: its buffers, marked {@link Reads}, {@link Writes}
 * or {@link Updates}, its shape, the elements each buffer must hold, its floating-point operations, and its
 * contract as a formula. This description is read from that record ({@link #of}).
 *
 * <p>Everything generic about a kernel call derives from the records: {@link InstrumentedKernels}' buffer checks,
 * counts and timing, the {@code sim} backend's read/write hazards and simulated time, the OpenCL backend's kernel
 * table. Every backend, the float64 reference and the cost model handle the ops in one exhaustive {@code switch}
 * with no {@code default}, so a new record makes the compiler name each of them. A {@link Fused} op is an op like
 * any other, declared as the composition of named ops; a backend without a kernel of its own for it launches that
 * composition ({@link Fused#launchComposed}).
 *
 * @param type the op's record
 * @param kernelName the op's name in snake case, from the record's: {@code Conv2dForward} is {@code conv2d_forward}
 * @param args the buffer arguments, in the order of the record's components
 */
public record KernelOp(Class<? extends Call> type, String kernelName, List<Arg> args) {

    /** One buffer argument of an op: its component's name, also in error messages, and what the op does to it. */
    public record Arg(String role, boolean reads, boolean writes) {}

    /** A buffer the op reads. */
    @Retention(RUNTIME)
    @Target(RECORD_COMPONENT)
    public @interface Reads {}

    /** A buffer the op overwrites without reading it. */
    @Retention(RUNTIME)
    @Target(RECORD_COMPONENT)
    public @interface Writes {}

    /** A buffer the op reads and writes back: accumulated into or changed in place. */
    @Retention(RUNTIME)
    @Target(RECORD_COMPONENT)
    public @interface Updates {}

    /** Each op's record, read once. */
    private static final ClassValue<Access> ACCESS = new ClassValue<>() {
        @Override
        @SuppressWarnings("unchecked")
        protected Access computeValue(Class<?> type) {
            return new Access((Class<? extends Call>) type);
        }
    };

    /** The description of the op whose record is {@code type}. */
    public static KernelOp of(Class<? extends Call> type) {
        return ACCESS.get(type).op;
    }

    /** Every op, in the order they are declared below. */
    public static List<KernelOp> all() {
        return ALL;
    }

    private static final List<KernelOp> ALL =
            records(Call.class).map(KernelOp::of).toList();

    @SuppressWarnings("unchecked")
    private static Stream<Class<? extends Call>> records(Class<?> sealed) {
        return Arrays.stream(sealed.getPermittedSubclasses())
                .flatMap(c -> c.isRecord() ? Stream.of((Class<? extends Call>) c) : records(c));
    }

    /**
     * One call of an op with its arguments: a value, made per launch. It holds the buffers, so it is kept no
     * longer than until it has run ({@code sim} queues it until then). Buffer {@code i} is the {@code i}-th of
     * {@link KernelOp#args()}. Tensors are dense, row-major float32; a buffer may be longer than the shape needs,
     * and only its first elements are read or written. Outputs are overwritten unless the op updates them, and an
     * output never aliases an input unless the op says it may.
     */
    public sealed interface Call
            permits Fused,
                    Conv2dForward,
                    Conv2dBackwardData,
                    Conv2dBackwardFilter,
                    BiasAdd,
                    BiasAddBackward,
                    AvgPoolForward,
                    AvgPoolBackward,
                    MaxPoolForward,
                    MaxPoolBackward,
                    ReluForward,
                    ReluBackward,
                    Gemm,
                    SoftmaxCrossEntropyForward,
                    SoftmaxCrossEntropyBackward,
                    Axpy,
                    Scale,
                    Add,
                    Fill,
                    SgdStep,
                    AdamStep,
                    SquaredDeviations,
                    BatchNormForward,
                    BatchNormRunningUpdate,
                    BatchNormBackwardReduce,
                    BatchNormBackwardData,
                    ArgmaxMatches {

        /** What this op is. */
        default KernelOp op() {
            return KernelOp.of(getClass());
        }

        /** Buffer argument {@code i}, in the order of {@link KernelOp#args()}. */
        default Buffer buffer(int i) {
            return ACCESS.get(getClass()).buffer(this, i);
        }

        /** How many elements buffer {@code i} must hold for the shape of this call. */
        long needed(int i);

        /** Floating-point operations this call does. */
        long flops();

        /** The same call with {@code map.apply(b)} in place of each buffer {@code b} ({@code sim} passes the buffers underneath its logical ones). */
        default Call withBuffers(UnaryOperator<Buffer> map) {
            return ACCESS.get(getClass()).withBuffers(this, map);
        }

        /** Whether this call reads buffer {@code i}. */
        default boolean reads(int i) {
            return op().args().get(i).reads();
        }

        /** Whether this call writes buffer {@code i}. */
        default boolean writes(int i) {
            return op().args().get(i).writes();
        }

        /**
         * The calls of the separate ops that software without this op's kernel launches in its place, for a cost
         * model ({@code relu_forward} then {@code avg_pool_forward} for {@code relu_avg_pool_forward}, as the
         * notebook's PyTorch does); for an op that is not {@link Fused}, this call alone. They are for costing,
         * never launched: the intermediate tensors they pass, which the fused op never stores, are {@code null}.
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
            for (int i = 0; i < op().args().size(); i++) {
                elements += needed(i) * ((reads(i) ? 1 : 0) + (writes(i) ? 1 : 0));
            }
            return Float.BYTES * elements;
        }
    }

    /**
     * An op that does in one kernel what named separate ops do one after another, with the same result: fewer
     * passes over memory, and intermediate tensors never stored. A backend without a kernel of its own for it
     * launches {@link #launchComposed}; its FLOPs are those of the separate ops, the model's arithmetic.
     */
    public sealed interface Fused extends Call
            permits Conv2dBiasForward,
                    ReluAvgPoolForward,
                    ReluAvgPoolBackward,
                    Conv2dBiasReluAvgPoolForward,
                    Conv2dBiasReluAvgPoolBackward {

        /** Launches the separate ops on {@code kernels}, on buffers of the device allocated for the call where needed. */
        void launchComposed(Kernels kernels);

        @Override
        List<Call> unfused();

        @Override
        default long flops() {
            return unfused().stream().mapToLong(Call::flops).sum();
        }
    }

    // One record per op: its contract, its buffers, the elements each needs, its FLOPs. Forward and backward
    // passes side by side.

    // Convolution: forward and both backward passes side by side.

    /** {@code y[n,o,i,j] = Σ_{c,p,q} x[n,c,i+p,j+q] · w[o,c,p,q]}. */
    public record Conv2dForward(
            @Reads Buffer x, @Reads Buffer w, @Writes Buffer y, ConvShape s) implements Call {
        public long needed(int i) {
            return pick(i, s.inputLength(), s.filterLength(), s.outputLength());
        }

        public long flops() {
            return s.flops();
        }
    }

    /** {@code dx = ∂(Σ y·dy)/∂x}: the full correlation of {@code dy} with the flipped filter. */
    public record Conv2dBackwardData(
            @Reads Buffer dy, @Reads Buffer w, @Writes Buffer dx, ConvShape s) implements Call {
        public long needed(int i) {
            return pick(i, s.outputLength(), s.filterLength(), s.inputLength());
        }

        public long flops() {
            return s.flops();
        }
    }

    /** {@code dw = ∂(Σ y·dy)/∂w}: the correlation of {@code x} with {@code dy}, summed over the batch. */
    public record Conv2dBackwardFilter(
            @Reads Buffer x, @Reads Buffer dy, @Writes Buffer dw, ConvShape s) implements Call {
        public long needed(int i) {
            return pick(i, s.inputLength(), s.outputLength(), s.filterLength());
        }

        public long flops() {
            return s.flops();
        }
    }

    // Bias: also cuDNN's convolution backward-bias.

    /** {@code y[o,c,i] += b[c]} (in place). */
    public record BiasAdd(@Updates Buffer y, @Reads Buffer b, BiasShape s) implements Call {
        public long needed(int i) {
            return pick(i, s.length(), s.channels());
        }

        public long flops() {
            return s.length();
        }
    }

    /** {@code db[c] = Σ_{o,i} dy[o,c,i]}. */
    public record BiasAddBackward(@Reads Buffer dy, @Writes Buffer db, BiasShape s) implements Call {
        public long needed(int i) {
            return pick(i, s.length(), s.channels());
        }

        public long flops() {
            return s.length();
        }
    }

    // Average pooling.

    /** {@code y} = the mean of each window of {@code x}. */
    public record AvgPoolForward(@Reads Buffer x, @Writes Buffer y, PoolShape s) implements Call {
        public AvgPoolForward {
            unpadded(AvgPoolForward.class, s);
        }

        public long needed(int i) {
            return pick(i, s.inputLength(), s.outputLength());
        }

        public long flops() {
            return (long) s.outputLength() * s.window() * s.window();
        }
    }

    /** {@code dx} = each window's {@code dy} spread evenly over the window (zero where no window reaches). */
    public record AvgPoolBackward(@Reads Buffer dy, @Writes Buffer dx, PoolShape s) implements Call {
        public AvgPoolBackward {
            unpadded(AvgPoolBackward.class, s);
        }

        public long needed(int i) {
            return pick(i, s.outputLength(), s.inputLength());
        }

        public long flops() {
            return (long) s.outputLength() * s.window() * s.window();
        }
    }

    // Max pooling (torchvision's ResNet stem: a 3×3 window, stride 2, padding 1).

    /** {@code y} = the largest element of each window of {@code x}, the padding taking no part. */
    public record MaxPoolForward(@Reads Buffer x, @Writes Buffer y, PoolShape s) implements Call {
        public long needed(int i) {
            return pick(i, s.inputLength(), s.outputLength());
        }

        /** A comparison per element of each window. */
        public long flops() {
            return (long) s.outputLength() * s.window() * s.window();
        }
    }

    /**
     * {@code dx} = each window's {@code dy} added at the window's largest element of {@code x} (the first in row-major
     * order where several are equal, as PyTorch picks it), zero where no window's maximum lies; {@code x} is what
     * {@link MaxPoolForward} read, from which the maxima are found again.
     */
    public record MaxPoolBackward(
            @Reads Buffer x, @Reads Buffer dy, @Writes Buffer dx, PoolShape s) implements Call {
        public long needed(int i) {
            return pick(i, s.inputLength(), s.outputLength(), s.inputLength());
        }

        public long flops() {
            return (long) s.outputLength() * s.window() * s.window();
        }
    }

    // ReLU.

    /** {@code y = max(x, 0)} over {@code n} elements. */
    public record ReluForward(@Reads Buffer x, @Writes Buffer y, int n) implements Call {
        public ReluForward {
            count(ReluForward.class, n);
        }

        public long needed(int i) {
            return n;
        }

        public long flops() {
            return n;
        }
    }

    /** {@code dx = x > 0 ? dy : 0} over {@code n} elements. */
    public record ReluBackward(
            @Reads Buffer x, @Reads Buffer dy, @Writes Buffer dx, int n) implements Call {
        public ReluBackward {
            count(ReluBackward.class, n);
        }

        public long needed(int i) {
            return n;
        }

        public long flops() {
            return n;
        }
    }

    // Fused ops.

    /**
     * {@code y[n,o,i,j] = Σ_{c,p,q} x[n,c,i+p,j+q] · w[o,c,p,q] + b[o]}: {@link Conv2dForward} then {@link BiasAdd},
     * as {@code F.conv2d(x, w, b)} in one pass, the output written once where the two ops write it and then read and
     * write it again.
     */
    public record Conv2dBiasForward(
            @Reads Buffer x,
            @Reads Buffer w,
            @Reads Buffer b,
            @Writes Buffer y,
            ConvShape s) implements Fused {
        public long needed(int i) {
            return pick(i, s.inputLength(), s.filterLength(), s.outChannels(), s.outputLength());
        }

        public List<Call> unfused() {
            return List.of(new Conv2dForward(x, w, y, s), new BiasAdd(y, b, s.bias()));
        }

        public void launchComposed(Kernels k) {
            k.launch(new Conv2dForward(x, w, y, s));
            k.launch(new BiasAdd(y, b, s.bias()));
        }
    }

    /**
     * {@code y} = the mean of each window of {@code max(x, 0)}: {@link ReluForward} then {@link AvgPoolForward} in one
     * pass over the activations, the rectified ones never stored.
     */
    public record ReluAvgPoolForward(
            @Reads Buffer x, @Writes Buffer y, PoolShape s) implements Fused {
        public ReluAvgPoolForward {
            unpadded(ReluAvgPoolForward.class, s);
        }

        public long needed(int i) {
            return pick(i, s.inputLength(), s.outputLength());
        }

        public List<Call> unfused() {
            return List.of(new ReluForward(x, null, s.inputLength()), new AvgPoolForward(null, y, s));
        }

        public void launchComposed(Kernels k) {
            try (Buffer relu = x.device().allocate(s.inputLength())) {
                k.launch(new ReluForward(x, relu, s.inputLength()));
                k.launch(new AvgPoolForward(relu, y, s));
            }
        }
    }

    /**
     * {@code dx = x > 0 ? (each window's dy spread evenly over the window) : 0}: {@link AvgPoolBackward} then
     * {@link ReluBackward}, where {@code x} is what {@link ReluAvgPoolForward} read.
     */
    public record ReluAvgPoolBackward(
            @Reads Buffer x, @Reads Buffer dy, @Writes Buffer dx, PoolShape s) implements Fused {
        public ReluAvgPoolBackward {
            unpadded(ReluAvgPoolBackward.class, s);
        }

        public long needed(int i) {
            return pick(i, s.inputLength(), s.outputLength(), s.inputLength());
        }

        public List<Call> unfused() {
            return List.of(new AvgPoolBackward(dy, null, s), new ReluBackward(x, null, dx, s.inputLength()));
        }

        public void launchComposed(Kernels k) {
            try (Buffer pooled = x.device().allocate(s.inputLength())) {
                k.launch(new AvgPoolBackward(dy, pooled, s));
                k.launch(new ReluBackward(x, pooled, dx, s.inputLength()));
            }
        }
    }

    /**
     * {@code y} = the mean of each pooling window of {@code max(conv2d(x, w) + b, 0)}: {@link Conv2dBiasForward} then
     * {@link ReluAvgPoolForward}, for a network's first layer. The convolution's output is never stored (13.8 MB a
     * batch of 256 after LeNet's first layer, which the separate ops write once and read twice).
     */
    public record Conv2dBiasReluAvgPoolForward(
            @Reads Buffer x,
            @Reads Buffer w,
            @Reads Buffer b,
            @Writes Buffer y,
            ConvPoolShape s) implements Fused {
        public long needed(int i) {
            ConvShape c = s.conv();
            return pick(i, c.inputLength(), c.filterLength(), c.outChannels(), s.outputLength());
        }

        public List<Call> unfused() {
            return List.of(
                    new Conv2dForward(x, w, null, s.conv()),
                    new BiasAdd(null, b, s.conv().bias()),
                    new ReluForward(null, null, s.conv().outputLength()),
                    new AvgPoolForward(null, y, s.pool()));
        }

        public void launchComposed(Kernels k) {
            try (Buffer conv = x.device().allocate(s.conv().outputLength())) {
                k.launch(new Conv2dBiasForward(x, w, b, conv, s.conv()));
                k.launch(new ReluAvgPoolForward(conv, y, s.pool()));
            }
        }
    }

    /**
     * {@code dw} and {@code db}, the gradients of {@code Σ y·dy} for {@code y} of {@link Conv2dBiasReluAvgPoolForward},
     * for a convolution whose input needs no gradient: {@link Conv2dBiasForward} again (rather than the stored
     * output, which the forward pass never stored), {@link ReluAvgPoolBackward}, then {@link Conv2dBackwardFilter}
     * and {@link BiasAddBackward} of the convolution's gradient, which is never stored either. A backend may sum in
     * another order than those ops do, within float32's rounding of the same sums.
     */
    public record Conv2dBiasReluAvgPoolBackward(
            @Reads Buffer x,
            @Reads Buffer w,
            @Reads Buffer b,
            @Reads Buffer dy,
            @Writes Buffer dw,
            @Writes Buffer db,
            ConvPoolShape s)
            implements Fused {
        public long needed(int i) {
            ConvShape c = s.conv();
            return i < 3
                    ? pick(i, c.inputLength(), c.filterLength(), c.outChannels())
                    : pick(i - 3, s.outputLength(), c.filterLength(), c.outChannels());
        }

        /**
         * The backward ops the notebook's PyTorch runs (pooling's and ReLU's gradients, the filter's and the
         * bias's), without the forward pass a backend computes again where PyTorch keeps it.
         */
        public List<Call> unfused() {
            int n = s.conv().outputLength();
            return List.of(
                    new AvgPoolBackward(dy, null, s.pool()),
                    new ReluBackward(null, null, null, n),
                    new Conv2dBackwardFilter(x, null, dw, s.conv()),
                    new BiasAddBackward(null, db, s.conv().bias()));
        }

        public void launchComposed(Kernels k) {
            int n = s.conv().outputLength();
            try (Buffer conv = x.device().allocate(n);
                    Buffer dconv = x.device().allocate(n)) {
                k.launch(new Conv2dBiasForward(x, w, b, conv, s.conv()));
                k.launch(new ReluAvgPoolBackward(conv, dy, dconv, s.pool()));
                k.launch(new Conv2dBackwardFilter(x, dconv, dw, s.conv()));
                k.launch(new BiasAddBackward(dconv, db, s.conv().bias()));
            }
        }
    }

    // Matrix multiply.

    /**
     * {@code c[m,n] = alpha · op(a) · op(b) + beta · c}, where {@code op(a)} is {@code a[m,k]} or, transposed,
     * {@code a[k,m]ᵀ}, and likewise {@code op(b)} is {@code b[k,n]} or {@code b[n,k]ᵀ}. With {@code beta == 0} the
     * old contents of {@code c} are not read.
     */
    public record Gemm(
            boolean transA,
            boolean transB,
            int m,
            int n,
            int k,
            float alpha,
            @Reads Buffer a,
            @Reads Buffer b,
            float beta,
            @Updates Buffer c)
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

        public long needed(int i) {
            return pick(i, (long) m * k, (long) k * n, (long) m * n);
        }

        public long flops() {
            return flops(m, n, k);
        }

        /** With {@code beta == 0} the old contents of {@code c} are not read. */
        public boolean reads(int i) {
            return i < 2 || beta != 0;
        }
    }

    // Softmax cross-entropy, the loss of the seed (reduction "none").

    /** {@code loss[i] = −log softmax(logits[i,:])[labels[i]]}; labels are class indices stored as floats. */
    public record SoftmaxCrossEntropyForward(
            @Reads Buffer logits,
            @Reads Buffer labels,
            @Writes Buffer loss,
            int batch,
            int classes) implements Call {
        public long needed(int i) {
            return pick(i, (long) batch * classes, batch, batch);
        }

        public long flops() {
            return 4L * batch * classes;
        }
    }

    /** {@code dlogits[i,:] = softmax(logits[i,:]) − onehot(labels[i])}: the gradient of the summed loss {@code Σ_i loss[i]}. */
    public record SoftmaxCrossEntropyBackward(
            @Reads Buffer logits,
            @Reads Buffer labels,
            @Writes Buffer dlogits,
            int batch,
            int classes) implements Call {
        public long needed(int i) {
            return pick(i, (long) batch * classes, batch, (long) batch * classes);
        }

        public long flops() {
            return 4L * batch * classes;
        }
    }

    // BLAS-1 helpers.

    /** {@code y += alpha · x} over {@code n} elements (accumulates into {@code y}). */
    public record Axpy(
            float alpha, @Reads Buffer x, @Updates Buffer y, int n) implements Call {
        public Axpy {
            count(Axpy.class, n);
        }

        public long needed(int i) {
            return n;
        }

        public long flops() {
            return 2L * n;
        }
    }

    /** {@code x *= alpha} over {@code n} elements, in place. */
    public record Scale(float alpha, @Updates Buffer x, int n) implements Call {
        public Scale {
            count(Scale.class, n);
        }

        public long needed(int i) {
            return n;
        }

        public long flops() {
            return n;
        }
    }

    /** {@code out = a + b} over {@code n} elements; {@code out} may be {@code a} or {@code b}. */
    public record Add(
            @Reads Buffer a, @Reads Buffer b, @Writes Buffer out, int n) implements Call {
        public Add {
            count(Add.class, n);
        }

        public long needed(int i) {
            return n;
        }

        public long flops() {
            return n;
        }
    }

    /** {@code x = value} over {@code n} elements. */
    public record Fill(float value, @Writes Buffer x, int n) implements Call {
        public Fill {
            count(Fill.class, n);
        }

        public long needed(int i) {
            return n;
        }

        public long flops() {
            return 0;
        }
    }

    // Optimizers: torch.optim's update rules, each one kernel over a parameter.

    /**
     * One step of {@code torch.optim.SGD} over {@code n} elements, with {@code g = gradScale · grad} (the gradient of
     * the mean loss, from the summed one): {@code g += weightDecay · p}; with momentum, {@code buf = g} on the
     * {@code first} step (undampened), else {@code buf = momentum · buf + (1 − dampening) · g}, and {@code g = g +
     * momentum · buf} (Nesterov) or {@code g = buf}; then {@code p −= lr · g}. Without momentum {@code buf} is neither
     * read nor written, and may be {@code param}.
     */
    public record SgdStep(
            float lr,
            float momentum,
            float dampening,
            boolean nesterov,
            float weightDecay,
            float gradScale,
            boolean first,
            @Updates Buffer param,
            @Reads Buffer grad,
            @Updates Buffer momentumBuffer,
            int n)
            implements Call {
        public SgdStep {
            count(SgdStep.class, n);
        }

        public long needed(int i) {
            return n;
        }

        public long flops() {
            return 7L * n;
        }

        /** The momentum buffer is read after the first step only, and only with momentum. */
        public boolean reads(int i) {
            return i < 2 || (momentum != 0 && !first);
        }

        /** The momentum buffer is written only with momentum. */
        public boolean writes(int i) {
            return i == 0 || (i == 2 && momentum != 0);
        }
    }

    /**
     * One step {@code step} (from 1) of {@code torch.optim.Adam}, or with {@code decoupled} of {@code AdamW}, over
     * {@code n} elements, with {@code g = gradScale · grad}: AdamW first {@code p *= 1 − lr · weightDecay}, Adam
     * {@code g += weightDecay · p}; then {@code m += (1 − β1)(g − m)}, {@code v = β2 · v + (1 − β2) · g²}, and
     * {@code p −= stepSize · m / (√v / √(1 − β2^step) + ε)} with {@code stepSize = lr / (1 − β1^step)}, the bias
     * corrections taken in float64 as PyTorch's Python does.
     */
    public record AdamStep(
            float lr,
            float beta1,
            float beta2,
            float eps,
            float weightDecay,
            boolean decoupled,
            int step,
            float gradScale,
            @Updates Buffer param,
            @Reads Buffer grad,
            @Updates Buffer m,
            @Updates Buffer v,
            int n)
            implements Call {
        public AdamStep {
            count(AdamStep.class, n);
            if (step < 1) {
                throw new DeviceException("adam_step: the step counts from 1, not " + step);
            }
        }

        /** {@code lr / (1 − β1^step)}, as PyTorch computes it in Python. */
        public float stepSize() {
            return (float) (lr / (1 - Math.pow(beta1, step)));
        }

        /** AdamW's {@code 1 − lr · weightDecay}, as PyTorch computes it in Python, then rounded once to float32. */
        public float decay() {
            return (float) (1 - (double) lr * weightDecay);
        }

        /** {@code √(1 − β2^step)}, as PyTorch computes it in Python. */
        public float correctionSqrt() {
            return (float) Math.sqrt(1 - Math.pow(beta2, step));
        }

        public long needed(int i) {
            return n;
        }

        public long flops() {
            return 14L * n;
        }
    }

    // Batch normalisation (BatchNorm2d): per channel c of x viewed as [N, C, H·W] (its BiasShape). Training takes
    // each channel's mean from BiasAddBackward (Σ x) scaled by 1/count and its biased variance from SquaredDeviations
    // scaled the same way, two passes as PyTorch's processor kernels do (Σx² − (Σx)²/n cancels in float32); between
    // the steps synchronized BatchNorm sums them over the devices.

    /** {@code m2[c] = Σ_{n,i} (x[n,c,i] − mean[c])²}: the squared deviations from the mean, summed over the batch. */
    public record SquaredDeviations(
            @Reads Buffer x, @Reads Buffer mean, @Writes Buffer m2, BiasShape s) implements Call {
        public long needed(int i) {
            return pick(i, s.length(), s.channels(), s.channels());
        }

        public long flops() {
            return 3L * s.length();
        }
    }

    /**
     * {@code y[n,c,i] = (x[n,c,i] − mean[c]) / √(var[c] + eps) · gamma[c] + beta[c]}: {@code F.batch_norm} with the
     * batch's statistics (training) or the running ones (evaluation).
     */
    public record BatchNormForward(
            @Reads Buffer x,
            @Reads Buffer mean,
            @Reads Buffer var,
            @Reads Buffer gamma,
            @Reads Buffer beta,
            @Writes Buffer y,
            float eps,
            BiasShape s)
            implements Call {
        public long needed(int i) {
            return i == 0 || i == 5 ? s.length() : s.channels();
        }

        public long flops() {
            return 3L * s.length();
        }
    }

    /**
     * BatchNorm's running statistics after a training pass over {@code count} values a channel, as PyTorch updates
     * them: {@code runningMean = (1 − momentum) · runningMean + momentum · mean}, {@code runningVar = (1 − momentum) ·
     * runningVar + momentum · var · count / (count − 1)} (the unbiased variance, from the biased {@code var}), and
     * {@code tracked[0] += 1} ({@code num_batches_tracked}).
     */
    public record BatchNormRunningUpdate(
            @Reads Buffer mean,
            @Reads Buffer var,
            @Updates Buffer runningMean,
            @Updates Buffer runningVar,
            @Updates Buffer tracked,
            float momentum,
            long count,
            int channels)
            implements Call {
        public BatchNormRunningUpdate {
            KernelOp.count(BatchNormRunningUpdate.class, channels);
            if (count < 2) {
                throw new DeviceException("batch_norm_running_update: expected more than 1 value per channel when"
                        + " training, got " + count);
            }
        }

        public long needed(int i) {
            return i == 4 ? 1 : channels;
        }

        public long flops() {
            return 6L * channels;
        }
    }

    /**
     * The per-channel sums of BatchNorm's backward pass: {@code sumDy[c] = Σ_{n,i} dy[n,c,i]} (β's gradient) and
     * {@code sumDyXhat[c] = Σ_{n,i} dy[n,c,i] · x̂[n,c,i]} (γ's), where {@code x̂ = (x − mean[c]) / √(var[c] + eps)}.
     */
    public record BatchNormBackwardReduce(
            @Reads Buffer x,
            @Reads Buffer dy,
            @Reads Buffer mean,
            @Reads Buffer var,
            @Writes Buffer sumDy,
            @Writes Buffer sumDyXhat,
            float eps,
            BiasShape s)
            implements Call {
        public long needed(int i) {
            return i < 2 ? s.length() : s.channels();
        }

        public long flops() {
            return 5L * s.length();
        }
    }

    /**
     * The input's gradient through BatchNorm in training, whose statistics come from {@code count} values a channel
     * (the batch's, or with synchronized BatchNorm every device's): {@code dx = gamma[c] / √(var[c] + eps) · (dy −
     * sumDy[c] / count − x̂ · sumDyXhat[c] / count)}, with the sums of {@link BatchNormBackwardReduce} over the same
     * values.
     */
    public record BatchNormBackwardData(
            @Reads Buffer x,
            @Reads Buffer dy,
            @Reads Buffer mean,
            @Reads Buffer var,
            @Reads Buffer gamma,
            @Reads Buffer sumDy,
            @Reads Buffer sumDyXhat,
            @Writes Buffer dx,
            float eps,
            long count,
            BiasShape s)
            implements Call {
        public BatchNormBackwardData {
            if (count < 1) {
                throw new DeviceException("batch_norm_backward_data: the statistics need values, got " + count);
            }
        }

        public long needed(int i) {
            return i < 2 || i == 7 ? s.length() : s.channels();
        }

        public long flops() {
            return 8L * s.length();
        }
    }

    // Metrics.

    /**
     * {@code count[0]} = how many rows of {@code logits} have their largest value at the index given by
     * {@code labels} (the first maximum wins a tie, as in {@code torch.argmax}).
     */
    public record ArgmaxMatches(
            @Reads Buffer logits,
            @Reads Buffer labels,
            @Writes Buffer count,
            int batch,
            int classes) implements Call {
        public long needed(int i) {
            return pick(i, (long) batch * classes, batch, 1);
        }

        public long flops() {
            return (long) batch * classes;
        }
    }

    // --- what is read from the records, once per record --------------------------------------------------

    /** An op's description, its buffers' accessors and its canonical constructor, read from its record once. */
    private static final class Access {
        final KernelOp op;
        /** The accessor of each buffer component, in order. */
        final MethodHandle[] buffers;
        /** Where each buffer component stands among all components. */
        final int[] bufferAt;
        /** Each component's accessor, and the canonical constructor. */
        final MethodHandle[] components;

        final MethodHandle constructor;

        Access(Class<? extends Call> type) {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            RecordComponent[] all = type.getRecordComponents();
            List<Arg> args = new ArrayList<>();
            List<MethodHandle> bufferHandles = new ArrayList<>();
            List<Integer> at = new ArrayList<>();
            components = new MethodHandle[all.length];
            Class<?>[] types = new Class<?>[all.length];
            try {
                for (int i = 0; i < all.length; i++) {
                    RecordComponent c = all[i];
                    types[i] = c.getType();
                    components[i] =
                            lookup.unreflect(c.getAccessor()).asType(MethodType.methodType(Object.class, Call.class));
                    boolean reads = c.isAnnotationPresent(Reads.class) || c.isAnnotationPresent(Updates.class);
                    boolean writes = c.isAnnotationPresent(Writes.class) || c.isAnnotationPresent(Updates.class);
                    if (c.getType() == Buffer.class) {
                        if (reads == writes && !c.isAnnotationPresent(Updates.class)) {
                            throw new IllegalStateException(type.getSimpleName() + "." + c.getName()
                                    + " must be marked @Reads, @Writes or @Updates");
                        }
                        args.add(new Arg(c.getName(), reads, writes));
                        bufferHandles.add(components[i].asType(MethodType.methodType(Buffer.class, Call.class)));
                        at.add(i);
                    }
                }
                constructor = lookup.findConstructor(type, MethodType.methodType(void.class, types))
                        .asSpreader(Object[].class, all.length)
                        .asType(MethodType.methodType(Call.class, Object[].class));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("kernel op " + type.getName() + " is not a public record", e);
            }
            buffers = bufferHandles.toArray(MethodHandle[]::new);
            bufferAt = at.stream().mapToInt(Integer::intValue).toArray();
            op = new KernelOp(type, snakeCase(type.getSimpleName()), List.copyOf(args));
        }

        Buffer buffer(Call call, int i) {
            try {
                return (Buffer) buffers[i].invokeExact(call);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        Call withBuffers(Call call, UnaryOperator<Buffer> map) {
            try {
                Object[] values = new Object[components.length];
                for (int i = 0; i < values.length; i++) {
                    values[i] = (Object) components[i].invokeExact(call);
                }
                for (int i : bufferAt) {
                    values[i] = map.apply((Buffer) values[i]);
                }
                return (Call) constructor.invokeExact(values);
            } catch (RuntimeException e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }

    /** {@code Conv2dBiasForward} → {@code conv2d_bias_forward}. */
    private static String snakeCase(String name) {
        return name.replaceAll("(?<=[a-z0-9])(?=[A-Z])", "_").toLowerCase(Locale.ROOT);
    }

    private static void count(Class<? extends Call> op, int n) {
        if (n < 0) {
            throw new DeviceException(snakeCase(op.getSimpleName()) + ": element count must not be negative, got " + n);
        }
    }

    /** Average pooling's ops take windows without padding. */
    private static void unpadded(Class<? extends Call> op, PoolShape s) {
        if (s.padding() != 0) {
            throw new DeviceException(snakeCase(op.getSimpleName()) + ": takes no padding, got " + s);
        }
    }

    private static long pick(int i, long... elements) {
        if (i < 0 || i >= elements.length) {
            throw new IndexOutOfBoundsException(i);
        }
        return elements[i];
    }
}
