package org.multigpulab.lessons.lesson;

import java.util.List;
import java.util.Optional;

/** Every lesson, in the notebook's order, then the exercises. */
public final class Lessons {

    public static final List<Lesson> ALL = List.of(
            new ModelLesson(),
            new ParamsLesson(),
            new AllreduceLesson(),
            new ScatterLesson(),
            new TrainLesson(),
            new AllreduceBugLesson(),
            new Exercise1Lesson(),
            new Exercise2Lesson(),
            new Exercise3Lesson(),
            new Exercise4Lesson(),
            new ConciseLesson(),
            new ConciseExercise1Lesson(),
            new ConciseExercise2Lesson(),
            new BatchNormLesson(),
            new ScalingLesson(),
            new MultiProcessLesson(),
            new CheckpointLesson(),
            new AccumulationLesson(),
            new ZeroLesson());

    private Lessons() {}

    public static Optional<Lesson> find(String name) {
        return ALL.stream().filter(l -> l.name().equals(name)).findFirst();
    }
}
