/* A program timing its own operations with OSP_PRE/OSP_POST: T threads do N
 * "lookup" each (threads exit before the profile is written), then main does
 * N "commit". The profile goes to $OSPROF_OUTPUT or stderr at exit.
 *   app_ops N T */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <osprof/instrument.h>

static unsigned long n;
static volatile unsigned long sink;

static void *worker(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < n; i++) {
		OSP_PRE(lookup);
		sink += i;
		OSP_POST(lookup);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: app_ops N THREADS\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	unsigned long t = strtoul(argv[2], NULL, 10);
	pthread_t *tid = calloc(t, sizeof(*tid));
	for (unsigned long i = 0; i < t; i++)
		if (pthread_create(&tid[i], NULL, worker, NULL))
			return 1;
	for (unsigned long i = 0; i < t; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	for (unsigned long i = 0; i < n; i++) {
		OSP_PRE(commit);
		sink += i;
		OSP_POST(commit);
	}
	return 0;
}
