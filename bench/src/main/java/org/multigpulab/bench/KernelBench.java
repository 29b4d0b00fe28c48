package org.multigpulab.bench;

import java.util.concurrent.TimeUnit;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.Kernels;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One kernel call of a LeNet training step at batch 256 ({@link LeNetKernels}), or of ResNet-18's on 28×28 images
 * ({@link ResNetKernels}, the names from {@code resnet_}), on one backend's first device, timed by JMH.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class KernelBench {

    @Param({"cpu", "djl"})
    public String backend;

    @Param({
        "conv1_forward",
        "conv1_bias_forward",
        "conv1_backward_filter",
        "conv2_forward",
        "conv2_bias_forward",
        "conv2_backward_data",
        "conv2_backward_filter",
        "dense3_forward",
        "dense3_backward_weight",
        "dense3_backward_data",
        "conv2_forward_32",
        "conv2_backward_data_32",
        "conv2_backward_filter_32",
        "dense3_forward_32",
        "dense3_backward_weight_32",
        "dense3_backward_data_32",
        "bias1_add",
        "bias1_backward",
        "relu1_forward",
        "relu1_backward",
        "pool1_forward",
        "pool1_backward",
        "pool2_forward",
        "pool2_backward",
        "relu_pool1_forward",
        "relu_pool1_backward",
        "layer1_forward",
        "layer1_backward",
        "relu_pool2_forward",
        "relu_pool2_backward",
        "sgd_w3_axpy",
        "resnet_stem_forward",
        "resnet_stem_backward_data",
        "resnet_stem_backward_filter",
        "resnet_l1_forward",
        "resnet_l1_backward_data",
        "resnet_l1_backward_filter",
        "resnet_l2_down_forward",
        "resnet_l2_down_backward_data",
        "resnet_l2_down_backward_filter",
        "resnet_l2_short_forward",
        "resnet_l2_short_backward_data",
        "resnet_l2_short_backward_filter",
        "resnet_l2_forward",
        "resnet_l2_backward_data",
        "resnet_l2_backward_filter",
        "resnet_l3_down_forward",
        "resnet_l3_down_backward_data",
        "resnet_l3_down_backward_filter",
        "resnet_l3_short_forward",
        "resnet_l3_short_backward_data",
        "resnet_l3_short_backward_filter",
        "resnet_l3_forward",
        "resnet_l3_backward_data",
        "resnet_l3_backward_filter",
        "resnet_l4_down_forward",
        "resnet_l4_down_backward_data",
        "resnet_l4_down_backward_filter",
        "resnet_l4_short_forward",
        "resnet_l4_short_backward_data",
        "resnet_l4_short_backward_filter",
        "resnet_l4_forward",
        "resnet_l4_backward_data",
        "resnet_l4_backward_filter",
        "resnet_bn1_squared_deviations",
        "resnet_bn1_forward",
        "resnet_bn1_backward_reduce",
        "resnet_bn1_backward_data",
        "resnet_bn2_squared_deviations",
        "resnet_bn2_forward",
        "resnet_bn2_backward_reduce",
        "resnet_bn2_backward_data",
        "resnet_bn3_squared_deviations",
        "resnet_bn3_forward",
        "resnet_bn3_backward_reduce",
        "resnet_bn3_backward_data",
        "resnet_bn4_squared_deviations",
        "resnet_bn4_forward",
        "resnet_bn4_backward_reduce",
        "resnet_bn4_backward_data"
    })
    public String kernel;

    private Device device;
    private Kernels kernels;
    private KernelOp.Call call;

    @Setup(Level.Trial)
    public void open() {
        device = Backends.open(backend, DeviceRequest.of(1)).getFirst();
        kernels = device.kernels();
        call = kernel.startsWith("resnet_")
                ? ResNetKernels.on(device, kernel)
                : LeNetKernels.on(device).get(kernel);
    }

    @Benchmark
    public void run() {
        kernels.launch(call);
        device.synchronize();
    }

    @TearDown(Level.Trial)
    public void close() {
        device.close();
    }
}
