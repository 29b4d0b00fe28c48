/**
 * What the command line asks for, made ready: the data (located, checked, cut to size), the devices (a backend by
 * name, through {@code ServiceLoader}) and the folder plots go to.
 */
package org.multigpulab.lessons.setup;
