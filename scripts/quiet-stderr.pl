#!/usr/bin/perl
# Copies standard input to standard output as it arrives, less two kinds of line a student cannot act on:
#   - the JVM's "WARNING: Using incubator modules: jdk.incubator.vector", printed whenever the Vector API
#     (which the cpu backend's kernels use) is added with --add-modules; the JVM has no switch to silence it;
#   - libtorch's "Could not initialize NNPACK! Reason: Unsupported hardware.": NNPACK, one of libtorch's
#     convolution libraries, does not run on this processor, and libtorch uses its others instead.
# Partial lines (progress bars redraw a line with \r) pass at once unless they could still become such a line.
use strict;
use warnings;

my @quiet = (qr/^WARNING: Using incubator modules: jdk\.incubator\.vector$/,
             qr/Could not initialize NNPACK! Reason: Unsupported hardware/);
my @starts = ('WARNING: Using incubator modules', '[W');

$| = 1;
my $pending = '';
while (sysread(STDIN, my $chunk, 65536)) {
    $pending .= $chunk;
    while ($pending =~ s/^([^\r\n]*[\r\n])//) {
        my $line = $1;
        (my $text = $line) =~ s/[\r\n]$//;
        print $line unless grep { $text =~ $_ } @quiet;
    }
    next if $pending eq '';
    my $maybe = grep { index($_, $pending) == 0 || index($pending, $_) == 0 } @starts;
    if (!$maybe) {
        print $pending;
        $pending = '';
    }
}
print $pending;
