package org.multigpulab.lessons.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.optim.OptimizerState;
import org.multigpulab.core.train.Checkpoint;
import org.multigpulab.core.train.Checkpoints;
import org.multigpulab.core.train.TrainingState;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.AtomicFile;
import org.multigpulab.lessons.files.CheckpointFile;
import org.multigpulab.lessons.files.SafeTensors;
import picocli.CommandLine.Option;

/** {@code train}'s checkpoint options: where the run leaves its state, how often, and the checkpoint it resumes. */
final class CheckpointOptions {

    @Option(
            names = "--checkpoint",
            paramLabel = "FILE",
            description = "After every epoch (and every --checkpoint-every steps) replace FILE, atomically, with the"
                    + " parameters (safetensors, named as --save names them) and the run's state, so that --resume"
                    + " FILE can continue it after a crash or a kill.")
    Path checkpoint;

    @Option(
            names = "--checkpoint-every",
            paramLabel = "N",
            description = "With --checkpoint: also every N steps (mini-batches) inside an epoch.")
    Integer every;

    @Option(
            names = "--resume",
            paramLabel = "FILE",
            description = "Continue the run checkpointed in FILE, bit for bit as if it had never stopped. It needs the"
                    + " options that run had (model, batch size, lr, seed, data, allreduce); the devices, backend and"
                    + " plot folder may change. --epochs counts from the run's start, as that run's did, and its"
                    + " default (5) holds here too: give the --epochs the run had to finish it, or more to go on.")
    Path resume;

    /**
     * A resumed run: the checkpoint's training state, the model's state and the optimizer's, checked against the run
     * asked for.
     */
    record Resumed(
            TrainingState state,
            List<HostTensor> params,
            List<HostTensor> optimizer,
            CheckpointFile.Placement placement) {}

    /** Checks the options before long work starts. */
    void check(Path load) {
        if (every != null && checkpoint == null) {
            throw new UserError("--checkpoint-every needs --checkpoint FILE, the file to write");
        }
        if (every != null) {
            UserError.requireOneOrMore("--checkpoint-every", every);
        }
        if (resume != null && load != null) {
            throw new UserError("--resume continues a run with the parameters of its checkpoint; --load cannot"
                    + " give others, leave it out");
        }
        if (checkpoint != null) {
            AtomicFile.checkWritable("--checkpoint", checkpoint);
        }
    }

    /**
     * The checkpoint of {@code --resume}, read by every rank, which all check they read the same, and checked to
     * be of {@code run}; the parameters in {@code model}'s order.
     */
    Resumed read(ProcessGroup group, Model model, Checkpoint.Run run) {
        CheckpointFile.Contents contents;
        try {
            contents = CheckpointFile.read(resume);
        } catch (UserError e) {
            throw new UserError("--resume " + e.getMessage(), e);
        }
        if (!group.allAgree(contents.hash())) {
            throw new UserError("--resume " + resume + ": the " + group.size() + " ranks read different files;"
                    + " give every rank the same checkpoint, in a folder they share");
        }
        Checkpoint checkpoint = contents.checkpoint();
        List<Checkpoint.Difference> differences = checkpoint.run().differences(run);
        if (!differences.isEmpty()) {
            throw new UserError("--resume " + resume + " is of another run: "
                    + differences.stream()
                            .map(d -> "its " + d.field() + " is " + d.checkpointed() + ", this run's " + d.resumed())
                            .collect(Collectors.joining("; "))
                    + "; give the options the checkpointed run had");
        }
        // the optimizer's state follows the model's
        List<HostTensor> modelState = checkpoint.params().stream()
                .filter(t -> !OptimizerState.holds(t))
                .toList();
        List<HostTensor> optimizerState =
                checkpoint.params().stream().filter(OptimizerState::holds).toList();
        List<HostTensor> params =
                SafeTensors.matching("--resume", resume, modelState, model.stateNames(), model.stateShapes(), "");
        return new Resumed(checkpoint.state(), params, optimizerState, contents.placement());
    }

    /**
     * Where the trainer leaves its state: {@code --checkpoint}, written by rank 0 alone (every rank holds the same
     * parameters and, at a checkpoint, the same state); nothing without the option.
     */
    Checkpoints sink(ProcessGroup group, Checkpoint.Run run, CheckpointFile.Placement placement) {
        if (checkpoint == null) {
            return Checkpoints.NONE;
        }
        return new Checkpoints() {
            @Override
            public int everySteps() {
                return every == null ? 0 : every;
            }

            @Override
            public void save(TrainingState state, List<HostTensor> params) {
                if (group.rank() == 0) {
                    CheckpointFile.write(checkpoint, new Checkpoint(run, state, params), placement);
                }
            }
        };
    }
}
