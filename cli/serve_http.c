/* libmicrohttpd daemon of `osprof serve` (see serve_http.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <osprof/render.h>
#include "cli/cli.h"
#include "cli/serve_http.h"

struct snapshot {
	struct osp_set *set;
	unsigned refs;
};

struct serve_http {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	struct snapshot *cur;
	size_t max_series;
};

static void snapshot_put(struct serve_http *h, struct snapshot *s)
{
	pthread_mutex_lock(&h->lock);
	int last = --s->refs == 0;
	pthread_mutex_unlock(&h->lock);
	if (last) {
		osp_set_free(s->set);
		free(s);
	}
}

void serve_http_publish(struct serve_http *h, struct osp_set *set)
{
	struct snapshot *s = set ? malloc(sizeof(*s)) : NULL;
	if (!s) {
		osp_set_free(set);
		return; /* scrapes keep seeing the previous snapshot */
	}
	s->set = set;
	s->refs = 1;
	pthread_mutex_lock(&h->lock);
	struct snapshot *old = h->cur;
	h->cur = s;
	pthread_mutex_unlock(&h->lock);
	if (old)
		snapshot_put(h, old);
}

/* Prometheus asks for protobuf first when native histograms are enabled. */
static int wants_protobuf(struct MHD_Connection *c)
{
	const char *fmt = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
	if (fmt)
		return !strcmp(fmt, "protobuf");
	const char *acc = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	return acc && strstr(acc, "application/vnd.google.protobuf") &&
	       strstr(acc, "proto=io.prometheus.client.MetricFamily") &&
	       strstr(acc, "encoding=delimited");
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *msg)
{
	char *b = strdup(msg);
	return b ? reply(c, status, "text/plain; charset=utf-8", b, strlen(b)) : MHD_NO;
}

/* One scrape: a thread renders the snapshot into a pipe while MHD sends
 * what comes out of it, so a /metrics of 100 MB (200,000 series) is never
 * held in memory and a scraper that goes away stops the render (EPIPE). A
 * render that fails midway aborts the connection: the scraper sees a broken
 * response, never a short one that looks whole. */
#define SCRAPE_CHUNK (64 * 1024)

struct scrape {
	struct serve_http *h;
	struct snapshot *snap;
	int pb, rfd, wfd;
	int rc;     /* the render's result, read after joining it */
	int joined; /* th is over */
	pthread_t th;
};

static void *scrape_render(void *arg)
{
	struct scrape *sc = arg;
	sigset_t pipe_sig;
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL); /* a gone scraper is EPIPE here */
	struct osp_prom_opts o = {sc->h->max_series, NULL};
	FILE *f = fdopen(sc->wfd, "w");
	int rc = -1;
	if (f) {
		setvbuf(f, NULL, _IOFBF, SCRAPE_CHUNK);
		rc = sc->pb ? osp_render_prometheus_pb(f, sc->snap->set, &o)
		            : osp_render_prometheus(f, sc->snap->set, &o);
		if (fclose(f))
			rc = -1;
	} else {
		close(sc->wfd);
	}
	snapshot_put(sc->h, sc->snap);
	sc->rc = rc;
	return NULL;
}

static int scrape_start(struct scrape *sc)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	sc->rfd = p[0];
	sc->wfd = p[1];
	if (pthread_create(&sc->th, NULL, scrape_render, sc)) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	return 0;
}

static ssize_t scrape_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct scrape *sc = cls;
	(void)pos;
	for (;;) {
		ssize_t n = read(sc->rfd, buf, max);
		if (n > 0)
			return n;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		pthread_join(sc->th, NULL); /* EOF: the render is over */
		sc->joined = 1;
		return sc->rc ? MHD_CONTENT_READER_END_WITH_ERROR
		              : MHD_CONTENT_READER_END_OF_STREAM;
	}
}

static void scrape_free(void *cls)
{
	struct scrape *sc = cls;
	close(sc->rfd); /* a render still writing gets EPIPE and ends */
	if (!sc->joined)
		pthread_join(sc->th, NULL);
	free(sc);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
	struct serve_http *h = cls;
	(void)version;
	(void)upload_data;
	(void)con_cls;
	if (*upload_data_size)
		return reply_text(c, MHD_HTTP_BAD_REQUEST, "no request body expected\n");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET /metrics\n");
	if (strcmp(url, "/metrics"))
		return reply_text(c, MHD_HTTP_NOT_FOUND, "osprof serve: GET /metrics\n");
	struct scrape *sc = calloc(1, sizeof(*sc));
	if (!sc)
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	sc->h = h;
	sc->pb = wants_protobuf(c);
	pthread_mutex_lock(&h->lock);
	sc->snap = h->cur;
	sc->snap->refs++;
	pthread_mutex_unlock(&h->lock);
	if (scrape_start(sc)) {
		snapshot_put(h, sc->snap);
		free(sc);
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot start a render\n");
	}
	struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, SCRAPE_CHUNK,
	                                                           scrape_read, sc, scrape_free);
	if (!r) {
		scrape_free(sc);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	                        sc->pb
	                            ? "application/vnd.google.protobuf; "
	                              "proto=io.prometheus.client.MetricFamily; encoding=delimited"
	                            : "text/plain; version=0.0.4; charset=utf-8");
	enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

/* "HOST:PORT" or "[HOST6]:PORT" into a socket address. */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, int *v6)
{
	char host[128];
	const char *colon = strrchr(addr, ':');
	if (!colon || (size_t)(colon - addr) >= sizeof(host))
		return -1;
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	char *h = host;
	size_t hl = strlen(h);
	if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
		h[hl - 1] = '\0';
		h++;
	}
	struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	                         .ai_socktype = SOCK_STREAM},
	                *res;
	if (!*colon || !colon[1] || getaddrinfo(h, colon + 1, &hints, &res))
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*v6 = res->ai_family == AF_INET6;
	freeaddrinfo(res);
	return 0;
}

struct serve_http *serve_http_start(const char *addr, size_t max_series, char *bound,
                                    size_t boundlen)
{
	struct sockaddr_storage ss;
	int v6;
	if (parse_addr(addr, &ss, &v6)) {
		osp_usage_err("serve", "--listen: '%s' is not ADDR:PORT (a numeric address)", addr);
		return NULL;
	}
	struct serve_http *h = calloc(1, sizeof(*h));
	struct osp_set *empty = osp_set_new(1);
	if (!h || !empty) {
		free(h);
		osp_set_free(empty);
		osp_err("serve: out of memory");
		return NULL;
	}
	pthread_mutex_init(&h->lock, NULL);
	h->max_series = max_series;
	serve_http_publish(h, empty);
	h->d = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
	    on_request, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)SERVE_THREADS, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned)SERVE_MAX_CONNS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_CONN_TIMEOUT,
	    MHD_OPTION_END);
	if (!h->d) {
		osp_err("serve: cannot listen on %s (in use, or not an address of this host)",
		        addr);
		serve_http_stop(h);
		return NULL;
	}
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	char host[INET6_ADDRSTRLEN] = "?";
	if (v6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
	snprintf(bound, boundlen, v6 ? "[%s]:%u" : "%s:%u", host, di ? di->port : 0);
	return h;
}

void serve_http_stop(struct serve_http *h)
{
	if (h->d)
		MHD_stop_daemon(h->d);
	if (h->cur)
		snapshot_put(h, h->cur);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
