package org.multigpulab.device.conformance;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.PoolShape;

/**
 * The kernels' contracts in float64, written as directly as the math: the yardstick every backend is measured
 * against, by the conformance kit in tests and by start-up self-tests at run time. Slow on purpose; each
 * forward sits next to its backward.
 */
public final class Reference {

    private Reference() {}

    /** {@code a} in float64, the reference's inputs. */
    public static double[] wide(float[] a) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i];
        }
        return d;
    }

    /**
     * What {@code call} writes, in float64: each buffer it writes, with the values its op's contract gives for the
     * contents {@code in} gives of the buffers it reads (an updated buffer's among them). Every op has its case, so a
     * new op makes the compiler name this method.
     */
    public static Map<Buffer, double[]> outputs(KernelOp.Call call, Function<Buffer, double[]> in) {
        return switch (call) {
            case KernelOp.Conv2dForward(var x, var w, var y, var s) ->
                Map.of(y, conv2dForward(in.apply(x), in.apply(w), s));
            case KernelOp.Conv2dBackwardData(var dy, var w, var dx, var s) ->
                Map.of(dx, conv2dBackwardData(in.apply(dy), in.apply(w), s));
            case KernelOp.Conv2dBackwardFilter(var x, var dy, var dw, var s) ->
                Map.of(dw, conv2dBackwardFilter(in.apply(x), in.apply(dy), s));
            case KernelOp.BiasAdd(var y, var b, var s) -> Map.of(y, biasAdd(in.apply(y), in.apply(b), s));
            case KernelOp.BiasAddBackward(var dy, var db, var s) -> Map.of(db, biasAddBackward(in.apply(dy), s));
            case KernelOp.AvgPoolForward(var x, var y, var s) -> Map.of(y, avgPoolForward(in.apply(x), s));
            case KernelOp.AvgPoolBackward(var dy, var dx, var s) -> Map.of(dx, avgPoolBackward(in.apply(dy), s));
            case KernelOp.MaxPoolForward(var x, var y, var s) -> Map.of(y, maxPoolForward(in.apply(x), s));
            case KernelOp.MaxPoolBackward(var x, var dy, var dx, var s) ->
                Map.of(dx, maxPoolBackward(in.apply(x), in.apply(dy), s));
            case KernelOp.ReluForward(var x, var y, var n) -> Map.of(y, reluForward(head(in.apply(x), n)));
            case KernelOp.ReluBackward(var x, var dy, var dx, var n) ->
                Map.of(dx, reluBackward(head(in.apply(x), n), head(in.apply(dy), n)));
            case KernelOp.Conv2dBiasForward(var x, var w, var b, var y, var s) ->
                Map.of(y, conv2dBiasForward(in.apply(x), in.apply(w), in.apply(b), s));
            case KernelOp.ReluAvgPoolForward(var x, var y, var s) -> Map.of(y, reluAvgPoolForward(in.apply(x), s));
            case KernelOp.ReluAvgPoolBackward(var x, var dy, var dx, var s) ->
                Map.of(dx, reluAvgPoolBackward(in.apply(x), in.apply(dy), s));
            case KernelOp.Conv2dBiasReluAvgPoolForward(var x, var w, var b, var y, var s) ->
                Map.of(
                        y,
                        reluAvgPoolForward(
                                conv2dBiasForward(in.apply(x), in.apply(w), in.apply(b), s.conv()), s.pool()));
            case KernelOp.Conv2dBiasReluAvgPoolBackward(var x, var w, var b, var dy, var dw, var db, var s) -> {
                double[] conv = conv2dBiasForward(in.apply(x), in.apply(w), in.apply(b), s.conv());
                double[] dconv = reluAvgPoolBackward(conv, in.apply(dy), s.pool());
                yield Map.of(
                        dw, conv2dBackwardFilter(in.apply(x), dconv, s.conv()),
                        db, biasAddBackward(dconv, s.conv().bias()));
            }
            case KernelOp.Gemm g ->
                Map.of(
                        g.c(),
                        gemm(
                                g.transA(),
                                g.transB(),
                                g.m(),
                                g.n(),
                                g.k(),
                                g.alpha(),
                                in.apply(g.a()),
                                in.apply(g.b()),
                                g.beta(),
                                g.beta() == 0 ? null : in.apply(g.c())));
            case KernelOp.SoftmaxCrossEntropyForward(var logits, var labels, var loss, var batch, var classes) ->
                Map.of(loss, softmaxCrossEntropyForward(in.apply(logits), in.apply(labels), batch, classes));
            case KernelOp.SoftmaxCrossEntropyBackward(var logits, var labels, var dlogits, var batch, var classes) ->
                Map.of(dlogits, softmaxCrossEntropyBackward(in.apply(logits), in.apply(labels), batch, classes));
            case KernelOp.Axpy(var alpha, var x, var y, var n) -> {
                double[] xs = in.apply(x), ys = head(in.apply(y), n);
                for (int i = 0; i < n; i++) ys[i] += alpha * xs[i];
                yield Map.of(y, ys);
            }
            case KernelOp.Scale(var alpha, var x, var n) -> {
                double[] xs = head(in.apply(x), n);
                for (int i = 0; i < n; i++) xs[i] *= alpha;
                yield Map.of(x, xs);
            }
            case KernelOp.Add(var a, var b, var out, var n) -> {
                double[] as = in.apply(a), bs = in.apply(b), sum = new double[n];
                for (int i = 0; i < n; i++) sum[i] = as[i] + bs[i];
                yield Map.of(out, sum);
            }
            case KernelOp.Fill(var value, var x, var n) -> {
                double[] xs = new double[n];
                Arrays.fill(xs, value);
                yield Map.of(x, xs);
            }
            case KernelOp.SgdStep s -> sgdStep(s, in);
            case KernelOp.AdamStep a -> adamStep(a, in);
            case KernelOp.SquaredDeviations(var x, var mean, var m2, var s) ->
                Map.of(m2, squaredDeviations(in.apply(x), in.apply(mean), s));
            case KernelOp.BatchNormForward(var x, var mean, var var, var gamma, var beta, var y, var eps, var s) ->
                Map.of(
                        y,
                        batchNormForward(
                                in.apply(x), in.apply(mean), in.apply(var), in.apply(gamma), in.apply(beta), eps, s));
            case KernelOp.BatchNormRunningUpdate u -> batchNormRunningUpdate(u, in);
            case KernelOp.BatchNormBackwardReduce(
                    var x,
                    var dy,
                    var mean,
                    var var,
                    var sumDy,
                    var sumDyXhat,
                    var eps,
                    var s) -> {
                double[][] sums =
                        batchNormBackwardReduce(in.apply(x), in.apply(dy), in.apply(mean), in.apply(var), eps, s);
                yield Map.of(sumDy, sums[0], sumDyXhat, sums[1]);
            }
            case KernelOp.BatchNormBackwardData b ->
                Map.of(
                        b.dx(),
                        batchNormBackwardData(
                                in.apply(b.x()),
                                in.apply(b.dy()),
                                in.apply(b.mean()),
                                in.apply(b.var()),
                                in.apply(b.gamma()),
                                in.apply(b.sumDy()),
                                in.apply(b.sumDyXhat()),
                                b.eps(),
                                b.count(),
                                b.s()));
            case KernelOp.ArgmaxMatches(var logits, var labels, var count, var batch, var classes) ->
                Map.of(count, new double[] {argmaxMatches(in.apply(logits), in.apply(labels), batch, classes)});
        };
    }

    /** {@code torch.optim.SGD}'s step, as {@link KernelOp.SgdStep} says, in float64. */
    private static Map<Buffer, double[]> sgdStep(KernelOp.SgdStep s, Function<Buffer, double[]> in) {
        double[] p = head(in.apply(s.param()), s.n()), grad = in.apply(s.grad());
        double[] buf = s.momentum() != 0 && !s.first() ? head(in.apply(s.momentumBuffer()), s.n()) : new double[s.n()];
        for (int i = 0; i < s.n(); i++) {
            double g = (double) s.gradScale() * grad[i] + (double) s.weightDecay() * p[i];
            if (s.momentum() != 0) {
                buf[i] = s.first() ? g : s.momentum() * buf[i] + (1 - (double) s.dampening()) * g;
                g = s.nesterov() ? g + s.momentum() * buf[i] : buf[i];
            }
            p[i] -= s.lr() * g;
        }
        return s.momentum() != 0 ? Map.of(s.param(), p, s.momentumBuffer(), buf) : Map.of(s.param(), p);
    }

    /** {@code torch.optim.Adam}'s (or AdamW's) step, as {@link KernelOp.AdamStep} says, in float64. */
    private static Map<Buffer, double[]> adamStep(KernelOp.AdamStep a, Function<Buffer, double[]> in) {
        double[] p = head(in.apply(a.param()), a.n()), grad = in.apply(a.grad());
        double[] m = head(in.apply(a.m()), a.n()), v = head(in.apply(a.v()), a.n());
        double stepSize = a.lr() / (1 - Math.pow(a.beta1(), a.step()));
        double correction = Math.sqrt(1 - Math.pow(a.beta2(), a.step()));
        for (int i = 0; i < a.n(); i++) {
            double g = (double) a.gradScale() * grad[i];
            if (a.decoupled()) {
                p[i] *= 1 - (double) a.lr() * a.weightDecay();
            } else {
                g += (double) a.weightDecay() * p[i];
            }
            m[i] += (1 - (double) a.beta1()) * (g - m[i]);
            v[i] = a.beta2() * v[i] + (1 - (double) a.beta2()) * g * g;
            p[i] -= stepSize * m[i] / (Math.sqrt(v[i]) / correction + a.eps());
        }
        return Map.of(a.param(), p, a.m(), m, a.v(), v);
    }

    /** {@code Σ (x − mean[c])²} per channel. */
    public static double[] squaredDeviations(double[] x, double[] mean, BiasShape s) {
        double[] m2 = new double[s.channels()];
        for (int o = 0; o < s.outer(); o++)
            for (int c = 0; c < s.channels(); c++)
                for (int i = 0; i < s.inner(); i++) {
                    double d = x[(o * s.channels() + c) * s.inner() + i] - mean[c];
                    m2[c] += d * d;
                }
        return m2;
    }

    /** {@code (x − mean[c]) / √(var[c] + eps) · gamma[c] + beta[c]}. */
    public static double[] batchNormForward(
            double[] x, double[] mean, double[] var, double[] gamma, double[] beta, double eps, BiasShape s) {
        double[] y = new double[s.length()];
        for (int o = 0; o < s.outer(); o++)
            for (int c = 0; c < s.channels(); c++)
                for (int i = 0; i < s.inner(); i++) {
                    int at = (o * s.channels() + c) * s.inner() + i;
                    y[at] = (x[at] - mean[c]) / Math.sqrt(var[c] + eps) * gamma[c] + beta[c];
                }
        return y;
    }

    /**
     * BatchNorm in training, statistics and all: each channel normalised with its mean and biased variance over the
     * batch. What the kit differentiates by finite differences.
     */
    public static double[] batchNormTraining(double[] x, double[] gamma, double[] beta, double eps, BiasShape s) {
        double count = (double) s.outer() * s.inner();
        double[] mean = biasAddBackward(x, s);
        for (int c = 0; c < s.channels(); c++) mean[c] /= count;
        double[] var = squaredDeviations(x, mean, s);
        for (int c = 0; c < s.channels(); c++) var[c] /= count;
        return batchNormForward(x, mean, var, gamma, beta, eps, s);
    }

    /** PyTorch's update of the running statistics, as {@link KernelOp.BatchNormRunningUpdate} says, in float64. */
    private static Map<Buffer, double[]> batchNormRunningUpdate(
            KernelOp.BatchNormRunningUpdate u, Function<Buffer, double[]> in) {
        int n = u.channels();
        double[] mean = in.apply(u.mean()), var = in.apply(u.var());
        double[] runningMean = head(in.apply(u.runningMean()), n), runningVar = head(in.apply(u.runningVar()), n);
        double m = u.momentum();
        for (int c = 0; c < n; c++) {
            runningMean[c] = (1 - m) * runningMean[c] + m * mean[c];
            runningVar[c] = (1 - m) * runningVar[c] + m * var[c] * u.count() / (u.count() - 1);
        }
        double[] tracked = {in.apply(u.tracked())[0] + 1};
        return Map.of(u.runningMean(), runningMean, u.runningVar(), runningVar, u.tracked(), tracked);
    }

    /** {@code {Σ dy, Σ dy · x̂}} per channel, {@code x̂ = (x − mean[c]) / √(var[c] + eps)}. */
    public static double[][] batchNormBackwardReduce(
            double[] x, double[] dy, double[] mean, double[] var, double eps, BiasShape s) {
        double[] sumDy = new double[s.channels()], sumDyXhat = new double[s.channels()];
        for (int o = 0; o < s.outer(); o++)
            for (int c = 0; c < s.channels(); c++)
                for (int i = 0; i < s.inner(); i++) {
                    int at = (o * s.channels() + c) * s.inner() + i;
                    sumDy[c] += dy[at];
                    sumDyXhat[c] += dy[at] * (x[at] - mean[c]) / Math.sqrt(var[c] + eps);
                }
        return new double[][] {sumDy, sumDyXhat};
    }

    /** {@code gamma[c] / √(var[c] + eps) · (dy − sumDy[c] / count − x̂ · sumDyXhat[c] / count)}. */
    public static double[] batchNormBackwardData(
            double[] x,
            double[] dy,
            double[] mean,
            double[] var,
            double[] gamma,
            double[] sumDy,
            double[] sumDyXhat,
            double eps,
            double count,
            BiasShape s) {
        double[] dx = new double[s.length()];
        for (int o = 0; o < s.outer(); o++)
            for (int c = 0; c < s.channels(); c++) {
                double invStd = 1 / Math.sqrt(var[c] + eps);
                for (int i = 0; i < s.inner(); i++) {
                    int at = (o * s.channels() + c) * s.inner() + i;
                    double xHat = (x[at] - mean[c]) * invStd;
                    dx[at] = gamma[c] * invStd * (dy[at] - sumDy[c] / count - xHat * sumDyXhat[c] / count);
                }
            }
        return dx;
    }

    /** The first {@code n} elements of {@code a}, a copy. */
    private static double[] head(double[] a, int n) {
        return Arrays.copyOf(a, n);
    }

    /** How many rows have their largest logit at the label's class, the first maximum winning a tie. */
    public static int argmaxMatches(double[] logits, double[] labels, int batch, int classes) {
        int matches = 0;
        for (int r = 0; r < batch; r++) {
            int best = 0;
            for (int j = 1; j < classes; j++) {
                if (logits[r * classes + j] > logits[r * classes + best]) best = j;
            }
            if (best == (int) labels[r]) matches++;
        }
        return matches;
    }

    /**
     * Where output pixel {@code (i, j)}'s tap {@code (p, q)} reads channel {@code c} of image {@code n}: its index in
     * x, or −1 where it falls on the padding.
     */
    private static int tap(ConvShape s, int n, int c, int i, int j, int p, int q) {
        int row = i * s.stride() + p - s.padding(), col = j * s.stride() + q - s.padding();
        if (row < 0 || row >= s.height() || col < 0 || col >= s.width()) {
            return -1;
        }
        return ((n * s.inChannels() + c) * s.height() + row) * s.width() + col;
    }

    private static int filterAt(ConvShape s, int o, int c, int p, int q) {
        return ((o * s.inChannels() + c) * s.kernelHeight() + p) * s.kernelWidth() + q;
    }

    /** {@code y[n,o,i,j] = Σ_{c,p,q} x[n, c, i·stride + p − padding, j·stride + q − padding] · w[o,c,p,q]}. */
    public static double[] conv2dForward(double[] x, double[] w, ConvShape s) {
        int oh = s.outHeight(), ow = s.outWidth();
        double[] y = new double[s.outputLength()];
        for (int n = 0; n < s.batch(); n++)
            for (int o = 0; o < s.outChannels(); o++)
                for (int i = 0; i < oh; i++)
                    for (int j = 0; j < ow; j++) {
                        double sum = 0;
                        for (int c = 0; c < s.inChannels(); c++)
                            for (int p = 0; p < s.kernelHeight(); p++)
                                for (int q = 0; q < s.kernelWidth(); q++) {
                                    int at = tap(s, n, c, i, j, p, q);
                                    if (at >= 0) sum += x[at] * w[filterAt(s, o, c, p, q)];
                                }
                        y[((n * s.outChannels() + o) * oh + i) * ow + j] = sum;
                    }
        return y;
    }

    /** Each output gradient sent back along the taps that made its output, padding dropped. */
    public static double[] conv2dBackwardData(double[] dy, double[] w, ConvShape s) {
        int oh = s.outHeight(), ow = s.outWidth();
        double[] dx = new double[s.inputLength()];
        for (int n = 0; n < s.batch(); n++)
            for (int o = 0; o < s.outChannels(); o++)
                for (int i = 0; i < oh; i++)
                    for (int j = 0; j < ow; j++) {
                        double g = dy[((n * s.outChannels() + o) * oh + i) * ow + j];
                        for (int c = 0; c < s.inChannels(); c++)
                            for (int p = 0; p < s.kernelHeight(); p++)
                                for (int q = 0; q < s.kernelWidth(); q++) {
                                    int at = tap(s, n, c, i, j, p, q);
                                    if (at >= 0) dx[at] += g * w[filterAt(s, o, c, p, q)];
                                }
                    }
        return dx;
    }

    /** Each tap's weight gradient: its inputs times the output gradients they made, summed over the batch. */
    public static double[] conv2dBackwardFilter(double[] x, double[] dy, ConvShape s) {
        int oh = s.outHeight(), ow = s.outWidth();
        double[] dw = new double[s.filterLength()];
        for (int n = 0; n < s.batch(); n++)
            for (int o = 0; o < s.outChannels(); o++)
                for (int i = 0; i < oh; i++)
                    for (int j = 0; j < ow; j++) {
                        double g = dy[((n * s.outChannels() + o) * oh + i) * ow + j];
                        for (int c = 0; c < s.inChannels(); c++)
                            for (int p = 0; p < s.kernelHeight(); p++)
                                for (int q = 0; q < s.kernelWidth(); q++) {
                                    int at = tap(s, n, c, i, j, p, q);
                                    if (at >= 0) dw[filterAt(s, o, c, p, q)] += g * x[at];
                                }
                    }
        return dw;
    }

    public static double[] biasAdd(double[] y, double[] b, BiasShape s) {
        double[] out = y.clone();
        for (int o = 0; o < s.outer(); o++)
            for (int c = 0; c < s.channels(); c++)
                for (int i = 0; i < s.inner(); i++) out[(o * s.channels() + c) * s.inner() + i] += b[c];
        return out;
    }

    public static double[] biasAddBackward(double[] dy, BiasShape s) {
        double[] db = new double[s.channels()];
        for (int o = 0; o < s.outer(); o++)
            for (int c = 0; c < s.channels(); c++)
                for (int i = 0; i < s.inner(); i++) db[c] += dy[(o * s.channels() + c) * s.inner() + i];
        return db;
    }

    public static double[] avgPoolForward(double[] x, PoolShape s) {
        int oh = s.outHeight(), ow = s.outWidth(), k = s.window();
        double[] y = new double[s.outputLength()];
        for (int pl = 0; pl < s.planes(); pl++)
            for (int i = 0; i < oh; i++)
                for (int j = 0; j < ow; j++) {
                    double sum = 0;
                    for (int p = 0; p < k; p++)
                        for (int q = 0; q < k; q++)
                            sum += x[(pl * s.height() + i * s.stride() + p) * s.width() + j * s.stride() + q];
                    y[(pl * oh + i) * ow + j] = sum / (k * k);
                }
        return y;
    }

    public static double[] avgPoolBackward(double[] dy, PoolShape s) {
        int oh = s.outHeight(), ow = s.outWidth(), k = s.window();
        double[] dx = new double[s.inputLength()];
        for (int pl = 0; pl < s.planes(); pl++)
            for (int i = 0; i < oh; i++)
                for (int j = 0; j < ow; j++)
                    for (int p = 0; p < k; p++)
                        for (int q = 0; q < k; q++)
                            dx[(pl * s.height() + i * s.stride() + p) * s.width() + j * s.stride() + q] +=
                                    dy[(pl * oh + i) * ow + j] / (k * k);
        return dx;
    }

    public static double[] maxPoolForward(double[] x, PoolShape s) {
        double[] y = new double[s.outputLength()];
        for (int out = 0; out < y.length; out++) y[out] = x[maxOfWindow(x, s, out)];
        return y;
    }

    public static double[] maxPoolBackward(double[] x, double[] dy, PoolShape s) {
        double[] dx = new double[s.inputLength()];
        for (int out = 0; out < dy.length; out++) dx[maxOfWindow(x, s, out)] += dy[out];
        return dx;
    }

    /** Where in {@code x} output element {@code out}'s window has its largest element, the first of equal ones. */
    private static int maxOfWindow(double[] x, PoolShape s, int out) {
        int oh = s.outHeight(), ow = s.outWidth();
        int plane = out / (oh * ow), i = out / ow % oh, j = out % ow;
        int best = -1;
        for (int p = 0; p < s.window(); p++)
            for (int q = 0; q < s.window(); q++) {
                int r = i * s.stride() - s.padding() + p, c = j * s.stride() - s.padding() + q;
                if (r < 0 || r >= s.height() || c < 0 || c >= s.width()) continue;
                int at = (plane * s.height() + r) * s.width() + c;
                if (best < 0 || x[at] > x[best]) best = at;
            }
        return best;
    }

    public static double[] reluForward(double[] x) {
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) y[i] = Math.max(x[i], 0);
        return y;
    }

    public static double[] reluBackward(double[] x, double[] dy) {
        double[] dx = new double[x.length];
        for (int i = 0; i < x.length; i++) dx[i] = x[i] > 0 ? dy[i] : 0;
        return dx;
    }

    public static double[] conv2dBiasForward(double[] x, double[] w, double[] b, ConvShape s) {
        return biasAdd(conv2dForward(x, w, s), b, s.bias());
    }

    public static double[] reluAvgPoolForward(double[] x, PoolShape s) {
        return avgPoolForward(reluForward(x), s);
    }

    public static double[] reluAvgPoolBackward(double[] x, double[] dy, PoolShape s) {
        return reluBackward(x, avgPoolBackward(dy, s));
    }

    /** {@code alpha·op(a)·op(b) + beta·c} with the same layout conventions as {@code KernelOp.Gemm}. */
    public static double[] gemm(
            boolean ta,
            boolean tb,
            int m,
            int n,
            int k,
            double alpha,
            double[] a,
            double[] b,
            double beta,
            double[] c) {
        double[] out = new double[m * n];
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double sum = 0;
                for (int p = 0; p < k; p++)
                    sum += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
                out[i * n + j] = alpha * sum + (beta == 0 ? 0 : beta * c[i * n + j]);
            }
        return out;
    }

    private static double[] softmax(double[] logits, int row, int classes) {
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < classes; j++) max = Math.max(max, logits[row * classes + j]);
        double sum = 0;
        double[] p = new double[classes];
        for (int j = 0; j < classes; j++) sum += p[j] = Math.exp(logits[row * classes + j] - max);
        for (int j = 0; j < classes; j++) p[j] /= sum;
        return p;
    }

    /** {@code log Σ exp(logits) − logits[label]} per row, the maximum taken out first so that no exp overflows. */
    public static double[] softmaxCrossEntropyForward(double[] logits, double[] labels, int batch, int classes) {
        double[] loss = new double[batch];
        for (int r = 0; r < batch; r++) {
            double max = Double.NEGATIVE_INFINITY, sum = 0;
            for (int j = 0; j < classes; j++) max = Math.max(max, logits[r * classes + j]);
            for (int j = 0; j < classes; j++) sum += Math.exp(logits[r * classes + j] - max);
            loss[r] = Math.log(sum) - (logits[r * classes + (int) labels[r]] - max);
        }
        return loss;
    }

    public static double[] softmaxCrossEntropyBackward(double[] logits, double[] labels, int batch, int classes) {
        double[] d = new double[batch * classes];
        for (int r = 0; r < batch; r++) {
            double[] p = softmax(logits, r, classes);
            for (int j = 0; j < classes; j++) d[r * classes + j] = p[j] - (j == (int) labels[r] ? 1 : 0);
        }
        return d;
    }
}
