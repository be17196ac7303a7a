/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_PCI_H
#define RTLTUNE_PCI_H

#include <stdbool.h>
#include <stdint.h>

struct pci_ident {
	bool present;
	uint16_t vendor, device;
	uint16_t subsys_vendor, subsys_device;
	uint8_t revision;
};

/*
 * Read vendor/device/revision from SYSFS_ROOT/class/net/IFNAME/device/ (sysfs_root is
 * normally "/sys"; unit tests pass a fake tree). A non-PCI device gives present=false
 * and returns 0.
 */
int pci_ident_read(const char *sysfs_root, const char *ifname, struct pci_ident *out);

#endif
