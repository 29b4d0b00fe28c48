/**
 * Charts drawn with XChart: the notebook's animated learning curve and sec/epoch, saved as PNG and SVG after every
 * epoch and shown in a window when a display is present.
 */
package org.multigpulab.lessons.plot;
