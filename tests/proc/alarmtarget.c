/*
 * alarmtarget.c — a stdin target that arms the real-time interval timer
 * (tests/t5394-alarm.sh): alarm(2) and setitimer(2) must run on cmc's
 * virtual clock, firing on `advance` operations and never by real time.
 * Lines:
 *   ARM n        alarm(n); answers "prev P" (the seconds the previous
 *                alarm had left)
 *   TICK ms      setitimer(ITIMER_REAL) every ms milliseconds
 *   NAP ms       sleeps ms milliseconds of real time (usleep: not virtual)
 *   LEFT         answers "left S.UUUUUU" (getitimer)
 *   GET          answers "fired N"
 *   TFD ms       arms a timerfd (real time: cmc says so)
 *   PTIMER       creates a POSIX timer, unarmed (the same)
 * With the argument "handle" SIGALRM counts into a heap record; without,
 * SIGALRM's default action ends the target.  With "tfd" it arms a timerfd
 * of a minute as it starts.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

struct rec {
	volatile sig_atomic_t fired;
};

static struct rec *r;

static void on_alarm(int sig)
{
	(void)sig;
	r->fired++;
}

int main(int argc, char **argv)
{
	r = calloc(1, sizeof *r);
	if (!r)
		return 1;
	if (argc > 1 && !strcmp(argv[1], "handle")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
	}
	if (argc > 1 && !strcmp(argv[1], "tfd")) {
		int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		struct itimerspec its = {{0, 0}, {60, 0}};
		if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
			return 1;
	}
	char line[128];
	setvbuf(stdout, NULL, _IONBF, 0);
	while (fgets(line, sizeof line, stdin)) {
		long v = 0;
		if (sscanf(line, "ARM %ld", &v) == 1) {
			printf("prev %u\n", alarm((unsigned)v));
		} else if (sscanf(line, "TICK %ld", &v) == 1) {
			struct itimerval it = {{v / 1000, v % 1000 * 1000}, {v / 1000, v % 1000 * 1000}};
			printf("%s\n", setitimer(ITIMER_REAL, &it, NULL) ? "ERR" : "OK");
		} else if (sscanf(line, "NAP %ld", &v) == 1) {
			usleep((useconds_t)(v * 1000));
			printf("OK\n");
		} else if (!strncmp(line, "LEFT", 4)) {
			struct itimerval it;
			getitimer(ITIMER_REAL, &it);
			printf("left %ld.%06ld\n", (long)it.it_value.tv_sec, (long)it.it_value.tv_usec);
		} else if (sscanf(line, "TFD %ld", &v) == 1) {
			int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
			struct itimerspec its = {{0, 0}, {v / 1000, v % 1000 * 1000000}};
			printf("%s\n", fd < 0 || timerfd_settime(fd, 0, &its, NULL) ? "ERR" : "OK");
		} else if (!strncmp(line, "PTIMER", 6)) {
			timer_t t;
			printf("%s\n", timer_create(CLOCK_MONOTONIC, NULL, &t) ? "ERR" : "OK");
		} else if (!strncmp(line, "GET", 3)) {
			printf("fired %d\n", (int)r->fired);
		} else {
			printf("ERR\n");
		}
	}
	return 0;
}
