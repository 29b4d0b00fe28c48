/*
 * The clock one thread of this processor runs at, for HostCpu's rating of the processor scripts/pytorch-host.py
 * measured on: chains of 4 dependent integer adds, one cycle each on every x86 core since the Pentium Pro, timed by
 * the thread's own processor time (which other programs on a shared machine do not stretch).
 *     gcc -O2 -o /tmp/core-clock scripts/core-clock.c && /tmp/core-clock
 */
#include <stdio.h>
#include <time.h>

int main(void) {
    for (int run = 0; run < 5; run++) {
        unsigned long n = 2000000000UL, x = 0;
        struct timespec start, end;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
        for (unsigned long i = 0; i < n; i++) {
            __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
        }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
        double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
        printf("%.2f GHz\n", 4.0 * n / seconds / 1e9);
    }
    return 0;
}
