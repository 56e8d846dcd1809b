// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * monotonic - clock and waiting helpers for the benchmark guest, whose
 * shell has only /proc/uptime (centiseconds) and whose polling loops would
 * fork a sleep process every few milliseconds and steal the CPU from the
 * scan being measured.
 *
 *   monotonic               print CLOCK_MONOTONIC in microseconds
 *   monotonic wait PATH...  stat every PATH each millisecond until all
 *                           exist (at most 600 s), then print the time
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	const struct timespec ms = { 0, 1000000 };
	long long start = now_us();

	if (argc > 1 && strcmp(argv[1], "wait") == 0) {
		for (int i = 2; i < argc; i++) {
			struct stat st;

			while (stat(argv[i], &st) < 0) {
				if (now_us() - start > 600000000LL) {
					fprintf(stderr, "monotonic: %s never appeared\n", argv[i]);
					return 1;
				}
				nanosleep(&ms, NULL);
			}
		}
	}
	printf("%lld\n", now_us());
	return 0;
}
