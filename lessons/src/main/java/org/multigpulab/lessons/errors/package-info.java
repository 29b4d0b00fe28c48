/**
 * Errors a user can cause ({@code UserError}): the message says what was wrong and what to do, and the command line
 * prints it as one line.
 */
package org.multigpulab.lessons.errors;
