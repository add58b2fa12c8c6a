/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Symbols of a shared library or executable on disk, for uprobes: where a
 * function starts as an offset in the file (what the kernel's uprobes take),
 * and the initial bytes of a data object (to check a structure layout).
 */
#ifndef ELF_SYMBOLS_H
#define ELF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_symbols;

/* Open path and index its symbols (.dynsym, and .symtab when present); NULL and errno. */
struct elf_symbols *elf_symbols_open(const char *path);
void elf_symbols_close(struct elf_symbols *e);

/*
 * The file offset of function name (a defined STT_FUNC; versioned names
 * match without their @VERSION).  0 when found, -ENOENT when missing,
 * -EINVAL when it is an indirect function (the symbol is its resolver).
 */
int elf_function_offset(const struct elf_symbols *e, const char *name, uint64_t *offset);

/*
 * Copy len bytes at offset off within data object name, from the file's
 * initialized data.  0, or -ENOENT (no such object, or not initialized data
 * in the file), -ERANGE (off + len beyond the object).
 */
int elf_object_bytes(const struct elf_symbols *e, const char *name, size_t off, void *buf,
		     size_t len);

/* The size of data object name (0: no such object). */
size_t elf_object_size(const struct elf_symbols *e, const char *name);

/* Whether the file has USDT probes (.note.stapsdt) of provider. */
bool elf_has_usdt_provider(const struct elf_symbols *e, const char *provider);

#endif
