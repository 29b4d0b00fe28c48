package org.multigpulab.backend.djl;

/** A stand-in for oneDNN in tests: a switch that starts enabled, touching nothing in libtorch. */
final class FakeLibrary implements ConvolutionLibrary {

    private boolean enabled = true;

    @Override
    public String name() {
        return "fake oneDNN";
    }

    @Override
    public boolean enabled() {
        return enabled;
    }

    @Override
    public void disable() {
        enabled = false;
    }
}
