/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A 64-bit ELF file opened with libelf for reading its sections: the one
 * place that starts libelf, opens the file and checks its class.
 */
#ifndef ELF_FILE_H
#define ELF_FILE_H

#include <libelf.h>

/* The file's handle, its descriptor in *fd; NULL when path is no readable 64-bit ELF file. */
Elf *elf_file_open(const char *path, int *fd);
/* Close what elf_file_open() returned. */
void elf_file_close(Elf *elf, int fd);

#endif
