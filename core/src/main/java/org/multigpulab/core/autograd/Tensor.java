package org.multigpulab.core.autograd;

import java.util.Arrays;
import java.util.function.Supplier;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.Fill;

/**
 * A device buffer with a shape, and, when it takes part in differentiation, a gradient of the same shape.
 *
 * <p>A parameter keeps its gradient buffer from step to step (the notebook's {@code p.grad}); other tensors
 * live for one step on a {@link Tape}. A reshaped tensor is a view: it shares data and gradient with its base.
 * Not thread-safe.
 */
public final class Tensor {

    private Buffer data;
    private final Device device;
    private final int[] shape;
    private final boolean requiresGrad;
    private final Tensor base;
    private Buffer grad;
    private Buffer reservedGrad;
    /** Where a parameter's data comes from while it has none (ZeRO stage 3 gathers it); null for the others. */
    private Supplier<Buffer> dataOnDemand;
    /** Where a parameter's gradient storage comes from while it has none (ZeRO stages 2 and 3). */
    private Supplier<Buffer> gradientOnDemand;
    /** Whether it is a parameter, whose data and gradient storage may be bound to other buffers. */
    private boolean parameter;

    Tensor(Buffer data, int[] shape, boolean requiresGrad, Tensor base) {
        this(data.device(), data, shape, requiresGrad, base);
    }

    private Tensor(Device device, Buffer data, int[] shape, boolean requiresGrad, Tensor base) {
        this.data = data;
        this.device = device;
        this.shape = shape.clone();
        this.requiresGrad = requiresGrad;
        this.base = base;
        if (data != null && size() > data.length()) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " needs " + size()
                    + " floats but the buffer holds " + data.length());
        }
    }

    /** A tensor over {@code data} that takes part in differentiation when {@code requiresGrad}. */
    public static Tensor of(Buffer data, boolean requiresGrad, int... shape) {
        return new Tensor(data, shape, requiresGrad, null);
    }

    /**
     * A parameter over {@code data} whose gradient, once a backward pass writes one, lives in {@code gradStorage}:
     * a slice of one buffer holding all gradients, as PyTorch's DDP lays them out so that a bucket of them is
     * one contiguous range to send. Until then {@link #grad()} is {@code null}, as in the notebook.
     */
    public static Tensor parameter(Buffer data, Buffer gradStorage, int... shape) {
        Tensor t = new Tensor(data, shape, true, null);
        if (gradStorage.length() != t.size()) {
            throw new IllegalArgumentException(
                    "gradient storage of " + gradStorage.length() + " floats for a tensor of " + t.size());
        }
        t.reservedGrad = gradStorage;
        t.parameter = true;
        return t;
    }

    /**
     * A parameter on {@code device} that has neither data nor gradient storage yet: {@link #releaseData} and
     * {@link #releaseGradient} say where they come from when a pass needs them (ZeRO stage 3's parameters, which a
     * device holds only while a pass needs them).
     */
    public static Tensor parameter(Device device, int... shape) {
        Tensor t = new Tensor(device, null, shape, true, null);
        t.parameter = true;
        return t;
    }

    /**
     * Where the gradient goes on the first backward pass: the reserved storage (asked for first, if it comes on
     * demand), else {@code null}.
     */
    Buffer reservedGrad() {
        Tensor r = root();
        if (r.reservedGrad == null && r.gradientOnDemand != null) {
            r.reservedGrad = r.gradientOnDemand.get();
        }
        return r.reservedGrad;
    }

    /**
     * The tensor's data on its device. Of a tensor an op returned, read it through {@link Tape#data}, which writes it
     * first if the op was deferred for fusion.
     */
    public Buffer data() {
        Tensor r = root();
        if (r.data == null) {
            if (r.dataOnDemand == null) {
                throw new IllegalStateException("this parameter's data was released and nothing gathers it");
            }
            r.data = r.dataOnDemand.get();
        }
        return r.data;
    }

    public Device device() {
        return device;
    }

    public int[] shape() {
        return shape.clone();
    }

    public int dim(int axis) {
        return shape[axis];
    }

    public int size() {
        int n = 1;
        for (int d : shape) {
            n *= d;
        }
        return n;
    }

    public boolean requiresGrad() {
        return requiresGrad;
    }

    /** The gradient written by the last backward pass, or {@code null} before the first one (the notebook's None). */
    public Buffer grad() {
        return root().grad;
    }

    /**
     * Sets this parameter's gradient to zeros, in its reserved storage: the gradient of a parameter whose device
     * had no samples in a step, so it adds nothing to the sum over devices.
     */
    public void zeroGrad() {
        Buffer storage = reservedGrad();
        if (storage == null) {
            throw new IllegalStateException("only a parameter made with gradient storage has a gradient to zero");
        }
        device().kernels().launch(new Fill(0f, storage, storage.length()));
        setGrad(storage);
    }

    /** A view with another shape of the same size, sharing data and gradient (the notebook's {@code reshape}). */
    public Tensor reshape(int... newShape) {
        Tensor view = new Tensor(data(), newShape, requiresGrad, root());
        if (view.size() != size()) {
            throw new IllegalArgumentException(
                    "cannot reshape " + Arrays.toString(shape) + " to " + Arrays.toString(newShape));
        }
        return view;
    }

    /**
     * Points this parameter at {@code data}, of its size on its device: ZeRO stage 3 gathers a device's parameters
     * into a new buffer for a pass and frees it after. Views made of it follow.
     */
    public void bindData(Buffer data) {
        requireParameterOf(data);
        this.data = data;
        this.dataOnDemand = null;
    }

    /**
     * Points this parameter's gradient storage at {@code storage}, of its size on its device, with no gradient in it
     * yet: ZeRO stages 2 and 3 hold a device's whole gradients only from the backward passes to their
     * reduce-scatter.
     */
    public void bindGradient(Buffer storage) {
        requireParameterOf(storage);
        this.reservedGrad = storage;
        this.grad = null;
        this.gradientOnDemand = null;
    }

    /**
     * Drops this parameter's data (its buffer is freed by whoever owns it); from now on reading it asks
     * {@code gather} for a buffer of its size on its device: ZeRO stage 3 gathers a layer's parameters when a pass
     * reaches them.
     */
    public void releaseData(Supplier<Buffer> gather) {
        requireParameter();
        this.data = null;
        this.dataOnDemand = gather;
    }

    /**
     * Drops this parameter's gradient storage and its gradient; from now on a backward pass that needs the storage
     * asks {@code storage} for it: ZeRO stages 2 and 3 hold a bucket of gradients from its first contribution to
     * its reduce-scatter.
     */
    public void releaseGradient(Supplier<Buffer> storage) {
        requireParameter();
        this.reservedGrad = null;
        this.grad = null;
        this.gradientOnDemand = storage;
    }

    private void requireParameter() {
        if (!parameter) {
            throw new IllegalStateException("only a parameter made with gradient storage is bound to new buffers");
        }
    }

    private void requireParameterOf(Buffer buffer) {
        requireParameter();
        if (buffer.length() != size() || buffer.device() != device) {
            throw new IllegalArgumentException("a buffer of " + buffer.length() + " floats on "
                    + buffer.device().id() + " for a parameter of " + size() + " on " + device.id());
        }
    }

    Tensor root() {
        return base == null ? this : base;
    }

    void setGrad(Buffer grad) {
        root().grad = grad;
    }

    @Override
    public String toString() {
        return "Tensor" + Arrays.toString(shape) + " on " + device().id();
    }
}
