// SPDX-License-Identifier: GPL-2.0-only
/* The device stack around a NIC from one link dump (stack.h, docs/stack.md). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rtltune/stack.h"

bool stack_kind_rides_on_link(const char *kind)
{
	static const char *const kinds[] = {"vlan", "macvlan", "macvtap", "ipvlan", "ipvtap"};
	unsigned int i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kind, kinds[i]) == 0)
			return true;
	return false;
}

static const struct link_info *find(const struct link_info *links, int n, int ifindex)
{
	int i;

	for (i = 0; ifindex > 0 && i < n; i++)
		if (links[i].ifindex == ifindex)
			return &links[i];
	return NULL;
}

/* Whether l rides on (or is a port of) the device with ifindex. */
static bool is_upper_of(const struct link_info *l, int ifindex, enum stack_rel *rel)
{
	if (l->ifindex == ifindex)
		return false;
	if (l->link == ifindex && !l->link_netns && stack_kind_rides_on_link(l->kind)) {
		*rel = STACK_OVER;
		return true;
	}
	return false;
}

static bool listed(const struct stack_dev *d, unsigned int n, int ifindex)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (d[i].li.ifindex == ifindex)
			return true;
	return false;
}

static void add(struct stack_dev *list, unsigned int *n, bool *truncated,
		const struct link_info *li, enum stack_rel rel, int below)
{
	if (listed(list, *n, li->ifindex))
		return;
	if (*n == STACK_MAX) {
		*truncated = true;
		return;
	}
	list[*n].li = *li;
	list[*n].rel = rel;
	list[*n].below = below;
	(*n)++;
}

void stack_build(const struct link_info *links, int n, int ifindex, struct nic_stack *out)
{
	const struct link_info *self = find(links, n, ifindex), *m;
	enum stack_rel rel;
	unsigned int next;
	int i;

	memset(out, 0, sizeof(*out));
	out->ifindex = ifindex;
	if (!self)
		return;
	/* Uppers, breadth first: the device's master and what rides on it, then theirs. */
	if ((m = find(links, n, self->master)))
		add(out->uppers, &out->n_uppers, &out->truncated, m, STACK_MASTER, ifindex);
	for (i = 0; i < n; i++)
		if (is_upper_of(&links[i], ifindex, &rel))
			add(out->uppers, &out->n_uppers, &out->truncated, &links[i], rel, ifindex);
	for (next = 0; next < out->n_uppers; next++) {
		const struct link_info *u = &out->uppers[next].li;

		if ((m = find(links, n, u->master)) && m->ifindex != ifindex)
			add(out->uppers, &out->n_uppers, &out->truncated, m, STACK_MASTER,
			    u->ifindex);
		for (i = 0; i < n; i++)
			if (links[i].ifindex != ifindex && is_upper_of(&links[i], u->ifindex, &rel))
				add(out->uppers, &out->n_uppers, &out->truncated, &links[i], rel,
				    u->ifindex);
	}
	/* Lowers: its ports, or the device it rides on. */
	for (i = 0; i < n; i++)
		if (links[i].master == ifindex && links[i].ifindex != ifindex)
			add(out->lowers, &out->n_lowers, &out->truncated, &links[i], STACK_MASTER,
			    ifindex);
	if (stack_kind_rides_on_link(self->kind) && !self->link_netns &&
	    (m = find(links, n, self->link)))
		add(out->lowers, &out->n_lowers, &out->truncated, m, STACK_OVER, ifindex);
}

void stack_set_peer(struct nic_stack *st, struct netns *ns, const struct link_info *li)
{
	st->has_peer = true;
	st->peer.li = *li;
	st->peer.ns = ns;
	st->peer.below = st->ifindex;
}

int64_t stack_effective(const struct link_info *self, const struct nic_stack *st, enum knob_id k)
{
	int64_t v = link_knob(self, k);
	unsigned int i;

	for (i = 0; i < st->n_uppers; i++)
		v = knob_min_known(v, link_knob(&st->uppers[i].li, k));
	for (i = 0; i < st->n_lowers; i++)
		v = knob_min_known(v, link_knob(&st->lowers[i].li, k));
	return v;
}

int64_t stack_effective_gro(const struct link_info *self, const struct nic_stack *st)
{
	int64_t v = LINK_UNSET;
	unsigned int i;

	for (i = 0; i < st->n_lowers; i++)
		v = knob_min_known(v, st->lowers[i].li.knob[KNOB_GRO_MAX_SIZE]);
	return v == LINK_UNSET ? self->knob[KNOB_GRO_MAX_SIZE] : v;
}

int64_t stack_ceiling(const struct link_info *l, enum knob_id k)
{
	return k == KNOB_GSO_MAX_SEGS ? l->tso_max_segs : l->tso_max_size;
}

int64_t stack_upper_cap(const struct link_info *links, int n, const struct link_info *u, int except,
			enum knob_id k, char *why, size_t why_len)
{
	int64_t cap = stack_ceiling(u, k);
	int i;

	why[0] = '\0';
	for (i = 0; i < n; i++) {
		const struct link_info *l = &links[i];
		bool lower = l->master == u->ifindex || (u->link == l->ifindex && !u->link_netns &&
							 stack_kind_rides_on_link(u->kind));
		int64_t v = link_knob(l, k);

		if (!lower || l->ifindex == except || l->ifindex == u->ifindex || v == LINK_UNSET ||
		    (cap != LINK_UNSET && v >= cap))
			continue;
		cap = v;
		snprintf(why, why_len, "its %s %s has %s %" PRId64,
			 l->master == u->ifindex ? "port" : "lower", l->ifname, knob_name(k), v);
	}
	return cap;
}
