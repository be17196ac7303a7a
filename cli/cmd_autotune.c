// SPDX-License-Identifier: GPL-2.0-only
/* rtltune autotune on|off IFACE: let the daemon tune an interface, or stop it. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rtltune/control_client.h"

static void render_autotune(json_object *doc)
{
	printf("%s: autotune %s\n", json_object_get_string(json_object_object_get(doc, "ifname")),
	       json_object_get_boolean(json_object_object_get(doc, "autotune")) ? "on" : "off");
}

static int cmd_autotune(struct cli_ctx *ctx, int argc, char **argv)
{
	struct rterr err = {0};
	json_object *req, *result;
	int r;

	req = control_request_new("autotune");
	json_object_object_add(req, "iface", json_object_new_string(argv[2]));
	json_object_object_add(req, "on", json_object_new_boolean(strcmp(argv[1], "on") == 0));
	r = ctl_call(ctx->socket_path, req, &result, &err);
	json_object_put(req);
	if (r < 0)
		return cli_fail(ctx, &err);
	return cli_emit(ctx, result, render_autotune, EXIT_OK);
}

CLI_COMMAND(autotune, .name = "autotune", .args = "on|off IFACE",
	    .help = "let the daemon tune IFACE, or stop it (root)", .example = "autotune on eth0",
	    .run = cmd_autotune);
