// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "probe/elf_symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct elf_sym {
	const char *name; /* into the string table, without @VERSION */
	size_t name_len;
	uint64_t value, size;
	uint16_t shndx;
	uint8_t type;
};

struct elf_symbols {
	int fd;
	Elf *elf;
	struct elf_sym *syms;
	size_t nsyms;
	GElf_Phdr *phdrs; /* PT_LOAD segments */
	size_t nphdrs;
};

static int add_table(struct elf_symbols *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct elf_sym *grown;

	if (!data || !n)
		return 0;
	grown = realloc(e->syms, (e->nsyms + n) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	e->syms = grown;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;
		struct elf_sym *out;

		if (!gelf_getsym(data, i, &s) || s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e->elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		out = &e->syms[e->nsyms++];
		out->name = name;
		out->name_len = strcspn(name, "@");
		out->value = s.st_value;
		out->size = s.st_size;
		out->shndx = s.st_shndx;
		out->type = GELF_ST_TYPE(s.st_info);
	}
	return 0;
}

struct elf_symbols *elf_symbols_open(const char *path)
{
	struct elf_symbols *e = calloc(1, sizeof(*e));
	Elf_Scn *scn = NULL;
	size_t nph = 0;
	int err = 0;

	if (!e)
		return NULL;
	e->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		err = EINVAL;
		goto fail;
	}
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0) {
		err = errno;
		goto fail;
	}
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || elf_getphdrnum(e->elf, &nph)) {
		err = ENOEXEC;
		goto fail;
	}
	e->phdrs = calloc(nph ? nph : 1, sizeof(*e->phdrs));
	if (!e->phdrs) {
		err = ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e->elf, i, &ph) && ph.p_type == PT_LOAD)
			e->phdrs[e->nphdrs++] = ph;
	}
	while ((scn = elf_nextscn(e->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		if (add_table(e, scn, &sh)) {
			err = ENOMEM;
			goto fail;
		}
	}
	return e;
fail:
	elf_symbols_close(e);
	errno = err;
	return NULL;
}

void elf_symbols_close(struct elf_symbols *e)
{
	if (!e)
		return;
	free(e->syms);
	free(e->phdrs);
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e);
}

static const struct elf_sym *find(const struct elf_symbols *e, const char *name, int type)
{
	size_t len = strlen(name);
	const struct elf_sym *ifunc = NULL;

	for (size_t i = 0; i < e->nsyms; i++) {
		const struct elf_sym *s = &e->syms[i];

		if (s->name_len != len || strncmp(s->name, name, len))
			continue;
		if (s->type == type)
			return s;
		if (type == STT_FUNC && s->type == STT_GNU_IFUNC)
			ifunc = s;
	}
	return ifunc;
}

/* The file offset of a virtual address, through the PT_LOAD segment holding it. */
static int vaddr_offset(const struct elf_symbols *e, uint64_t vaddr, uint64_t *offset,
			bool need_file_bytes)
{
	for (size_t i = 0; i < e->nphdrs; i++) {
		const GElf_Phdr *ph = &e->phdrs[i];
		uint64_t end = ph->p_vaddr + (need_file_bytes ? ph->p_filesz : ph->p_memsz);

		if (vaddr >= ph->p_vaddr && vaddr < end) {
			*offset = vaddr - ph->p_vaddr + ph->p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

int elf_function_offset(const struct elf_symbols *e, const char *name, uint64_t *offset)
{
	const struct elf_sym *s = find(e, name, STT_FUNC);

	if (!s)
		return -ENOENT;
	if (s->type == STT_GNU_IFUNC)
		return -EINVAL;
	return vaddr_offset(e, s->value, offset, true);
}

size_t elf_object_size(const struct elf_symbols *e, const char *name)
{
	const struct elf_sym *s = find(e, name, STT_OBJECT);

	return s ? s->size : 0;
}

int elf_object_bytes(const struct elf_symbols *e, const char *name, size_t off, void *buf,
		     size_t len)
{
	const struct elf_sym *s = find(e, name, STT_OBJECT);
	uint64_t file_off;
	size_t size;
	char *image;

	if (!s)
		return -ENOENT;
	if (off + len > s->size)
		return -ERANGE;
	if (vaddr_offset(e, s->value + off, &file_off, true) ||
	    vaddr_offset(e, s->value + off + len - 1, &file_off, true))
		return -ENOENT; /* in .bss: not in the file */
	vaddr_offset(e, s->value + off, &file_off, true);
	image = elf_rawfile(e->elf, &size);
	if (!image || file_off + len > size)
		return -ENOENT;
	memcpy(buf, image + file_off, len);
	return 0;
}

#define NT_STAPSDT 3

bool elf_has_usdt_provider(const struct elf_symbols *e, const char *provider)
{
	size_t shstrndx, plen = strlen(provider) + 1;
	Elf_Scn *scn = NULL;
	int addr_size = gelf_getclass(e->elf) == ELFCLASS32 ? 4 : 8;

	if (elf_getshdrstrndx(e->elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(e->elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".note.stapsdt") || !(data = elf_getdata(scn, NULL)))
			continue;
		/* each note: pc, base, semaphore addresses, then "provider\0name\0args\0" */
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const char *desc = (const char *)data->d_buf + desc_off;

			if (nh.n_type == NT_STAPSDT && nh.n_descsz > 3u * addr_size + plen &&
			    !memcmp(desc + 3 * addr_size, provider, plen))
				return true;
		}
	}
	return false;
}
