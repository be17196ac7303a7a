// SPDX-License-Identifier: GPL-2.0-only
/* The one printing path: commands build JSON; text mode renders the same object. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rtltune/link.h"

int cli_emit(struct cli_ctx *ctx, json_object *doc, void (*render_text)(json_object *doc),
	     int code)
{
	if (ctx->json) {
		fputs(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							       JSON_C_TO_STRING_NOSLASHESCAPE),
		      stdout);
		fputc('\n', stdout);
	} else if (render_text) {
		render_text(doc);
	}
	json_object_put(doc);
	fflush(stdout);
	return code;
}

int cli_fail(struct cli_ctx *ctx, const struct rterr *error)
{
	int code = error->kind == RTERR_NONE ? EXIT_SYSTEM : (int)error->kind;
	struct rterr explained = *error, *err = &explained;

	cli_explain(ctx, err);

	if (ctx->json) {
		json_object *doc = json_object_new_object();

		json_object_object_add(doc, "error", json_object_new_string(err->msg));
		json_object_object_add(doc, "errno", json_object_new_int(err->errnum));
		json_object_object_add(doc, "exit_code", json_object_new_int(code));
		return cli_emit(ctx, doc, NULL, code);
	}
	fprintf(stderr, "rtltune: %s\n", err->msg);
	return code;
}

int cli_usage_error(struct cli_ctx *ctx, const char *fmt, ...)
{
	struct rterr err = { .kind = RTERR_INPUT, .errnum = EINVAL };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	return cli_fail(ctx, &err);
}

json_object *cli_json_i64(int64_t v)
{
	return v == LINK_UNSET ? NULL : json_object_new_int64(v);
}

json_object *cli_json_bool(int v)
{
	return v < 0 ? NULL : json_object_new_boolean(v);
}

json_object *cli_json_str(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

const char *cli_text_value(json_object *val, char *buf, unsigned int len)
{
	switch (json_object_get_type(val)) {
	case json_type_null:
		return "-";
	case json_type_boolean:
		return json_object_get_boolean(val) ? "on" : "off";
	case json_type_int:
		snprintf(buf, len, "%" PRId64, json_object_get_int64(val));
		return buf;
	case json_type_string:
		return json_object_get_string(val);
	default:
		snprintf(buf, len, "%s", json_object_to_json_string(val));
		return buf;
	}
}

void cli_text_kv(const char *label, json_object *val)
{
	char buf[64];

	printf("    %-20s %s\n", label, cli_text_value(val, buf, sizeof(buf)));
}
