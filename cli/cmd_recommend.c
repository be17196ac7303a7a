// SPDX-License-Identifier: GPL-2.0-only
/* rtltune recommend [IFACE]: what the daemon's recent observations suggest. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rtltune/control_client.h"

/* "host net.core.netdev_max_backlog 32 -> 64: ...": the host-wide knobs, when there is
 * something to say (a suggestion, a note, a host tuner not idle). */
static void render_host(json_object *h)
{
	json_object *recs = json_object_object_get(h, "recommendations");
	json_object *notes = json_object_object_get(h, "notes");
	json_object *tuner = json_object_object_get(h, "tuner");
	size_t j;

	for (j = 0; j < json_object_array_length(recs); j++) {
		json_object *r = json_object_array_get_idx(recs, j);

		printf("host %s %s -> %s: %s\n",
		       json_object_get_string(json_object_object_get(r, "knob")),
		       json_object_get_string(json_object_object_get(r, "current")),
		       json_object_get_string(json_object_object_get(r, "suggested")),
		       json_object_get_string(json_object_object_get(r, "reason")));
	}
	for (j = 0; j < json_object_array_length(notes); j++)
		printf("host: %s\n", json_object_get_string(json_object_array_get_idx(notes, j)));
	if (tuner && !json_object_is_type(tuner, json_type_null) &&
	    strcmp(json_object_get_string(json_object_object_get(tuner, "state")), "idle") != 0)
		printf("host: tuner %s (%d of %d samples): %s\n",
		       json_object_get_string(json_object_object_get(tuner, "state")),
		       json_object_get_int(json_object_object_get(tuner, "samples")),
		       json_object_get_int(json_object_object_get(tuner, "needed")),
		       json_object_get_string(json_object_object_get(tuner, "summary")));
}

static void render_recommend(json_object *doc)
{
	json_object *ifaces = json_object_object_get(doc, "interfaces");
	json_object *host = json_object_object_get(doc, "host");
	size_t i, j, n = json_object_array_length(ifaces);

	if (host)
		render_host(host);
	if (!n)
		printf("no managed interfaces (see rtltune status)\n");
	for (i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(ifaces, i);
		json_object *recs = json_object_object_get(o, "recommendations");
		json_object *notes = json_object_object_get(o, "notes");
		json_object *tuner = json_object_object_get(o, "tuner");
		const char *ifname = json_object_get_string(json_object_object_get(o, "ifname"));

		for (j = 0; j < json_object_array_length(recs); j++) {
			json_object *r = json_object_array_get_idx(recs, j);
			char a[32], b[32];

			printf("%s %s %s -> %s: %s\n", ifname,
			       json_object_get_string(json_object_object_get(r, "knob")),
			       cli_text_value(json_object_object_get(r, "current"), a, sizeof(a)),
			       cli_text_value(json_object_object_get(r, "suggested"), b, sizeof(b)),
			       json_object_get_string(json_object_object_get(r, "reason")));
		}
		for (j = 0; j < json_object_array_length(notes); j++)
			printf("%s: %s\n", ifname,
			       json_object_get_string(json_object_array_get_idx(notes, j)));
		if (tuner && !json_object_is_type(tuner, json_type_null))
			printf("%s: tuner %s (%d of %d samples): %s\n", ifname,
			       json_object_get_string(json_object_object_get(tuner, "state")),
			       json_object_get_int(json_object_object_get(tuner, "samples")),
			       json_object_get_int(json_object_object_get(tuner, "needed")),
			       json_object_get_string(json_object_object_get(tuner, "summary")));
	}
}

static int cmd_recommend(struct cli_ctx *ctx, int argc, char **argv)
{
	struct rterr err = {0};
	json_object *req, *result;
	int r;

	req = control_request_new("recommend");
	if (argc == 2)
		json_object_object_add(req, "iface", json_object_new_string(argv[1]));
	r = ctl_call(ctx->socket_path, req, &result, &err);
	json_object_put(req);
	if (r < 0)
		return cli_fail(ctx, &err);
	return cli_emit(ctx, result, render_recommend, EXIT_OK);
}

CLI_COMMAND(recommend, .name = "recommend", .args = "[IFACE]",
	    .help = "changes the recent observations suggest (nothing is changed)",
	    .example = "recommend eth0", .run = cmd_recommend);
