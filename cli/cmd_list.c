/* osprof list: what can be profiled here, per layer, and the attach mode
 * each layer would use on this kernel. */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <osprof/render.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "collect/layer.h"

static const char usage[] =
    "usage: osprof list [-v] [--json] [LAYER]\n\n"
    "Lists the collection layers compiled in, what each can profile on this\n"
    "machine and the attach mode it would use (tp_btf, raw_tp, tracepoint,\n"
    "fentry, kprobe, uprobe). With LAYER, lists that layer's operations one per\n"
    "line. Kernel layers need root to probe this kernel; without root they say\n"
    "so instead of guessing.\n\n"
    "Options:\n";

/* The attach mode a line of a layer's listing names: the first mode word
 * after "via", "unavailable" when it says so, else "". */
static const char *mode_of(const char *line)
{
	static const char *const modes[] = {"tp_btf", "raw_tp", "tracepoint", "fentry",
	                                    "kprobe", "uprobe", "LD_PRELOAD"};
	const char *via = strstr(line, " via ");
	if (strstr(line, "unavailable") && (!via || strstr(via, "unavailable")))
		return "unavailable";
	const char *from = via ? via : line, *best = NULL, *bp = NULL;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		const char *p = strstr(from, modes[i]);
		if (p && (!bp || p < bp))
			bp = p, best = modes[i];
	}
	return best ? best : "";
}

/* One layer's listing as JSON: its lines become items named by their first
 * word (the layer itself, or a part such as --func, fuse, vfs ops). */
static int list_json(struct osp_json *j, const struct osp_layer *l)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return -1;
	int rc = l->list ? l->list(m, 0) : (fprintf(m, "%-8s %s\n", l->name, l->summary), 0);
	fclose(m);
	osp_json_obj(j);
	osp_json_kstr(j, "layer", l->name);
	osp_json_kbool(j, "needs_root", l->needs_root);
	osp_json_kstr(j, "summary", l->summary);
	osp_json_karr(j, "items");
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "    ", 4))
			continue; /* -v detail */
		char item[32] = "";
		const char *t = line + strspn(line, " ");
		if (!strncmp(t, "vfs ops", 7))
			snprintf(item, sizeof(item), "vfs ops");
		else
			snprintf(item, sizeof(item), "%.*s", (int)strcspn(t, " "), t);
		osp_json_obj(j);
		osp_json_kstr(j, "item", item);
		osp_json_kstr(j, "mode", mode_of(t));
		osp_json_kstr(j, "text", t);
		osp_json_obj_end(j);
	}
	osp_json_arr_end(j);
	osp_json_obj_end(j);
	free(text);
	return rc;
}

static const struct osp_opts_spec spec = {.cmd = "list", .head = usage};

int cmd_list(int argc, char **argv)
{
	int verbose = 0, json = 0, next;
	struct osp_option opts[] = {
	    OSP_OPT_FLAG('v', "verbose", &verbose, "list every operation of every layer"),
	    OSP_OPT_FLAG(0, "json", &json,
	                 "one JSON object: the kernel, and per layer each part with\n"
	                 "the attach mode it gets here (or \"unavailable\") and the\n"
	                 "text saying why (scripts/attach-table.sh tabulates it)"),
	    OSP_OPT_END,
	};
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &next));
	if (argc - next > 1)
		return osp_usage_err("list", "unexpected argument '%s'", argv[next + 1]);
	const char *only = next < argc ? argv[next] : NULL;
	if (only && !osp_layer_find(only)) {
		char avail[256] = "";
		for (int i = 0; osp_layers[i]; i++)
			snprintf(avail + strlen(avail), sizeof(avail) - strlen(avail), "%s%s",
			         i ? ", " : "", osp_layers[i]->name);
		return osp_usage_err("list", "unknown layer '%s' (available: %s)", only, avail);
	}
	int rc = OSP_EXIT_OK;
	if (json) {
		struct utsname u;
		struct osp_json j;
		uname(&u);
		osp_json_init(&j, stdout);
		osp_json_obj(&j);
		osp_json_kstr(&j, "kernel", u.release);
		osp_json_kbool(&j, "root", geteuid() == 0);
		osp_json_karr(&j, "layers");
		for (int i = 0; osp_layers[i]; i++)
			if ((!only || !strcmp(only, osp_layers[i]->name)) &&
			    list_json(&j, osp_layers[i]) < 0)
				rc = OSP_EXIT_FAIL;
		osp_json_arr_end(&j);
		osp_json_obj_end(&j);
		osp_json_line(&j);
		return rc;
	}
	for (int i = 0; osp_layers[i]; i++) {
		const struct osp_layer *l = osp_layers[i];
		if (only && strcmp(only, l->name))
			continue;
		if (!l->list) {
			printf("%-8s %s\n", l->name, l->summary);
			continue;
		}
		if (l->list(stdout, verbose || only != NULL) < 0)
			rc = OSP_EXIT_FAIL;
	}
	return rc;
}
