package org.multigpulab.core.autograd;

import java.util.Arrays;
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
    private final int[] shape;
    private final boolean requiresGrad;
    private final Tensor base;
    private Buffer grad;
    private Buffer reservedGrad;

    Tensor(Buffer data, int[] shape, boolean requiresGrad, Tensor base) {
        this.data = data;
        this.shape = shape.clone();
        this.requiresGrad = requiresGrad;
        this.base = base;
        if (size() > data.length()) {
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
        return t;
    }

    /** Where the gradient goes on the first backward pass: the reserved storage, if any, else {@code null}. */
    Buffer reservedGrad() {
        return root().reservedGrad;
    }

    /**
     * The tensor's data on its device. Of a tensor an op returned, read it through {@link Tape#data}, which writes it
     * first if the op was deferred for fusion.
     */
    public Buffer data() {
        return root().data;
    }

    public Device device() {
        return data.device();
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
        Tensor view = new Tensor(data, newShape, requiresGrad, root());
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
    }

    private void requireParameterOf(Buffer buffer) {
        if (base != null || reservedGrad == null) {
            throw new IllegalStateException("only a parameter made with gradient storage is bound to new buffers");
        }
        if (buffer.length() != size() || buffer.device() != data.device()) {
            throw new IllegalArgumentException("a buffer of " + buffer.length() + " floats on "
                    + buffer.device().id() + " for a parameter of " + size() + " on "
                    + data.device().id());
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
