/* libmicrohttpd daemon of `osprof serve` (see serve_http.h). */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
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
	pthread_mutex_lock(&h->lock);
	struct snapshot *s = h->cur;
	s->refs++;
	pthread_mutex_unlock(&h->lock);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int pb = wants_protobuf(c), rc = -1;
	struct osp_prom_opts o = {h->max_series, NULL};
	if (f) {
		rc = pb ? osp_render_prometheus_pb(f, s->set, &o)
		        : osp_render_prometheus(f, s->set, &o);
		if (fclose(f))
			rc = -1;
	}
	snapshot_put(h, s);
	if (rc) {
		free(buf);
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	}
	return reply(c, MHD_HTTP_OK,
	             pb ? "application/vnd.google.protobuf; "
	                  "proto=io.prometheus.client.MetricFamily; encoding=delimited"
	                : "text/plain; version=0.0.4; charset=utf-8",
	             buf, len);
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
