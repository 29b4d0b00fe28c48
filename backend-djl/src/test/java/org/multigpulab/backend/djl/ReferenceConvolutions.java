package org.multigpulab.backend.djl;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.conformance.Reference;

/**
 * A test double of a device whose convolutions are right on every shape: a real device whose kernels run the three
 * passes of a convolution as the float64 {@link Reference} does, rounded to float32, and every other op as its own
 * kernels do. The self-test's strided, padded shapes then run on a device whose own kernels refuse them (the
 * pure-Java {@code cpu} backend's), and nothing depends on the processor or on libtorch.
 */
final class ReferenceConvolutions {

    private ReferenceConvolutions() {}

    /** {@code real}, its convolutions the reference's. Closing it closes {@code real}. */
    static Device of(Device real) {
        Kernels own = real.kernels();
        Kernels kernels = call -> {
            switch (call) {
                case KernelOp.Conv2dForward c -> byReference(real, c);
                case KernelOp.Conv2dBackwardData c -> byReference(real, c);
                case KernelOp.Conv2dBackwardFilter c -> byReference(real, c);
                default -> own.launch(call);
            }
        };
        return Device.class.cast(Proxy.newProxyInstance(
                Device.class.getClassLoader(), new Class<?>[] {Device.class}, (p, method, args) -> {
                    if (method.getName().equals("kernels")) {
                        return kernels;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }));
    }

    private static void byReference(Device real, KernelOp.Call call) {
        Map<Buffer, double[]> outputs = Reference.outputs(call, b -> Reference.wide(real.download(b)));
        outputs.forEach((buffer, values) -> {
            float[] rounded = new float[values.length];
            for (int i = 0; i < values.length; i++) {
                rounded[i] = (float) values[i];
            }
            real.upload(rounded, 0, buffer.slice(0, rounded.length));
        });
    }
}
