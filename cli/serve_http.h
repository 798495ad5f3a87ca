/* The HTTP side of `osprof serve`: a libmicrohttpd daemon answering
 * GET /metrics from the latest published snapshot of the profile set. The
 * collecting loop publishes; scrapers take a reference to the snapshot under
 * a lock and render outside it, so a slow scraper never holds collection. */
#ifndef OSPROF_CLI_SERVE_HTTP_H
#define OSPROF_CLI_SERVE_HTTP_H

#include <stddef.h>
#include <osprof/profile.h>

/* Bounds: worker threads and simultaneous connections (more are closed at
 * once by the daemon), and how long an idle or stalled client may hold one. */
#define SERVE_THREADS      2
#define SERVE_MAX_CONNS    64
#define SERVE_CONN_TIMEOUT 10 /* s */

struct serve_http;

/* Listens on addr ("127.0.0.1:9477", "[::1]:0", ...); NULL after one line on
 * stderr. max_series caps the series of each scrape (0 = none). */
struct serve_http *serve_http_start(const char *addr, size_t max_series, char *bound,
                                    size_t boundlen);
/* Makes s (owned from now on) what the next scrapes see. */
void serve_http_publish(struct serve_http *h, struct osp_set *s);
void serve_http_stop(struct serve_http *h);

#endif
