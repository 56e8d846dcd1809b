// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scsi-scand - scan SCSI hosts and targets when udev says they appeared or
 * changed. The engine (engine.h) does the work; this is its options, its
 * log, systemd's notifications and the main loop.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "holdout.h"
#include "monitor.h"
#include "quirks.h"
#include "settle.h"
#include "sysfs.h"

#define EXIT_USAGE 2
/* SIGTERM to exit: under systemd's and the brief's 5 s. */
#define STOP_WAIT_MS 4000
/* Editors write in steps: the database is reloaded once things settle. */
#define RELOAD_QUIET_MS 300
/* A target the transport lists before it can be reached (an iSCSI session
 * is added before its login ends, and no uevent follows the login): the
 * host is scanned again this often, this many times. */
#define RETRY_MS 1000
#define RETRY_MAX 30
/* Sessions and remote ports are looked at this often (a few sysfs reads
 * per target): a path back waits this long at most for its LUNs. */
#define WATCH_PATHS_S 5

enum { LOG_TO_STDERR, LOG_TO_JOURNAL, LOG_TO_SYSLOG };

struct daemon {
	int log_target;
	int log_level;
	pthread_mutex_t log_lock;
	bool notify;
	const char *const *dirs;
	size_t ndirs;
	struct engine *engine;
	struct monitor *mon;
	const struct sysfs_ctx *sys;
	bool coldplug_done;
	/* the watch of HOLDOUT_DIR in the quirk directories' inotify */
	int holdout_wd;
};

static void log_line(void *data, int prio, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void log_line(void *data, int prio, const char *fmt, va_list ap)
{
	struct daemon *d = data;

	if (prio > d->log_level)
		return;
	if (d->log_target == LOG_TO_SYSLOG) {
		vsyslog(prio, fmt, ap);
		return;
	}
	pthread_mutex_lock(&d->log_lock);
	/* journald reads the priority from a "<N>" prefix. */
	if (d->log_target == LOG_TO_JOURNAL)
		fprintf(stderr, "<%d>", prio);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&d->log_lock);
}

static void say(struct daemon *d, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct daemon *d, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(d, prio, fmt, ap);
	va_end(ap);
}

static void notify(struct daemon *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void notify(struct daemon *d, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!d->notify)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sd_notify(0, msg);
}

static void status(struct daemon *d)
{
	struct engine_stats s;

	engine_stats(d->engine, &s);
	notify(d, "STATUS=%s: %u scan(s) running, %lu done, %lu events",
	       d->coldplug_done ? "Watching" : "Coldplug", s.running, s.scans, s.events);
}

/* LUNs' add events, only while a lunmask policy is there to hold. */
static void watch_lun_adds(struct daemon *d)
{
	bool on = engine_wants_lun_adds(d->engine);
	int r;

	if (!d->mon)
		return;
	r = monitor_watch_lun_adds(d->mon, on);
	if (r < 0)
		say(d, LOG_WARNING, "udev: cannot %s LUNs' add events: %s",
		    on ? "listen to" : "stop listening to", strerror(-r));
}

static void reload(struct daemon *d, const char *why)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	notify(d, "RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=Reloading the quirk database",
	       (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000);
	say(d, LOG_INFO, "quirks: reloading (%s)", why);
	engine_load_db(d->engine, d->dirs, d->ndirs, true);
	watch_lun_adds(d);
	notify(d, "READY=1");
	status(d);
}

/* The settle point's record, for "scsi-scan wait" and the settle unit. */
static void record_phase(struct daemon *d, enum settle_phase phase)
{
	int r = settle_write(d->sys, phase, getpid());

	if (r < 0)
		say(d, LOG_WARNING, "cannot write %s (phase %s): %s", SETTLE_STATE_PATH,
		    settle_phase_name(phase), strerror(-r));
}

static int watch_dirs(struct daemon *d)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	char dir[PATH_MAX];
	int r;

	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < d->ndirs; i++)
		if (inotify_add_watch(fd, d->dirs[i],
				      IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
					      IN_DELETE | IN_ONLYDIR) < 0)
			say(d, LOG_DEBUG, "quirks: not watching %s: %s", d->dirs[i],
			    strerror(errno));
	d->holdout_wd = -1;
	r = holdout_dir_make(d->sys, dir, sizeof(dir));
	if (r == 0) {
		d->holdout_wd = inotify_add_watch(
			fd, dir, IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR);
		r = d->holdout_wd < 0 ? -errno : 0;
	}
	if (r < 0)
		say(d, LOG_WARNING,
		    "hold-outs: not watching %s: %s (LUNs others attach are held to them "
		    "only at the next scan)",
		    HOLDOUT_DIR, strerror(-r));
	return fd;
}

/* Reads the watch's events: true when a quirk directory changed. A change
 * of the hold-outs needs no reload (every scan reads them), only the LUNs'
 * add events while there are some. */
static bool read_watch(struct daemon *d, int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool quirks = false, holdouts = false;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->wd == d->holdout_wd && d->holdout_wd >= 0)
				holdouts = true;
			else
				quirks = true;
			p += sizeof(*ev) + ev->len;
		}
	if (holdouts && engine_holdouts_changed(d->engine))
		watch_lun_adds(d);
	return quirks;
}

static void usage(FILE *f)
{
	fputs("Usage: scsi-scand [OPTIONS]\n"
	      "\n"
	      "Scan SCSI hosts and targets as udev reports them: new hosts, iSCSI sessions,\n"
	      "FC remote ports and SAS end devices, and targets whose LUN inventory\n"
	      "changed. Hosts present at start are scanned too.\n"
	      "\n"
	      "Options:\n"
	      "  -f, --foreground       stay in the foreground and log to stderr\n"
	      "      --remove           on a LUN inventory change, delete LUNs the target no\n"
	      "                         longer reports (never ones in use)\n"
	      "      --refused-luns remove|report\n"
	      "                         what a scan does with attached LUNs the lunmask\n"
	      "                         policy refuses (iscsid, a \"- - -\" rescan or hotplug\n"
	      "                         attached them): delete them unless in use (the\n"
	      "                         default), or only report them\n"
	      "      --attach-ghosts    attach LUNs that repeat another LUN's identity\n"
	      "                         (by default the target keeps LUN 0 only)\n"
	      "      --no-resize        on \"capacity data has changed\", log it but do not\n"
	      "                         have the kernel read the capacity again\n"
	      "      --max-workers N    hosts scanned at once, 1-1024 (default 16)\n"
	      "      --event-buffer BYTES\n"
	      "                         the udev socket's receive buffer, 65536-1073741824\n"
	      "                         (default 8 MiB); when it overflows, every host is\n"
	      "                         scanned again\n"
	      "      --poll-empty SECS  every SECS, scan the targets a transport lists (iSCSI\n"
	      "                         sessions, FC remote ports, SAS end devices) of which\n"
	      "                         nothing is attached: the first LUN mapped to one\n"
	      "                         sends no event; 0 (the default) never\n"
	      "      --watch-paths SECS every SECS (default 5), look at the state of iSCSI\n"
	      "                         sessions and FC remote ports: a target whose path\n"
	      "                         comes back has its offline LUNs set running, the\n"
	      "                         others read again, and is scanned; 0 never\n"
	      "      --quirks-dir DIR   quirk directory instead of the search path (repeatable)\n"
	      "      --sysroot DIR      root of every /sys, /dev, /proc and /run path (tests;\n"
	      "                         --sysfs is the old name)\n"
	      "      --no-monitor       do not listen to udev (tests)\n"
	      "      --once             scan what is there, wait for the scans, exit\n"
	      "  -v, --verbose          also log every event, and targets where nothing\n"
	      "                         changed\n"
	      "  -h, --help             this text\n"
	      "      --version          the version\n"
	      "\n"
	      "SIGHUP, and any change in a quirk directory, reload the quirk database.\n"
	      "See scsi-scand(8).\n",
	      f);
}

struct cmdline {
	struct engine_options eo;
	const char **dirs;
	size_t ndirs;
	const char *sysroot;
	bool foreground;
	bool monitor;
	size_t event_buffer;
	unsigned int poll_empty;
	unsigned int watch_paths;
	bool once;
	bool verbose;
};

/* Return: -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, struct cmdline *c)
{
	enum {
		OPT_REMOVE = 256,
		OPT_REFUSED_LUNS,
		OPT_ATTACH_GHOSTS,
		OPT_NO_RESIZE,
		OPT_MAX_WORKERS,
		OPT_QUIRKS_DIR,
		OPT_SYSROOT,
		OPT_NO_MONITOR,
		OPT_ONCE,
		OPT_EVENT_BUFFER,
		OPT_POLL_EMPTY,
		OPT_WATCH_PATHS,
		OPT_VERSION
	};
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "remove", no_argument, NULL, OPT_REMOVE },
		{ "refused-luns", required_argument, NULL, OPT_REFUSED_LUNS },
		{ "attach-ghosts", no_argument, NULL, OPT_ATTACH_GHOSTS },
		{ "no-resize", no_argument, NULL, OPT_NO_RESIZE },
		{ "max-workers", required_argument, NULL, OPT_MAX_WORKERS },
		{ "quirks-dir", required_argument, NULL, OPT_QUIRKS_DIR },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "sysfs", required_argument, NULL, OPT_SYSROOT },
		{ "no-monitor", no_argument, NULL, OPT_NO_MONITOR },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "event-buffer", required_argument, NULL, OPT_EVENT_BUFFER },
		{ "poll-empty", required_argument, NULL, OPT_POLL_EMPTY },
		{ "watch-paths", required_argument, NULL, OPT_WATCH_PATHS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	int opt, r;

	while ((opt = getopt_long(argc, argv, "fvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			c->foreground = true;
			break;
		case OPT_REMOVE:
			c->eo.remove = true;
			break;
		case OPT_REFUSED_LUNS:
			if (strcmp(optarg, "remove") && strcmp(optarg, "report")) {
				fputs("scsi-scand: --refused-luns takes remove or report\n",
				      stderr);
				return EXIT_USAGE;
			}
			c->eo.refused_report_only = strcmp(optarg, "report") == 0;
			break;
		case OPT_ATTACH_GHOSTS:
			c->eo.attach_ghosts = true;
			break;
		case OPT_NO_RESIZE:
			c->eo.resize = false;
			break;
		case OPT_MAX_WORKERS: {
			unsigned long v;
			char *end;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			/* Checked before narrowing: 4294967297 is not 1. */
			if (*optarg < '0' || *optarg > '9' || *end || errno || v < 1 || v > 1024) {
				fputs("scsi-scand: --max-workers takes 1-1024\n", stderr);
				return EXIT_USAGE;
			}
			c->eo.max_workers = (unsigned int)v;
			break;
		}
		case OPT_EVENT_BUFFER: {
			unsigned long long v;
			char *end;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || errno || v < 65536 ||
			    v > (1ull << 30)) {
				fputs("scsi-scand: --event-buffer takes 65536-1073741824 bytes\n",
				      stderr);
				return EXIT_USAGE;
			}
			c->event_buffer = (size_t)v;
			break;
		}
		case OPT_POLL_EMPTY:
		case OPT_WATCH_PATHS: {
			const char *name = opt == OPT_POLL_EMPTY ? "poll-empty" : "watch-paths";
			unsigned long v;
			char *end;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || errno || v > 86400) {
				fprintf(stderr, "scsi-scand: --%s takes 0-86400 seconds\n", name);
				return EXIT_USAGE;
			}
			*(opt == OPT_POLL_EMPTY ? &c->poll_empty : &c->watch_paths) =
				(unsigned int)v;
			break;
		}
		case OPT_QUIRKS_DIR:
			r = quirk_dir_add(&c->dirs, &c->ndirs, optarg);
			if (r < 0) {
				fprintf(stderr, "scsi-scand: --quirks-dir %s: %s\n", optarg,
					strerror(-r));
				return EXIT_FAILURE;
			}
			break;
		case OPT_SYSROOT:
			c->sysroot = optarg;
			break;
		case OPT_NO_MONITOR:
			c->monitor = false;
			break;
		case OPT_ONCE:
			c->once = true;
			break;
		case 'v':
			c->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case OPT_VERSION:
			puts("scsi-scand " PROJECT_VERSION);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return -1;
}

/* A timer that fires every @seconds, or -1 with errno set; 0 seconds (or a
 * run that ends after its coldplug) needs none: -2. */
static int every(unsigned int seconds, bool once)
{
	struct itimerspec its = { .it_value = { .tv_sec = seconds },
				  .it_interval = { .tv_sec = seconds } };
	int fd;

	if (!seconds || once)
		return -2;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd >= 0)
		timerfd_settime(fd, 0, &its, NULL);
	return fd;
}

/* The main loop: signals, the quirk directories, udev, the engine. */
static int run(struct daemon *d, struct monitor *mon, const struct cmdline *c)
{
	struct itimerspec quiet = { .it_value = { .tv_nsec = RELOAD_QUIET_MS * 1000000L } };
	bool once = c->once;
	int sfd, ifd, tfd, pfd, wfd, r, ret = EXIT_FAILURE;
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	ifd = watch_dirs(d);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	pfd = every(c->poll_empty, once);
	wfd = every(c->watch_paths, once);
	if (sfd < 0 || ifd < 0 || tfd < 0 || pfd == -1 || wfd == -1) {
		say(d, LOG_ERR, "cannot set up signals, inotify or timers: %s", strerror(errno));
		goto out;
	}
	record_phase(d, SETTLE_PHASE_COLDPLUG);
	engine_coldplug(d->engine);
	/* The first look only records what cannot be reached now. */
	if (wfd >= 0)
		engine_watch_paths(d->engine);
	/*
	 * Ready once listening, with the coldplug running: the initramfs
	 * already attached the root disk, and systemd waits for the device
	 * units that fstab needs itself, so nothing has to wait for every
	 * host's scan (which can take tens of seconds on a large HBA).
	 * STATUS= and the settle record say when the coldplug is done.
	 */
	notify(d, "READY=1");
	status(d);
	for (;;) {
		struct pollfd p[8] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = ifd, .events = POLLIN },
			{ .fd = tfd, .events = POLLIN },
			{ .fd = mon ? monitor_fd(mon) : -1, .events = POLLIN },
			{ .fd = pfd, .events = POLLIN },
			{ .fd = wfd, .events = POLLIN },
		};
		size_t n = 6 + engine_pollfds(d->engine, p + 6);

		if (!d->coldplug_done && engine_idle(d->engine)) {
			d->coldplug_done = true;
			say(d, LOG_INFO, "coldplug done");
			record_phase(d, SETTLE_PHASE_SETTLED);
			status(d);
			if (once) {
				ret = EXIT_SUCCESS;
				break;
			}
		}
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			say(d, LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					reload(d, "SIGHUP");
				} else {
					say(d, LOG_INFO, "stopping (signal %u)", si.ssi_signo);
					notify(d, "STOPPING=1");
					ret = EXIT_SUCCESS;
					break;
				}
			}
		}
		if ((p[1].revents & POLLIN) && read_watch(d, ifd))
			timerfd_settime(tfd, 0, &quiet, NULL);
		if (p[2].revents & POLLIN) {
			uint64_t ticks;

			if (read(tfd, &ticks, sizeof(ticks)) == sizeof(ticks))
				reload(d, "a quirk directory changed");
		}
		if (mon && (p[3].revents & POLLIN)) {
			struct scsi_event ev;
			char what[256];

			while ((r = monitor_receive(mon, &ev, what, sizeof(what))) > 0 ||
			       r == -ENOBUFS) {
				if (r == -ENOBUFS) {
					/* The kernel dropped events for us: which hosts
					 * they named is lost, so every host is scanned. */
					say(d, LOG_WARNING,
					    "udev: the event buffer overflowed and events were "
					    "lost: every host is scanned again");
					engine_coldplug(d->engine);
					continue;
				}
				say(d, LOG_DEBUG, "event: %s", what);
				engine_event(d->engine, &ev);
			}
			if (r < 0)
				say(d, LOG_WARNING, "udev: %s", strerror(-r));
		}
		if (p[4].revents & POLLIN) {
			uint64_t ticks;

			if (read(pfd, &ticks, sizeof(ticks)) == sizeof(ticks)) {
				r = engine_poll_empty(d->engine);
				if (r < 0)
					say(d, LOG_WARNING, "poll: cannot list hosts: %s",
					    strerror(-r));
				else
					say(d, LOG_DEBUG, "poll: %d empty target(s) scanned", r);
			}
		}
		if (p[5].revents & POLLIN) {
			uint64_t ticks;

			if (read(wfd, &ticks, sizeof(ticks)) == sizeof(ticks)) {
				r = engine_watch_paths(d->engine);
				if (r < 0)
					say(d, LOG_WARNING, "watch: cannot list hosts: %s",
					    strerror(-r));
			}
		}
		if ((p[6].revents | p[7].revents) & POLLIN) {
			engine_dispatch(d->engine);
			status(d);
		}
	}
out:
	if (sfd >= 0)
		close(sfd);
	if (ifd >= 0)
		close(ifd);
	if (tfd >= 0)
		close(tfd);
	if (pfd >= 0)
		close(pfd);
	if (wfd >= 0)
		close(wfd);
	return ret;
}

int main(int argc, char **argv)
{
	struct cmdline c = { .eo = { .max_workers = 16,
				     .resize = true,
				     .retry_ms = RETRY_MS,
				     .retry_max = RETRY_MAX },
			     .monitor = true,
			     .watch_paths = WATCH_PATHS_S,
			     .event_buffer = 8 << 20 };
	struct daemon d = { .log_level = LOG_INFO, .log_lock = PTHREAD_MUTEX_INITIALIZER };
	struct sysfs_ctx *sys = NULL;
	struct monitor *mon = NULL;
	char **search_path = NULL, scan_mode[32];
	sigset_t mask;
	int ret;

	/* Blocked before anything else: a SIGHUP (a reload) or SIGTERM that
	 * comes while the database loads waits for the signalfd, rather than
	 * kill the daemon in a way Restart=on-failure does not restart. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	ret = parse_args(argc, argv, &c);
	if (ret >= 0)
		goto out;
	ret = EXIT_FAILURE;
	if (c.sysroot) {
		struct stat st;
		int e = stat(c.sysroot, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;

		if (e) {
			fprintf(stderr, "scsi-scand: --sysroot %s: %s\n", c.sysroot, strerror(e));
			goto out;
		}
	}
	d.log_level = c.verbose ? LOG_DEBUG : LOG_INFO;
	/* One malloc arena per worker thread would keep their pages. */
	mallopt(M_ARENA_MAX, 2);
	d.notify = getenv("NOTIFY_SOCKET") != NULL;
	if (getenv("JOURNAL_STREAM") && !c.foreground) {
		d.log_target = LOG_TO_JOURNAL;
	} else if (!c.foreground && !d.notify && !c.once) {
		if (daemon(0, 0) < 0) {
			perror("scsi-scand: daemon");
			goto out;
		}
		openlog("scsi-scand", LOG_PID, LOG_DAEMON);
		d.log_target = LOG_TO_SYSLOG;
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	sys = sysfs_new(c.sysroot);
	if (!sys)
		goto out;
	/* Installed is not switched on: while the kernel scans by itself, the
	 * database must not change what it attaches. Without scsi_mod loaded
	 * yet (no parameter), the hosts may still come under scan=manual. */
	if (sysfs_read(sys, scan_mode, sizeof(scan_mode), "/sys/module/scsi_mod/parameters/scan") >
		    0 &&
	    strcmp(scan_mode, "manual") != 0) {
		say(&d, LOG_NOTICE,
		    "the kernel scans by itself (scsi_mod.scan=%s): nothing to do (see \"Switching "
		    "scanning to user space\" in scsi-scand(8))",
		    scan_mode);
		d.sys = sys;
		record_phase(&d, SETTLE_PHASE_KERNEL);
		/* A Type=notify unit that exits before READY=1 has failed. */
		notify(&d, "READY=1\nSTATUS=The kernel scans by itself (scsi_mod.scan=%s)",
		       scan_mode);
		ret = EXIT_SUCCESS;
		goto out;
	}
	d.dirs = c.dirs;
	d.ndirs = c.ndirs;
	if (!d.ndirs) {
		if (quirk_search_path(NULL, &search_path, &d.ndirs) < 0)
			goto out;
		d.dirs = (const char *const *)search_path;
	}
	d.sys = sys;
	d.engine = engine_new(sys, &c.eo);
	if (!d.engine) {
		say(&d, LOG_ERR, "cannot start: %s", strerror(errno));
		goto out;
	}
	engine_set_log_fn(d.engine, log_line, &d);
	if (engine_load_db(d.engine, d.dirs, d.ndirs, false) < 0)
		goto out;
	/* Listen before coldplug, so nothing that appears meanwhile is lost. */
	if (c.monitor && !c.once) {
		mon = monitor_new(c.event_buffer);
		if (!mon) {
			say(&d, LOG_ERR, "cannot listen to udev: %s", strerror(errno));
			goto out;
		}
		d.mon = mon;
		watch_lun_adds(&d);
	}
	say(&d, LOG_INFO, "started (%u workers at most%s%s)", c.eo.max_workers,
	    c.eo.remove ? ", removing LUNs no longer reported" : "",
	    c.poll_empty ? ", polling empty targets" : "");
	if (c.poll_empty)
		say(&d, LOG_INFO,
		    "poll: the targets transports list with nothing attached, every %u s",
		    c.poll_empty);
	ret = run(&d, mon, &c);
	/* Scans stop at their next step; a scan write in the kernel cannot be
	 * interrupted, so wait for it, but not past the stop bound. */
	if (engine_stop(d.engine, STOP_WAIT_MS)) {
		/* The workers still use the daemon's state: leave it to exit(). */
		say(&d, LOG_WARNING, "stopping with scan(s) still inside a kernel write");
		exit(ret);
	}
out:
	monitor_free(mon);
	engine_unref(d.engine);
	quirk_search_path_free(search_path);
	sysfs_free(sys);
	free(c.dirs);
	return ret;
}
