package org.multigpulab.backend.djl;

/**
 * A convolution library that libtorch may use and can be told not to, so that its own convolutions run instead:
 * {@link OneDnn} on the processor. {@link ConvolutionGate} turns one off when it makes convolutions wrong.
 * Turning it off is for the whole process, as libtorch's switch is.
 */
interface ConvolutionLibrary {

    /** Nothing to turn off: for a device whose convolutions no such library serves (a CUDA GPU here). */
    ConvolutionLibrary NONE = new ConvolutionLibrary() {
        @Override
        public String name() {
            return "no library";
        }

        @Override
        public boolean enabled() {
            return false;
        }

        @Override
        public void disable() {}
    };

    /** The library's name as a student knows it ("oneDNN"). */
    String name();

    /** Whether libtorch may use the library now. */
    boolean enabled();

    /** Stops libtorch using the library. */
    void disable();
}
