/* Lock-contention workload: THREADS threads each append COUNT small records
 * to one file (O_APPEND), so they queue on the inode's lock.
 * usage: kl_append FILE THREADS COUNT */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fd;
static long count;

static void *appender(void *arg)
{
	char rec[64] = {0};
	(void)arg;
	for (long i = 0; i < count; i++)
		if (write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec)) {
			perror("kl_append: write");
			exit(1);
		}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: kl_append FILE THREADS COUNT\n");
		return 2;
	}
	int nthreads = atoi(argv[2]);
	count = atol(argv[3]);
	if (nthreads < 1 || nthreads > 256 || count < 1) {
		fprintf(stderr, "kl_append: THREADS must be 1..256 and COUNT >= 1\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	pthread_t t[256];
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, appender, NULL)) {
			fprintf(stderr, "kl_append: cannot create thread\n");
			return 1;
		}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	close(fd);
	return 0;
}
