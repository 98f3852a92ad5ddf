/*
 * threaded.c — a stdin target that runs a second thread (which only
 * sleeps): fork snapshots would copy only one of its threads, so cmc must
 * fall back to the replay executor for it and say why (t5300).
 * Protocol: each line "inc" adds one to a counter and answers "OK".
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

unsigned long counter;

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(void)
{
	pthread_t th;
	char line[256];
	if (pthread_create(&th, NULL, sleeper, NULL) != 0)
		return 1;
	while (fgets(line, sizeof line, stdin)) {
		if (!strcmp(line, "inc\n"))
			counter++;
		printf("OK\n");
		fflush(stdout);
	}
	return 0;
}
