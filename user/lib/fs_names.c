// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/fs_names.h"

#include <stdlib.h>
#include <string.h>

#include <stddef.h>

static const struct {
	uint32_t magic;
	const char *name;
} names[] = {{0xef53, "ext4"},
	     {0x01021994, "tmpfs"},
	     {0x58465342, "xfs"},
	     {0x9123683e, "btrfs"},
	     {0x6969, "nfs"},
	     {0x794c7630, "overlay"},
	     {0x9fa0, "proc"},
	     {0x62656572, "sysfs"},
	     {0x01021997, "9p"},
	     {0x65735546, "fuse"},
	     {0x0bd00bd0, "lustre"},
	     {0x47504653, "gpfs"},
	     {0x73717368, "squashfs"},
	     {0x63677270, "cgroup2"},
	     {0x27e0eb, "cgroup"},
	     {0x50495045, "pipefs"},
	     {0x534f434b, "sockfs"},
	     {0x09041934, "anon_inode"},
	     {0x64626720, "debugfs"},
	     {0x74726163, "tracefs"},
	     {0x4d44, "vfat"},
	     {0x858458f6, "ramfs"},
	     {0x2fc12fc1, "zfs"},
	     {0x00c36400, "ceph"},
	     {0xff534d42, "cifs"},
	     {0xfe534d42, "smb2"},
	     {0x19830326, "beegfs"},
	     {0x1373, "devfs"},
	     {0xcafe4a11, "bpf"},
	     {0x5346544e, "ntfs"},
	     {0x2011bab0, "exfat"},
	     {0xf2f52010, "f2fs"},
	     {0x3434, "nilfs"},
	     {0x9660, "iso9660"},
	     {0x15013346, "udf"},
	     {0x6e736673, "nsfs"},
	     {0x42494e4d, "binfmt_misc"},
	     {0xde5e81e4, "efivarfs"},
	     {0x958458f6, "hugetlbfs"},
	     {0x1cd1, "devpts"},
	     {0x73636673, "securityfs"}};

const char *fs_name(uint32_t magic)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].magic == magic)
			return names[i].name;
	return NULL;
}

int fs_magic(const char *name, size_t len, uint32_t *magic)
{
	char buf[16], *end;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) == len && !memcmp(names[i].name, name, len)) {
			*magic = names[i].magic;
			return 0;
		}
	}
	if (len < 3 || len >= sizeof(buf) || name[0] != '0' || name[1] != 'x')
		return -1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	*magic = strtoul(buf, &end, 16);
	return *end ? -1 : 0;
}
