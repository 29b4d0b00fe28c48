package org.multigpulab.core.model;

import java.util.Arrays;
import java.util.Random;

/** One parameter of a {@link Model}: its name, its shape, and how its values start. */
public record ParameterSpec(String name, Init init, int... shape) {

    /** A weight whose values start as {@code randn · std}. */
    public static ParameterSpec normal(String name, float std, int... shape) {
        return new ParameterSpec(name, new Init.Normal(std), shape);
    }

    /** A parameter whose values start at zero (a bias). */
    public static ParameterSpec zeros(String name, int... shape) {
        return new ParameterSpec(name, new Init.Zeros(), shape);
    }

    /** A parameter whose values start uniform in [−bound, bound): PyTorch's default for a layer's bias. */
    public static ParameterSpec uniform(String name, float bound, int... shape) {
        return new ParameterSpec(name, new Init.Uniform(bound), shape);
    }

    /** A parameter whose values start at one (BatchNorm's γ). */
    public static ParameterSpec ones(String name, int... shape) {
        return new ParameterSpec(name, new Init.Ones(), shape);
    }

    public int size() {
        int n = 1;
        for (int d : shape) {
            n *= d;
        }
        return n;
    }

    /** The initial values, drawing what they need from {@code random}. */
    public HostTensor initialise(Random random) {
        float[] values = new float[size()];
        init.fill(values, random);
        return new HostTensor(name, shape.clone(), values);
    }

    @Override
    public String toString() {
        return name + " " + Arrays.toString(shape);
    }

    /** How a parameter's values start. */
    public sealed interface Init {

        void fill(float[] values, Random random);

        /**
         * Each value {@code randn · std}, drawn in order (Java's generator, so the numbers differ from PyTorch's,
         * the distribution not).
         */
        record Normal(float std) implements Init {
            @Override
            public void fill(float[] values, Random random) {
                for (int i = 0; i < values.length; i++) {
                    values[i] = (float) random.nextGaussian() * std;
                }
            }
        }

        /**
         * Each value uniform in [−bound, bound), drawn in order: PyTorch's default for a convolution's or linear
         * layer's bias, {@code 1/√fan_in}, and for its weight (kaiming-uniform with a = √5 comes to the same bound).
         */
        record Uniform(float bound) implements Init {
            @Override
            public void fill(float[] values, Random random) {
                for (int i = 0; i < values.length; i++) {
                    values[i] = (float) ((random.nextDouble() * 2 - 1) * bound);
                }
            }
        }

        /** All ones; draws nothing. */
        record Ones() implements Init {
            @Override
            public void fill(float[] values, Random random) {
                Arrays.fill(values, 1f);
            }
        }

        /** All zeros; draws nothing. */
        record Zeros() implements Init {
            @Override
            public void fill(float[] values, Random random) {}
        }
    }
}
