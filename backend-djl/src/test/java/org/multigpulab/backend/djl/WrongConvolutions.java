package org.multigpulab.backend.djl;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.function.Predicate;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.KernelOp.Scale;
import org.multigpulab.device.Kernels;

/**
 * Test doubles of a device whose convolutions are wrong, as oneDNN's are on a Zen 5 processor: a real device
 * whose kernels, after one pass of a convolution, scale its output by a factor (1.01: 1 % off; NaN: all NaN)
 * on the shapes a condition picks, at the time of the call. With the condition "while a {@link FakeLibrary} is
 * enabled", turning the library off makes the convolutions right, as turning oneDNN off does.
 */
final class WrongConvolutions {

    /** The three passes of a convolution. */
    enum Pass {
        FORWARD,
        BACKWARD_DATA,
        BACKWARD_FILTER
    }

    /** The output of {@code call} and its length, if {@code call} is pass {@code pass} of a convolution whose shape {@code when} accepts. */
    private static Optional<Scale> scaled(KernelOp.Call call, Pass pass, float factor, Predicate<ConvShape> when) {
        return switch (call) {
            case KernelOp.Conv2dForward(var x, var w, var y, var s)
            when pass == Pass.FORWARD && when.test(s) -> Optional.of(new Scale(factor, y, s.outputLength()));
            case KernelOp.Conv2dBackwardData(var dy, var w, var dx, var s)
            when pass == Pass.BACKWARD_DATA && when.test(s) -> Optional.of(new Scale(factor, dx, s.inputLength()));
            case KernelOp.Conv2dBackwardFilter(var x, var dy, var dw, var s)
            when pass == Pass.BACKWARD_FILTER && when.test(s) -> Optional.of(new Scale(factor, dw, s.filterLength()));
            default -> Optional.empty();
        };
    }

    private WrongConvolutions() {}

    /**
     * {@code real}, except that {@code pass} multiplies its output by {@code factor} on the shapes {@code when}
     * accepts. Closing it closes {@code real}.
     */
    static Device of(Device real, Pass pass, float factor, Predicate<ConvShape> when) {
        Kernels right = real.kernels();
        Kernels wrong = call -> {
            right.launch(call);
            scaled(call, pass, factor, when).ifPresent(right::launch);
        };
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
