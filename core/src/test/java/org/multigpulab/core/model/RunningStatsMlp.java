package org.multigpulab.core.model;

import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.ImageShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.KernelOp.Add;
import org.multigpulab.device.KernelOp.Fill;
import org.multigpulab.device.KernelOp.Gemm;
import org.multigpulab.device.Kernels;

/**
 * d2l's MLP with buffers shaped and named as a BatchNorm layer's ({@code bn.running_mean}, {@code bn.running_var}
 * [256], {@code bn.num_batches_tracked}, an int64 counter), for the tests of buffers: in training mode each forward
 * pass moves the running mean 0.1 of the way to the hidden layer's mean over the device's shard, the running
 * "variance" likewise to that mean's (a stand-in, cheaper to train than ResNet-18's real BatchNorm), and counts the
 * pass; in eval
 * mode it changes nothing. The buffers do not change the logits. Found by {@link Model#named} through
 * {@code META-INF/services} on the test class path: {@code --model mlp-bn}.
 */
public final class RunningStatsMlp implements Model {

    private static final Mlp MLP = new Mlp();
    private static final float MOMENTUM = 0.1f;

    public static final List<BufferSpec> BUFFERS = List.of(
            BufferSpec.floats("bn.running_mean", 0f, Mlp.HIDDENS),
            BufferSpec.floats("bn.running_var", 1f, Mlp.HIDDENS),
            BufferSpec.counter("bn.num_batches_tracked"));

    @Override
    public String name() {
        return "MLP-BN";
    }

    @Override
    public ImageShape input() {
        return MLP.input();
    }

    @Override
    public List<ParameterSpec> parameters() {
        return MLP.parameters();
    }

    @Override
    public List<BufferSpec> buffers() {
        return BUFFERS;
    }

    @Override
    public Tensor forward(Tape tape, Tensor x, List<Tensor> params, List<Tensor> buffers, Mode mode) {
        int n = x.dim(0);
        Tensor flat = x.reshape(n, Mlp.INPUTS); // [N, 784]
        Tensor h = Ops.relu(tape, Ops.linear(tape, flat, params.get(0), params.get(1))); // [N, 256]
        if (mode == Mode.TRAIN) {
            Kernels k = x.device().kernels();
            Tensor ones = tape.newTensor(false, n); // [N]
            k.launch(new Fill(1f, ones.data(), n));
            Buffer hidden = tape.data(h);
            // running = (1 − m)·running + m · (1/N)·onesᵀ·h, for the mean and the stand-in variance alike
            for (Tensor running : buffers.subList(0, 2)) {
                k.launch(new Gemm(
                        false,
                        false,
                        1,
                        Mlp.HIDDENS,
                        n,
                        MOMENTUM / n,
                        ones.data(),
                        hidden,
                        1 - MOMENTUM,
                        running.data()));
            }
            Buffer counter = buffers.get(2).data();
            k.launch(new Add(counter, ones.data(), counter, 1));
        }
        return Ops.linear(tape, h, params.get(2), params.get(3)); // [N, 10]
    }
}
