package org.multigpulab.backend.djl;

import java.util.Optional;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;

/**
 * Lets a device train only if its convolutions pass the {@link ConvolutionSelfTest}. A device that fails while a
 * {@link ConvolutionLibrary} serves it gets a second chance: the library is turned off and the device tested
 * again, since libtorch's own convolutions are slower but right. A device that fails both ways is refused.
 */
final class ConvolutionGate {

    private ConvolutionGate() {}

    /**
     * Tests {@code device}, turning {@code library} off if that is what makes its convolutions right.
     *
     * @return why the library was turned off, if it was: a note for the student
     * @throws DeviceException if the convolutions are wrong with and without the library; it says what to do
     */
    static Optional<String> admit(Device device, ConvolutionLibrary library) {
        Optional<String> failure = ConvolutionSelfTest.failure(device);
        if (failure.isEmpty()) {
            return Optional.empty();
        }
        if (library.enabled()) {
            library.disable();
            Optional<String> again = ConvolutionSelfTest.failure(device);
            if (again.isEmpty()) {
                return Optional.of(device.id() + " runs without " + library.name() + ": with it, " + failure.get());
            }
            failure = again;
        }
        throw new DeviceException(device.id() + " refuses to train: " + failure.get() + ". See \"The djl backend\""
                + " in the README; --backend sim --physical cpu trains on our own kernels");
    }
}
