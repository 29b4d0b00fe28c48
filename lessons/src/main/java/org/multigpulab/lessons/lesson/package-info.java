/**
 * The lessons: each notebook cell and d2l exercise as a {@code Lesson} that does what the cell does, prints what
 * the notebook printed, and ends with a Notice whose every {@code Claim} is computed from the numbers beside it. Each
 * lesson has a test that checks its claim.
 */
package org.multigpulab.lessons.lesson;
