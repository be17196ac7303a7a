// SPDX-License-Identifier: GPL-2.0-only
/* rtltune hist IFACE WHAT [--window]: a BCC-style log2 histogram from the daemon. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtltune/control_client.h"
#include "rtltune/hist.h"

static const char *const whats[] = {
	"tx_skb_bytes", "tx_gso_size_bytes", "tx_gso_segments", "rx_frame_bytes", "rx_skb_bytes",
};

static void render_hist(json_object *doc)
{
	bool window = json_object_get_boolean(json_object_object_get(doc, "show_window"));
	json_object *h = json_object_object_get(doc, window ? "window" : "hist");
	const char *what = json_object_get_string(json_object_object_get(doc, "what"));
	struct rtl_hist hist;
	char *text;

	if (hist_from_json(h, &hist) < 0) {
		fprintf(stderr, "rtltune: rtltuned sent a histogram this rtltune cannot read\n");
		return;
	}
	printf("%s %s", json_object_get_string(json_object_object_get(doc, "ifname")), what);
	if (window)
		printf(", last %.0f s",
		       json_object_get_double(json_object_object_get(doc, "window_seconds")));
	printf(": %" PRIu64 " values, sum %" PRIu64 "\n", hist_count(&hist), hist.sum);
	text = hist_render(&hist, strcmp(what, "tx_gso_segments") == 0 ? "segments" : "bytes", 0);
	if (text)
		fputs(text, stdout);
	free(text);
}

struct hist_opts {
	bool window;
};

static const struct cli_option hist_options[] = {
	CLI_FLAG(struct hist_opts, window, "window", 0,
		 "over the daemon's recent window, not since it started"),
	CLI_OPTIONS_END,
};

static int cmd_hist(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct hist_opts *o = ctx->opts;
	char *const *args = argv + 1;
	struct rterr err = {0};
	json_object *req, *result;
	bool window = o->window;
	unsigned int i, known = 0;
	int r;

	for (i = 0; i < sizeof(whats) / sizeof(whats[0]); i++)
		known |= strcmp(args[1], whats[i]) == 0;
	if (!known)
		return cli_usage_error(ctx,
				       "hist: unknown histogram '%s' (expected tx_skb_bytes, "
				       "tx_gso_size_bytes, tx_gso_segments, rx_frame_bytes or "
				       "rx_skb_bytes)",
				       args[1]);
	req = control_request_new("hist");
	json_object_object_add(req, "iface", json_object_new_string(args[0]));
	json_object_object_add(req, "what", json_object_new_string(args[1]));
	r = ctl_call(ctx->socket_path, req, &result, &err);
	json_object_put(req);
	if (r < 0)
		return cli_fail(ctx, &err);
	json_object_object_add(result, "show_window", json_object_new_boolean(window));
	return cli_emit(ctx, result, render_hist, EXIT_OK);
}

CLI_COMMAND(hist, .name = "hist", .args = "IFACE WHAT",
	    .help = "log2 histogram of tx_skb_bytes, tx_gso_size_bytes, ... (--window: recent)",
	    .details = "WHAT: tx_skb_bytes, tx_gso_size_bytes, tx_gso_segments, rx_frame_bytes or\n"
		       "rx_skb_bytes. From rtltuned.",
	    .example = "hist eth0 tx_gso_size_bytes --window", .options = hist_options,
	    .opts_size = sizeof(struct hist_opts), .run = cmd_hist);
