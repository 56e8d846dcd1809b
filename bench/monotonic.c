// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * monotonic - clock and waiting helpers for the benchmark guest, whose
 * shell has only /proc/uptime (centiseconds) and whose polling loops would
 * fork a sleep process every few milliseconds and steal the CPU from the
 * scan being measured.
 *
 *   monotonic               print CLOCK_MONOTONIC in microseconds
 *   monotonic wait [-p MS] PATH...
 *                           stat every PATH each millisecond (each MS
 *                           milliseconds) until all exist (at most 600 s),
 *                           then print the time; a wait that runs beside a
 *                           long scan takes a longer period, or its stats
 *                           take the CPU from the scan it waits for
 *   monotonic write FILE VALUE
 *                           write VALUE to FILE (a sysfs scan file) and
 *                           print how long the write took, in microseconds
 *   monotonic writes [-j N] FILE VALUE...
 *                           write each VALUE to FILE in turn, one write()
 *                           each, from N threads (default 1, each with its
 *                           own descriptor, the VALUEs dealt out in turn),
 *                           and print how long all took, in microseconds:
 *                           the floor of one scan write per LUN
 *   monotonic run PROGRAM [ARG...]
 *                           run PROGRAM (its output to /dev/null) and print
 *                           how long it took from fork to exit, in
 *                           microseconds; exit with its status
 *
 * write and run time the two sides of a comparison the same way, inside
 * one process: the shell's own fork and pipe of $(...) are in neither.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int timed_write(const char *path, const char *value)
{
	long long start;
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	start = now_us();
	n = write(fd, value, strlen(value));
	printf("%lld\n", now_us() - start);
	close(fd);
	return n < 0;
}

struct writer {
	const char *path;
	char **values;
	int count;
	int step;
	int failed;
};

static void *write_each(void *arg)
{
	struct writer *w = arg;
	int fd = open(w->path, O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(w->path);
		w->failed = 1;
		return NULL;
	}
	for (int i = 0; i < w->count; i += w->step)
		if (write(fd, w->values[i], strlen(w->values[i])) < 0)
			w->failed = 1;
	close(fd);
	return NULL;
}

static int timed_writes(int argc, char **argv)
{
	struct writer w[16];
	pthread_t tid[16];
	int threads = 1, failed = 0;
	long long start;

	if (argc > 2 && strcmp(argv[0], "-j") == 0) {
		threads = atoi(argv[1]);
		argc -= 2;
		argv += 2;
	}
	if (threads < 1 || threads > 16 || argc < 2) {
		fprintf(stderr, "monotonic writes [-j 1-16] FILE VALUE...\n");
		return 1;
	}
	start = now_us();
	for (int t = 0; t < threads; t++) {
		w[t] = (struct writer){ argv[0], argv + 1 + t, argc - 1 - t, threads, 0 };
		if (pthread_create(&tid[t], NULL, write_each, &w[t]) != 0)
			return 1;
	}
	for (int t = 0; t < threads; t++) {
		pthread_join(tid[t], NULL);
		failed |= w[t].failed;
	}
	printf("%lld\n", now_us() - start);
	return failed;
}

static int timed_run(char **argv)
{
	long long start = now_us();
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return 1;
	}
	printf("%lld\n", now_us() - start);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	struct timespec period = { 0, 1000000 };
	long long start = now_us();

	if (argc == 4 && strcmp(argv[1], "write") == 0)
		return timed_write(argv[2], argv[3]);
	if (argc > 3 && strcmp(argv[1], "writes") == 0)
		return timed_writes(argc - 2, argv + 2);
	if (argc > 2 && strcmp(argv[1], "run") == 0)
		return timed_run(argv + 2);
	if (argc > 1 && strcmp(argv[1], "wait") == 0) {
		int first = 2;

		if (argc > 3 && strcmp(argv[2], "-p") == 0) {
			long ms = atol(argv[3]);

			if (ms < 1 || ms > 1000) {
				fprintf(stderr, "monotonic wait [-p 1-1000] PATH...\n");
				return 1;
			}
			period = (struct timespec){ ms / 1000, ms % 1000 * 1000000 };
			first = 4;
		}
		for (int i = first; i < argc; i++) {
			struct stat st;

			while (stat(argv[i], &st) < 0) {
				if (now_us() - start > 600000000LL) {
					fprintf(stderr, "monotonic: %s never appeared\n", argv[i]);
					return 1;
				}
				nanosleep(&period, NULL);
			}
		}
	}
	printf("%lld\n", now_us());
	return 0;
}
