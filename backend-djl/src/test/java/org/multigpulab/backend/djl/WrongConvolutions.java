package org.multigpulab.backend.djl;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.Scale;
import org.multigpulab.device.Kernels;

/**
 * Test doubles of a device whose convolutions are wrong, as oneDNN's are on a Zen 5 processor: a real device
 * whose kernels, after one pass of a convolution, scale its output by a factor (1.01: 1 % off; NaN: all NaN)
 * on the shapes a condition picks, at the time of the call. With the condition "while a {@link FakeLibrary} is
 * enabled", turning the library off makes the convolutions right, as turning oneDNN off does.
 */
final class WrongConvolutions {

    /** The three passes of a convolution: the {@link Kernels} method and the length of the output it writes. */
    enum Pass {
        FORWARD("conv2dForward", ConvShape::outputLength),
        BACKWARD_DATA("conv2dBackwardData", ConvShape::inputLength),
        BACKWARD_FILTER("conv2dBackwardFilter", ConvShape::filterLength);

        private final String method;
        private final ToIntFunction<ConvShape> outputLength;

        Pass(String method, ToIntFunction<ConvShape> outputLength) {
            this.method = method;
            this.outputLength = outputLength;
        }
    }

    private WrongConvolutions() {}

    /**
     * {@code real}, except that {@code pass} multiplies its output by {@code factor} on the shapes {@code when}
     * accepts. Every convolution pass has the shape last and the output third. Closing it closes {@code real}.
     */
    static Device of(Device real, Pass pass, float factor, Predicate<ConvShape> when) {
        Kernels right = real.kernels();
        Kernels wrong = proxy(Kernels.class, (p, method, args) -> {
            Object result = call(method, right, args);
            if (method.getName().equals(pass.method) && when.test((ConvShape) args[3])) {
                right.launch(new Scale(factor, (Buffer) args[2], pass.outputLength.applyAsInt((ConvShape) args[3])));
            }
            return result;
        });
        return proxy(
                Device.class,
                (p, method, args) -> method.getName().equals("kernels") ? wrong : call(method, real, args));
    }

    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }

    private static Object call(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
