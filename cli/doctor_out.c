// SPDX-License-Identifier: GPL-2.0-only
/* rtltune doctor's text: the JSON document of cmd_doctor.c, read top to bottom. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "doctor.h"

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static const char *str(json_object *o, const char *key, char *buf, unsigned int len)
{
	return cli_text_value(get(o, key), buf, len);
}

static bool is_true(json_object *o, const char *key)
{
	return json_object_get_boolean(get(o, key));
}

/* An array of strings as "a b c", "-" when empty. */
static const char *words(json_object *a, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < json_object_array_length(a) && used + 1 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
					 json_object_get_string(json_object_array_get_idx(a, i)));
	return buf[0] ? buf : "-";
}

static void render_host(json_object *doc)
{
	json_object *k = get(doc, "kernel"), *a;
	char b1[256], b2[256];
	size_t i;

	printf("kernel       %s, BTF %s\n", str(k, "release", b1, sizeof(b1)),
	       is_true(k, "btf") ? "yes" : "no");
	printf("\ncapabilities (this process)\n");
	a = get(doc, "capabilities");
	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *c = json_object_array_get_idx(a, i);
		const char *have = is_true(c, "have")	    ? "yes"
				   : !is_true(c, "missing") ? "no (CAP_SYS_ADMIN serves)"
							    : "MISSING";

		printf("  %-15s %-26s %s%s\n", str(c, "name", b1, sizeof(b1)), have,
		       str(c, "for", b2, sizeof(b2)), is_true(c, "required") ? "" : " (optional)");
	}
	printf("\nprobe hooks (a no-op program loaded and attached, then removed)\n");
	a = get(doc, "hooks");
	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *h = json_object_array_get_idx(a, i);

		printf("  %-15s %s\n", str(h, "type", b1, sizeof(b1)),
		       is_true(h, "works") ? "works" : str(h, "error", b2, sizeof(b2)));
	}
	printf("\ntracepoints       BTF  tracefs  rtltuned\n");
	a = get(doc, "tracepoints");
	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *t = json_object_array_get_idx(a, i);
		json_object *tf = get(t, "tracefs");

		printf("  %-22s %-4s %-8s %s", str(t, "name", b1, sizeof(b1)),
		       is_true(t, "btf") ? "yes" : "no",
		       !tf			     ? "-"
		       : json_object_get_boolean(tf) ? "yes"
						     : "no",
		       is_true(t, "rtltuned") ? "loads" : "-");
		if (get(t, "argument"))
			printf("%*s%s argument: %s", is_true(t, "rtltuned") ? 4 : 8, "",
			       str(t, "argument", b2, sizeof(b2)),
			       is_true(t, "has_argument") ? "yes" : "no");
		printf("\n");
	}
	if (get(doc, "tracepoints_error"))
		printf("  (%s)\n", str(doc, "tracepoints_error", b1, sizeof(b1)));
}

static void render_netlink(json_object *doc)
{
	json_object *nl = get(doc, "netlink"), *e = get(nl, "ethtool"), *n = get(nl, "netdev");
	json_object *r = get(nl, "route_invalidation");
	char b1[256];

	printf("\nnetlink\n");
	printf("  %-15s %s", "ethtool family", is_true(e, "present") ? "yes" : "no");
	if (is_true(e, "present"))
		printf(", rings/coalescing/channels/pause %s", is_true(e, "groups") ? "yes" : "no");
	printf("; rtltune reads and sets them through %s\n", str(e, "path", b1, sizeof(b1)));
	printf("  %-15s %s", "netdev family", is_true(n, "present") ? "yes" : "no");
	if (is_true(n, "present"))
		printf(", napi-get %s, napi-set %s", is_true(n, "napi_get") ? "yes" : "no",
		       is_true(n, "napi_set") ? "yes" : "no");
	printf("\n  %-15s %s\n", "routes", str(r, "how", b1, sizeof(b1)));
}

static void render_features(json_object *doc)
{
	json_object *a = get(doc, "features");
	char b1[64], b2[256], b3[256];
	size_t i;

	printf("\nkernel features (since: here)\n");
	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *f = json_object_array_get_idx(a, i);
		const char *here = str(f, "here", b1, sizeof(b1));

		printf("  %-5s %-7s %s\n", str(f, "since", b2, sizeof(b2)), here,
		       str(f, "what", b3, sizeof(b3)));
		if (strcmp(here, "yes") != 0)
			printf("  %-13s without it: %s\n", "", str(f, "without", b2, sizeof(b2)));
	}
}

static void render_config(json_object *doc)
{
	json_object *c = get(doc, "config");
	char b1[1100], b2[512], b3[512];

	printf("\nrtltuned's config  %s", str(c, "file", b1, sizeof(b1)));
	if (!is_true(c, "exists"))
		printf(" (none: built-in defaults)");
	printf("\n");
	if (get(c, "error"))
		printf("  NOT USABLE: %s\n", str(c, "error", b1, sizeof(b1)));
	printf("  interfaces %s; exclude %s; ", words(get(c, "interfaces"), b2, sizeof(b2)),
	       words(get(c, "exclude"), b3, sizeof(b3)));
	printf("drivers %s; ", words(get(c, "drivers"), b2, sizeof(b2)));
	printf("chips %s\n", words(get(c, "chips"), b2, sizeof(b2)));
	printf("  profile %s; probes %s; socket %s\n", str(c, "profile", b2, sizeof(b2)),
	       is_true(c, "probes") ? "on" : "off", str(c, "socket", b3, sizeof(b3)));
	if (get(c, "profile_error"))
		printf("  profile NOT USABLE: %s\n", str(c, "profile_error", b1, sizeof(b1)));
	if (get(c, "chip_database_error"))
		printf("  chip database NOT USABLE: %s\n",
		       str(c, "chip_database_error", b1, sizeof(b1)));
}

/* "host-wide knobs  net.core.netdev_max_backlog 1000, ... (rtltuned's tune_host: yes)" */
static void render_host_knobs(json_object *doc)
{
	json_object *h = get(doc, "host");
	char b[512];
	bool first = true;

	if (!h)
		return;
	printf("\nhost-wide knobs  ");
	json_object_object_foreach(get(h, "knobs"), name, e)
	{
		printf("%s%s %s", first ? "" : ", ", name,
		       get(e, "value") ? json_object_get_string(get(e, "value")) : "unknown");
		first = false;
	}
	printf("\n  %s; rtltuned's tune_host: %s\n",
	       is_true(h, "reachable") ? "changeable from here (the initial network namespace)"
				       : str(h, "why", b, sizeof(b)),
	       is_true(h, "tune_host") ? "yes" : "no");
}

static void render_knobs(json_object *k)
{
	json_object *groups = get(k, "ethtool");
	char b1[1024];
	bool first = true;

	printf("    %-13s %s\n", "link knobs", words(get(k, "link"), b1, sizeof(b1)));
	if (json_object_array_length(get(k, "link_unsupported")))
		printf("    %-13s %s\n", "not taken",
		       words(get(k, "link_unsupported"), b1, sizeof(b1)));
	printf("    %-13s ", "ethtool");
	json_object_object_foreach(groups, name, g)
	{
		printf("%s%s: ", first ? "" : "; ", name);
		if (!is_true(g, "supported"))
			printf("no (%s)", str(g, "error", b1, sizeof(b1)));
		else
			printf("%s", words(get(g, "knobs"), b1, sizeof(b1)));
		first = false;
	}
	printf("\n    %-13s %s settable, %zu fixed by the driver, %s not offered\n", "features",
	       json_object_get_string(get(k, "features_settable")),
	       json_object_array_length(get(k, "features_fixed")),
	       json_object_get_string(get(k, "features_absent")));
}

static void render_chip(json_object *chip)
{
	char b1[512], b2[64], b3[64];
	bool first = true;

	if (!chip) {
		printf("    %-13s none matched: the kernel's limits alone\n", "chip");
		return;
	}
	printf("    %-13s %s (%s): %s\n", "chip", str(chip, "id", b1, sizeof(b1)),
	       str(chip, "name", b2, sizeof(b2)), str(chip, "why", b1, sizeof(b1)));
	printf("    %-13s ", "limits");
	json_object_object_foreach(get(chip, "limits"), name, l)
	{
		if (!get(l, "value"))
			continue;
		printf("%s%s %s (%s)", first ? "" : ", ", name, str(l, "value", b2, sizeof(b2)),
		       str(l, "source", b3, sizeof(b3)));
		first = false;
	}
	printf("%s\n", first ? "-" : "");
	printf("    %-13s %s\n", "quirks", words(get(chip, "quirks"), b1, sizeof(b1)));
}

static void render_iface(json_object *f)
{
	json_object *changes = get(f, "would_change");
	char b1[512], b2[256], b3[256];
	size_t i;

	printf("\n%s (ifindex %s)", str(f, "ifname", b1, sizeof(b1)),
	       str(f, "ifindex", b2, sizeof(b2)));
	printf(": driver %s", str(f, "driver", b1, sizeof(b1)));
	if (get(f, "kind") &&
	    strcmp(str(f, "kind", b1, sizeof(b1)), str(f, "driver", b2, sizeof(b2))))
		printf(", link kind %s", str(f, "kind", b1, sizeof(b1)));
	printf("\n    %-13s %s: %s", "rtltuned", is_true(f, "managed") ? "manages it" : "leaves it",
	       str(f, "why", b1, sizeof(b1)));
	if (get(f, "profile"))
		printf("; profile %s", str(f, "profile", b1, sizeof(b1)));
	printf("\n");
	if (get(f, "plan_error"))
		printf("    %-13s %s\n", "profile", str(f, "plan_error", b1, sizeof(b1)));
	if (changes) {
		printf("    %-13s ", "would change");
		for (i = 0; i < json_object_array_length(changes); i++) {
			json_object *c = json_object_array_get_idx(changes, i);

			printf("%s%s %s -> %s", i ? ", " : "", str(c, "knob", b1, sizeof(b1)),
			       str(c, "old", b2, sizeof(b2)), str(c, "new", b3, sizeof(b3)));
		}
		printf("%s\n", i ? "" : "nothing (already as the profile wants)");
	}
	render_chip(get(f, "chip"));
	render_knobs(get(f, "knobs"));
}

void doctor_render(json_object *doc)
{
	json_object *v = get(doc, "rtltuned"), *missing = get(v, "missing"), *a;
	size_t i;

	printf("rtltune doctor: what this host supports and what rtltune would do here "
	       "(read-only)\n\n");
	render_host(doc);
	render_netlink(doc);
	render_features(doc);
	render_config(doc);
	render_host_knobs(doc);
	a = get(doc, "interfaces");
	for (i = 0; i < json_object_array_length(a); i++)
		render_iface(json_object_array_get_idx(a, i));
	printf("\n");
	if (!json_object_array_length(missing)) {
		printf("rtltuned can run with its probes here%s.\n",
		       is_true(doc, "read_only") &&
				       strcmp(json_object_get_string(get(v, "probes_setting")),
					      "off") == 0
			       ? " (its config turns them off: probes = off)"
			       : "");
		return;
	}
	printf("rtltuned cannot run with its probes here; missing:\n");
	for (i = 0; i < json_object_array_length(missing); i++)
		printf("  %s\n", json_object_get_string(json_object_array_get_idx(missing, i)));
}
