// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chip database parser (lib/plan/chipdb.c): the input is one chip file loaded on top of a
 * database that already holds a real entry, as chipdb_load_dirs() stacks files. A bad
 * file fails with a message and leaves the database as it was; a good one matches,
 * hints and limits without crashing.
 */
#include "fuzz.h"
#include "rtltune/chipdb.h"
#include "rtltune/nic.h"

static const char veth_conf[] = "format = 1\n"
				"[veth]\n"
				"name = Virtual Ethernet pair (veth)\n"
				"driver = veth\n"
				"max_mtu = 65535\n"
				"tso_max_size = 524280\n"
				"big_tcp = yes\n"
				"quirks = gro-off-by-default, xdp-caps-mtu\n"
				"hint.throughput.gro = on\n"
				"note = GRO is off by default\n";

static void check_entry(const struct chipdb *db, const struct chip_entry *e)
{
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	struct knob_value v;
	struct nic nic;
	unsigned int k;

	FUZZ_ASSERT_STR(e->id);
	FUZZ_ASSERT_STR(e->name);
	FUZZ_ASSERT_STR(e->driver);
	FUZZ_ASSERT_STR(e->firmware);
	FUZZ_ASSERT_STR(e->note);
	FUZZ_ASSERT_STR(e->file);
	FUZZ_CHECK(e->n_revisions <= CHIP_MAX_REVISIONS);
	FUZZ_CHECK(chipdb_find(db, e->id) == e);
	for (k = 0; k < e->n_hints; k++)
		FUZZ_CHECK(e->hints[k].knob < KNOB__COUNT);
	for (k = 0; k < KNOB__COUNT; k++)
		chip_hint(e, "throughput", (enum knob_id)k, &v);

	/* Limits against a NIC reporting nothing, then one reporting everything. */
	memset(&nic, 0, sizeof(nic));
	nic.link.knob[KNOB_MTU] = nic.link.min_mtu = nic.link.max_mtu = LINK_UNSET;
	nic.link.tso_max_size = nic.link.tso_max_segs = LINK_UNSET;
	nic.link.knob[KNOB_GSO_MAX_SIZE] = nic.link.knob[KNOB_GRO_MAX_SIZE] = LINK_UNSET;
	chip_effective_limits(e, &nic, eff);
	nic.link.max_mtu = 9000;
	nic.link.tso_max_size = 65536;
	nic.link.tso_max_segs = 64;
	chip_effective_limits(e, &nic, eff);
	for (k = 0; k < CHIP_LIMIT__COUNT; k++)
		FUZZ_CHECK(eff[k].value == LINK_UNSET || eff[k].kernel == LINK_UNSET ||
			   eff[k].value <= eff[k].kernel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char base[PATH_MAX], path[PATH_MAX];
	static const char *const fws[] = {"", "rtl_nic/rtl8125b-2.fw", "1.2.3", NULL};
	struct chipdb *db = chipdb_new();
	struct rterr err = {0};
	struct chip_why why;
	struct chip_ident id;
	unsigned int i, f;
	int r;

	FUZZ_CHECK(db);
	if (!base[0])
		fuzz_write_file(fuzz_path(base, sizeof(base), "veth.conf"),
				(const uint8_t *)veth_conf, sizeof(veth_conf) - 1);
	FUZZ_CHECK(chipdb_load_file(db, base, &err) == 0 && db->n == 1);
	fuzz_write_file(fuzz_path(path, sizeof(path), "fuzz.conf"), data, size);

	r = chipdb_load_file(db, path, &err);
	if (r < 0) {
		FUZZ_CHECK(db->n == 1 && err.kind != RTERR_NONE && err.msg[0]);
		fuzz_check_error_line(err.msg, path, data, size);
	} else {
		for (i = 0; i < db->n; i++)
			check_entry(db, &db->entries[i]);
		/* Match each entry's own identity, then a few common ones. */
		for (i = 0; i < db->n; i++) {
			const struct chip_entry *e = &db->entries[i];

			memset(&id, 0, sizeof(id));
			id.driver = e->driver;
			id.firmware = e->firmware;
			id.pci.present = e->fields & CHIP_F_PCI;
			id.pci.vendor = e->pci_vendor;
			id.pci.device = e->pci_device;
			id.pci.revision = e->n_revisions ? e->revisions[0] : 0;
			chipdb_match(db, &id, &why);
			FUZZ_ASSERT_STR(why.text);
		}
		for (f = 0; f < sizeof(fws) / sizeof(fws[0]); f++) {
			memset(&id, 0, sizeof(id));
			id.driver = "r8169";
			id.firmware = fws[f];
			id.pci.present = true;
			id.pci.vendor = 0x10ec;
			id.pci.device = 0x8125;
			chipdb_match(db, &id, &why);
			chipdb_match(db, &id, NULL);
		}
	}
	chipdb_free(db);
	return 0;
}
