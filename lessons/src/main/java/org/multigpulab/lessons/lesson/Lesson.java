package org.multigpulab.lessons.lesson;

/**
 * One runnable section of the notebook or one d2l exercise: it does what the notebook cell does, prints what
 * the notebook printed, and says what to notice. Each has a test that checks the claim it makes.
 */
public interface Lesson {

    /** The name on the command line ({@code ./lab lesson NAME}). */
    String name();

    /** One line for {@code ./lab lessons}. */
    String summary();

    void run(LessonContext ctx);
}
