/**
 * {@code ./lab}: the command line, one class per command ({@code train}, {@code lesson}, {@code bench},
 * {@code simulate}, {@code collectives}, {@code validate-model}, …) and the options they share. Reaches backends only
 * through {@code ServiceLoader} and device id strings; every error a user can cause ends as one line and an exit
 * status.
 */
package org.multigpulab.lessons.cli;
