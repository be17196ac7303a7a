// SPDX-License-Identifier: GPL-2.0-only
/* PCI identity from sysfs: the r8169 family shares a few PCI ids, so revision matters. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtltune/pci.h"

static int read_hex(const char *dir, const char *file, unsigned long *out)
{
	char path[PATH_MAX], buf[32], *end;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	*out = strtoul(buf, &end, 16);
	return end == buf ? -1 : 0;
}

int pci_ident_read(const char *sysfs_root, const char *ifname, struct pci_ident *out)
{
	char dev[PATH_MAX], subsys[PATH_MAX], *base;
	unsigned long v = 0;
	ssize_t r;

	memset(out, 0, sizeof(*out));
	snprintf(dev, sizeof(dev), "%s/class/net/%s/device", sysfs_root ? sysfs_root : "/sys",
		 ifname);
	/* Only PCI functions carry vendor/device/revision; virtio, vmbus etc. do not. */
	snprintf(subsys, sizeof(subsys), "%s/subsystem", dev);
	{
		char link[PATH_MAX];

		r = readlink(subsys, link, sizeof(link) - 1);
		if (r > 0) {
			link[r] = '\0';
			base = strrchr(link, '/');
			if (strcmp(base ? base + 1 : link, "pci") != 0)
				return 0;
		}
	}
	if (read_hex(dev, "vendor", &v) < 0)
		return 0;
	out->vendor = (uint16_t)v;
	if (read_hex(dev, "device", &v) < 0)
		return 0;
	out->device = (uint16_t)v;
	if (read_hex(dev, "revision", &v) == 0)
		out->revision = (uint8_t)v;
	if (read_hex(dev, "subsystem_vendor", &v) == 0)
		out->subsys_vendor = (uint16_t)v;
	if (read_hex(dev, "subsystem_device", &v) == 0)
		out->subsys_device = (uint16_t)v;
	out->present = true;
	return 0;
}
