/**
 * Files written whole or not at all ({@code WholeFile}: a temporary file beside the target, forced to disk, then
 * moved over it), for every module that writes outputs a crash must not leave half-written. JDK only.
 */
package org.multigpulab.device.io;
