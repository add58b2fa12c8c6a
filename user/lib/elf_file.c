// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/elf_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

Elf *elf_file_open(const char *path, int *fd)
{
	Elf *elf;

	*fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64) {
		if (elf)
			elf_end(elf);
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return elf;
}

void elf_file_close(Elf *elf, int fd)
{
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}
