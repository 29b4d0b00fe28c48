package org.multigpulab.lessons.lesson;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.multigpulab.lessons.simulate.TimeOnlyEpoch;

/**
 * The simulated epochs of the book's own runs, with the notebook's host on AWS p3's processor, each inside the range
 * the book's V100 builds printed: §12.5 on 1 and 2 GPUs, §12.6 with nn.DataParallel on 1 and 2.
 */
class BookRunsTest {

    @Test
    void eachOfTheBooksRunsIsPredictedInsideItsPublishedRange() {
        StringBuilder predictions = new StringBuilder();
        boolean allInside = true;
        for (BookRuns.Setting s : BookRuns.ALL) {
            PublishedRuns.Range book = s.published();
            double predicted = TimeOnlyEpoch.run(s.setup(), null).withDataLoaderSec();
            allInside &= book.holds(predicted);
            predictions.append(String.format(Locale.ROOT, "%n%.3f s: %s", predicted, book.describe()));
        }
        System.out.println("the book's runs, predicted:" + predictions);
        assertTrue(allInside, predictions.toString());
    }
}
