package org.multigpulab.backend.opencl;

import java.util.Set;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.conformance.KernelConformanceKit;

/**
 * The conformance kit on {@code opencl:0} with the sums over a batch taken by work-groups, as a GPU takes them
 * ({@link OpenClKernels#SUMMED_BY_GROUPS}): PoCL in CI is a processor, whose device sums one work-item per
 * output, so without this test the kernels every GPU runs would go untested there. Only the kit's tests that launch
 * one of those kernels run ({@link SummedByGroupsOnly}); the rest launch the kernels {@link OpenClConformanceTest}
 * has tested already.
 */
@ExtendWith(OpenClGroupSumsConformanceTest.SummedByGroupsOnly.class)
class OpenClGroupSumsConformanceTest extends KernelConformanceKit {

    /**
     * Runs the kit's tests that launch a kernel of {@link OpenClKernels#SUMMED_BY_GROUPS} (the filter and bias
     * gradients, the matrix product, the count of right answers, alone, fused or in a training step), and skips the
     * others, whose kernels are the same in both modes.
     */
    static final class SummedByGroupsOnly implements ExecutionCondition {

        private static final Set<String> LAUNCHING_SUMMED_KERNELS = Set.of(
                "everyOpMatchesTheFloat64Reference",
                "conv2dBackwardFilterMatchesReference",
                "biasAddAndBackwardMatchReference",
                "conv2dBiasReluAvgPoolMatchesReference",
                "conv2dBiasReluAvgPoolIsItsOpsInTurn",
                "gemmMatchesReference",
                "squaredNormMatchesReference",
                "blasOneMatchesReference",
                "argmaxMatchesCountsCorrectRowsAndFirstMaximumWinsTies",
                "convolutionBackwardMatchesFiniteDifferences",
                "biasBackwardMatchesFiniteDifferences",
                "oneTrainingStepMatchesReferenceStep",
                "repeatedCallsGiveTheSameBits",
                "streamsGiveTheBitsOfTheirCallsOneAfterAnother",
                "kernelsRefuseBuffersTooShortForTheShape",
                "statsCountKernelsFlopsAndBytes");

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getTestMethod()
                    .map(m -> LAUNCHING_SUMMED_KERNELS.contains(m.getName())
                            ? ConditionEvaluationResult.enabled("launches a kernel summed by work-groups")
                            : ConditionEvaluationResult.disabled("its kernels are the same as OpenClConformanceTest's"))
                    .orElse(ConditionEvaluationResult.enabled("the class"));
        }
    }

    @Override
    protected Device openDevice() {
        OpenClConformanceTest.requireOpenCl();
        return new OpenClDevice(
                DeviceId.of(OpenClBackend.NAME, 0), Discovery.devices().getFirst(), true);
    }

    @Override
    protected Set<Class<? extends KernelOp.Call>> leftOut() {
        return Set.of(KernelOp.MaxPoolForward.class, KernelOp.MaxPoolBackward.class);
    }
}
