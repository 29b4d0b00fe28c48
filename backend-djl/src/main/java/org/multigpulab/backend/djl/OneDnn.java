package org.multigpulab.backend.djl;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Turns libtorch's use of oneDNN (MKL-DNN) on or off, as Python's {@code torch.backends.mkldnn.enabled = False}
 * does: DJL has no call for it, so this calls libtorch's C++ {@code at::globalContext().setUserEnabledMkldnn}
 * through the JDK's foreign-function API, in the {@code libtorch_cpu.so} that DJL has already loaded. With it
 * off, convolutions run libtorch's own im2col-and-GEMM code instead of oneDNN's.
 */
final class OneDnn implements ConvolutionLibrary {

    /** The oneDNN of the libtorch that DJL has loaded: one switch for the whole process. */
    static final OneDnn LIBTORCH = new OneDnn();

    private static final String LIBRARY = "libtorch_cpu.so";
    private static final String GLOBAL_CONTEXT = "_ZN2at13globalContextEv"; // at::globalContext()
    private static final String SET_ENABLED =
            "_ZN2at7Context20setUserEnabledMkldnnEb"; // Context::setUserEnabledMkldnn(bool)
    private static final String ENABLED = "_ZNK2at7Context17userEnabledMkldnnEv"; // Context::userEnabledMkldnn() const

    private OneDnn() {}

    @Override
    public String name() {
        return "oneDNN";
    }

    /** Whether libtorch may use oneDNN now (it may, unless told otherwise). */
    @Override
    public boolean enabled() {
        return call(null);
    }

    @Override
    public void disable() {
        enable(false);
    }

    /** Sets whether libtorch may use oneDNN, and returns whether it now does. */
    boolean enable(boolean on) {
        return call(on);
    }

    private static boolean call(Boolean on) {
        try {
            // dlopen of a library already loaded returns it, found by its name
            SymbolLookup torch = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
            Linker linker = Linker.nativeLinker();
            MethodHandle context = linker.downcallHandle(
                    torch.findOrThrow(GLOBAL_CONTEXT), FunctionDescriptor.of(ValueLayout.ADDRESS));
            MethodHandle set = linker.downcallHandle(
                    torch.findOrThrow(SET_ENABLED),
                    FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_BOOLEAN));
            MethodHandle get = linker.downcallHandle(
                    torch.findOrThrow(ENABLED), FunctionDescriptor.of(ValueLayout.JAVA_BOOLEAN, ValueLayout.ADDRESS));
            MemorySegment ctx = (MemorySegment) context.invokeExact();
            if (on != null) {
                set.invokeExact(ctx, (boolean) on);
            }
            return (boolean) get.invokeExact(ctx);
        } catch (Throwable e) {
            throw new IllegalStateException("could not reach libtorch's oneDNN switch: " + e, e);
        }
    }
}
