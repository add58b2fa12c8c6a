// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "probe/python_offsets.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/elf_file.h"

/*
 * One row per CPython minor version, printed by tools/python_layout_gen.sh
 * from the interpreter's own headers (the build named in `from`), and
 * checked against the interpreters' debug information (gdb) and by
 * tests/test_python_stacks.py on each of them.  Within a minor version
 * these structures do not move between bug-fix releases (3.13 says so of
 * its _Py_DebugOffsets; for the older ones it held for the builds listed
 * in runtime_sizes below).
 */
static const struct py_version_layout layouts[] = {
    {10,
     "3.10.13",
     672,
     {
	 .rt_tss = 584,
	 .minor = 10,
	 .tss_key = 4,
	 .ts_thread = 176,
	 .frame_via = DL_PY_FRAME_TSTATE,
	 .ts_frame = 24, /* frame */
	 .cf_frame = DL_PY_NONE,
	 .ts_chunk = DL_PY_NONE,
	 .ts_top = DL_PY_NONE,
	 .chunk_data = DL_PY_NONE,
	 .ts_read = 184,
	 .lasti_kind = DL_PY_LASTI_INT,
	 .fr_code = 32,
	 .fr_lasti = 96, /* f_lasti */
	 .fr_prev = 24,	 /* f_back */
	 .fr_owner = DL_PY_NONE,
	 .owner_cstack = DL_PY_NONE,
	 .co_code = DL_PY_NONE,
	 .co_qualname = DL_PY_NONE,
	 .fr_read = 104,
	 .co_filename = 104,
	 .co_name = 112,
	 .co_firstlineno = 40,
	 .co_linetable = 120,
	 .co_read = 128,
	 .str_length = 16,
	 .str_state = 32,
	 .str_ascii_data = 48,	 /* sizeof(PyASCIIObject) */
	 .str_compact_data = 72, /* sizeof(PyCompactUnicodeObject) */
	 .bytes_size = 16,
	 .bytes_data = 32,
     }},
    {11,
     "3.11.7",
     166688,
     {
	 .rt_tss = 592,
	 .minor = 11,
	 .tss_key = 4,
	 .ts_thread = 152,
	 .frame_via = DL_PY_FRAME_CFRAME,
	 .ts_frame = 56, /* cframe */
	 .cf_frame = 8,
	 .ts_chunk = 296,
	 .ts_top = 304,
	 .chunk_data = 24,
	 .ts_read = 312,
	 .lasti_kind = DL_PY_LASTI_PTR,
	 .fr_code = 32,
	 .fr_lasti = 56, /* prev_instr */
	 .fr_prev = 48,
	 .fr_owner = 69,
	 .owner_cstack = DL_PY_NONE,
	 .co_code = 184, /* co_code_adaptive */
	 .co_qualname = 128,
	 .fr_read = 72,
	 .co_filename = 112,
	 .co_name = 120,
	 .co_firstlineno = 72,
	 .co_linetable = 136,
	 .co_read = 144,
	 .str_length = 16,
	 .str_state = 32,
	 .str_ascii_data = 48,	 /* sizeof(PyASCIIObject) */
	 .str_compact_data = 72, /* sizeof(PyCompactUnicodeObject) */
	 .bytes_size = 16,
	 .bytes_data = 32,
     }},
    {12,
     "3.12.1",
     459944,
     {
	 .rt_tss = 1544,
	 .minor = 12,
	 .tss_key = 4,
	 .ts_thread = 136,
	 .frame_via = DL_PY_FRAME_CFRAME,
	 .ts_frame = 56, /* cframe */
	 .cf_frame = 0,
	 .ts_chunk = 232,
	 .ts_top = 240,
	 .chunk_data = 24,
	 .ts_read = 248,
	 .lasti_kind = DL_PY_LASTI_PTR,
	 .fr_code = 0,
	 .fr_lasti = 56, /* prev_instr */
	 .fr_prev = 8,
	 .fr_owner = 70,
	 .owner_cstack = 3,
	 .co_code = 192, /* co_code_adaptive */
	 .co_qualname = 128,
	 .fr_read = 72,
	 .co_filename = 112,
	 .co_name = 120,
	 .co_firstlineno = 68,
	 .co_linetable = 136,
	 .co_read = 144,
	 .str_length = 16,
	 .str_state = 32,
	 .str_ascii_data = 40,	 /* sizeof(PyASCIIObject) */
	 .str_compact_data = 56, /* sizeof(PyCompactUnicodeObject) */
	 .bytes_size = 16,
	 .bytes_data = 32,
     }},
    {13,
     "3.13.0",
     283320,
     {
	 .rt_tss = 2160,
	 .minor = 13,
	 .tss_key = 4,
	 .ts_thread = 152,
	 .frame_via = DL_PY_FRAME_TSTATE,
	 .ts_frame = 72, /* current_frame */
	 .cf_frame = DL_PY_NONE,
	 .ts_chunk = 232,
	 .ts_top = 240,
	 .chunk_data = 24,
	 .ts_read = 248,
	 .lasti_kind = DL_PY_LASTI_PTR,
	 .fr_code = 0,	 /* f_executable */
	 .fr_lasti = 56, /* instr_ptr */
	 .fr_prev = 8,
	 .fr_owner = 70,
	 .owner_cstack = 3,
	 .co_code = 200, /* co_code_adaptive */
	 .co_qualname = 128,
	 .fr_read = 72,
	 .co_filename = 112,
	 .co_name = 120,
	 .co_firstlineno = 68,
	 .co_linetable = 136,
	 .co_read = 144,
	 .str_length = 16,
	 .str_state = 32,
	 .str_ascii_data = 40,	 /* sizeof(PyASCIIObject) */
	 .str_compact_data = 56, /* sizeof(PyCompactUnicodeObject) */
	 .bytes_size = 16,
	 .bytes_data = 32,
     }},
};

const struct py_version_layout *py_layouts(size_t *n)
{
	*n = sizeof(layouts) / sizeof(layouts[0]);
	return layouts;
}

int py_parse_version(const char *s, int *minor, int *micro)
{
	char *end;
	long a, b;

	if (strncmp(s, "3.", 2) || !isdigit((unsigned char)s[2]))
		return 0;
	a = strtol(s + 2, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return 0;
	b = strtol(end + 1, &end, 10);
	/* a release: nothing, or a pre-release tag and number, or '+' */
	while (*end && (isalnum((unsigned char)*end) || *end == '+'))
		end++;
	if (*end || a > 99 || b > 99)
		return 0;
	*minor = a;
	*micro = b;
	return 1;
}

/* The file bytes behind virtual address [vaddr, vaddr + len) of a loaded segment. */
static int read_vaddr(Elf *elf, int fd, uint64_t vaddr, void *buf, size_t len)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr + len <= ph.p_vaddr + ph.p_filesz)
			return pread(fd, buf, len, ph.p_offset + (vaddr - ph.p_vaddr)) ==
				       (ssize_t)len
				   ? 0
				   : -1;
	}
	return -1;
}

/* What the symbols say: _PyRuntime, Py_Version (3.11+), and functions new in 3.10 and 3.9. */
struct py_symbols {
	GElf_Sym runtime, version;
	bool is_none;	     /* Py_IsNone: 3.10+ */
	bool frame_get_code; /* PyFrame_GetCode: 3.9+ */
	bool get_version;    /* Py_GetVersion: any CPython (3.6 has no _PyRuntime) */
};

static void scan_symbols(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct py_symbols *ps)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < count; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		if (!ps->runtime.st_value && !strcmp(name, "_PyRuntime"))
			ps->runtime = sym;
		else if (!ps->version.st_value && !strcmp(name, "Py_Version"))
			ps->version = sym;
		else if (!strcmp(name, "Py_IsNone"))
			ps->is_none = true;
		else if (!strcmp(name, "PyFrame_GetCode"))
			ps->frame_get_code = true;
		else if (!strcmp(name, "Py_GetVersion"))
			ps->get_version = true;
	}
}

/*
 * The micro version of 3.<minor> from read-only data (before 3.11, which
 * has Py_Version): PY_VERSION, "3.<minor>.<micro>", is there as a string,
 * alone or as the tail of another one (a prefix path that ends with it).
 */
static void rodata_micro(Elf *elf, struct py_binary *b)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	char want[16];
	int wlen = snprintf(want, sizeof(want), "3.%d.", b->minor);

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name, *d;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".rodata") || !(data = elf_getdata(scn, NULL)))
			continue;
		d = data->d_buf;
		for (size_t i = 1; i + wlen + 2 < data->d_size; i++) {
			size_t j = i + wlen;
			int mi, mc;

			if (memcmp(d + i, want, wlen) || isdigit((unsigned char)d[i - 1]) ||
			    d[i - 1] == '.')
				continue;
			while (j < data->d_size && isdigit((unsigned char)d[j]))
				j++;
			if (j == i + wlen || j >= data->d_size || d[j] ||
			    j - i >= sizeof(b->version))
				continue;
			memcpy(b->version, d + i, j - i);
			b->version[j - i] = '\0';
			if (py_parse_version(b->version, &mi, &mc))
				b->micro = mc;
			return;
		}
	}
	snprintf(b->version, sizeof(b->version), "3.%d", b->minor);
}

/*
 * 3.13+: _PyRuntime starts with _Py_DebugOffsets, initialized in the file
 * (section .PyRuntime).  The layout of 3.13's struct (uint64 fields, in
 * order): cookie, version, free_threaded, runtime_state{size, finalizing,
 * interpreters_head}, interpreter_state{13}, thread_state{size, prev, next,
 * interp, current_frame, thread_id, native_thread_id, datastack_chunk,
 * status}, interpreter_frame{size, previous, executable, instr_ptr,
 * localsplus, owner}, code_object{size, filename, name, qualname,
 * linetable, firstlineno, argcount, localsplusnames, localspluskinds,
 * co_code_adaptive}, pyobject{2}, type_object{4}, tuple_object{3},
 * list_object{3}, dict_object{3}, float_object{2}, long_object{3},
 * bytes_object{size, ob_size, ob_sval}, unicode_object{size, state,
 * length, asciiobject_size}, gc{2}.
 */
enum {
	DO_VERSION = 1,
	DO_FREE_THREADED = 2,
	DO_RUNTIME_SIZE = 3,
	DO_TS_CURRENT_FRAME = 23,
	DO_TS_THREAD_ID = 24,
	DO_TS_DATASTACK_CHUNK = 26,
	DO_FR_PREVIOUS = 29,
	DO_FR_EXECUTABLE = 30,
	DO_FR_INSTR_PTR = 31,
	DO_FR_OWNER = 33,
	DO_CO_FILENAME = 35,
	DO_CO_NAME = 36,
	DO_CO_QUALNAME = 37,
	DO_CO_LINETABLE = 38,
	DO_CO_FIRSTLINENO = 39,
	DO_CO_CODE_ADAPTIVE = 43,
	DO_BYTES_OB_SIZE = 65,
	DO_BYTES_OB_SVAL = 66,
	DO_STR_STATE = 68,
	DO_STR_LENGTH = 69,
	DO_STR_ASCII_SIZE = 70,
	DO_COUNT = 73,
};

static void check_field(struct py_binary *b, const char *what, __u16 *field, uint64_t value,
			size_t *len)
{
	if (*field == value)
		return;
	*len += snprintf(b->note + *len, *len < sizeof(b->note) ? sizeof(b->note) - *len : 0,
			 "%s%s %u -> %llu", *len ? ", " : "_Py_DebugOffsets differ: ", what, *field,
			 (unsigned long long)value);
	*field = value;
}

static int debug_offsets(Elf *elf, int fd, struct py_binary *b)
{
	uint64_t o[DO_COUNT];
	struct dl_py_layout *L = &b->own;
	size_t len = 0;

	if (read_vaddr(elf, fd, b->runtime, o, sizeof(o)) || memcmp(o, "xdebugpy", 8))
		return -1;
	if ((o[DO_VERSION] >> 24) != 3 || ((o[DO_VERSION] >> 16) & 0xff) != (uint64_t)b->minor)
		return -1;
	if (o[DO_FREE_THREADED]) {
		snprintf(b->note, sizeof(b->note), "a free-threaded build (not supported)");
		return 1;
	}
	b->debug_offsets = true;
	check_field(b, "thread_state.current_frame", &L->ts_frame, o[DO_TS_CURRENT_FRAME], &len);
	check_field(b, "thread_state.thread_id", &L->ts_thread, o[DO_TS_THREAD_ID], &len);
	check_field(b, "thread_state.datastack_chunk", &L->ts_chunk, o[DO_TS_DATASTACK_CHUNK],
		    &len);
	check_field(b, "interpreter_frame.previous", &L->fr_prev, o[DO_FR_PREVIOUS], &len);
	check_field(b, "interpreter_frame.executable", &L->fr_code, o[DO_FR_EXECUTABLE], &len);
	check_field(b, "interpreter_frame.instr_ptr", &L->fr_lasti, o[DO_FR_INSTR_PTR], &len);
	check_field(b, "interpreter_frame.owner", &L->fr_owner, o[DO_FR_OWNER], &len);
	check_field(b, "code_object.filename", &L->co_filename, o[DO_CO_FILENAME], &len);
	check_field(b, "code_object.name", &L->co_name, o[DO_CO_NAME], &len);
	check_field(b, "code_object.qualname", &L->co_qualname, o[DO_CO_QUALNAME], &len);
	check_field(b, "code_object.linetable", &L->co_linetable, o[DO_CO_LINETABLE], &len);
	check_field(b, "code_object.firstlineno", &L->co_firstlineno, o[DO_CO_FIRSTLINENO], &len);
	check_field(b, "code_object.co_code_adaptive", &L->co_code, o[DO_CO_CODE_ADAPTIVE], &len);
	check_field(b, "bytes_object.ob_size", &L->bytes_size, o[DO_BYTES_OB_SIZE], &len);
	check_field(b, "bytes_object.ob_sval", &L->bytes_data, o[DO_BYTES_OB_SVAL], &len);
	check_field(b, "unicode_object.state", &L->str_state, o[DO_STR_STATE], &len);
	check_field(b, "unicode_object.length", &L->str_length, o[DO_STR_LENGTH], &len);
	check_field(b, "unicode_object.asciiobject_size", &L->str_ascii_data, o[DO_STR_ASCII_SIZE],
		    &len);
	if (o[DO_RUNTIME_SIZE] != layouts[b->layout].runtime_size && !len)
		snprintf(b->note, sizeof(b->note),
			 "sizeof(_PyRuntimeState) %llu, not %llu as in %s: the autoTSSkey offset "
			 "is unverified",
			 (unsigned long long)o[DO_RUNTIME_SIZE],
			 (unsigned long long)layouts[b->layout].runtime_size,
			 layouts[b->layout].from);
	/* the frame, thread state and code reads must still cover what they use */
	L->fr_read = L->fr_read > L->fr_owner + 1 ? L->fr_read : (L->fr_owner + 8) & ~7;
	return 0;
}

static void classify(Elf *elf, struct py_binary *b)
{
	GElf_Ehdr eh;
	size_t n;
	bool first = true;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n))
		return;
	b->pie = eh.e_type == ET_DYN;
	b->text_vaddr = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph))
			continue;
		if (ph.p_type == PT_INTERP)
			b->exe = true;
		if (ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_flags & PF_X) && ph.p_vaddr < b->text_vaddr)
			b->text_vaddr = ph.p_vaddr;
		if (first && ph.p_offset == 0) {
			b->first_vaddr = ph.p_vaddr & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
			first = false;
		}
	}
}

int py_binary_inspect(const char *path, struct py_binary *b)
{
	struct py_symbols ps = {0};
	Elf_Scn *scn = NULL;
	size_t nlayouts;
	Elf *elf;
	int fd;

	memset(b, 0, sizeof(*b));
	b->layout = -1;
	elf = elf_file_open(path, &fd);
	if (!elf)
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB))
			scan_symbols(elf, scn, &sh, &ps);
	}
	if (!ps.runtime.st_value) {
		if (ps.get_version) {
			b->python = true;
			snprintf(b->version, sizeof(b->version), "3.6 or older");
			snprintf(b->note, sizeof(b->note),
				 "CPython %s is not supported (3.10 to 3.13 are)", b->version);
		}
		goto done;
	}
	b->python = true;
	b->runtime = ps.runtime.st_value;
	b->runtime_size = ps.runtime.st_size;
	classify(elf, b);
	if (ps.version.st_value && ps.version.st_size == 8) {
		uint64_t hex;

		if (!read_vaddr(elf, fd, ps.version.st_value, &hex, sizeof(hex)) &&
		    hex >> 24 == 3) {
			b->minor = (hex >> 16) & 0xff;
			b->micro = (hex >> 8) & 0xff;
			snprintf(b->version, sizeof(b->version), "3.%d.%d", b->minor, b->micro);
		}
	} else if (ps.is_none || ps.frame_get_code) {
		/* no Py_Version: older than 3.11; the API says which */
		b->minor = ps.is_none ? 10 : 9;
		rodata_micro(elf, b);
	} else {
		snprintf(b->version, sizeof(b->version), "3.8 or older");
	}
	if (!b->minor) {
		snprintf(b->note, sizeof(b->note), "CPython %s is not supported (3.10 to 3.13 are)",
			 b->version);
		goto done;
	}
	py_layouts(&nlayouts);
	for (size_t i = 0; i < nlayouts; i++)
		if (layouts[i].minor == b->minor)
			b->layout = i;
	if (b->layout < 0) {
		snprintf(b->note, sizeof(b->note), "CPython %s is not supported (3.10 to 3.13 are)",
			 b->version);
		goto done;
	}
	b->own = layouts[b->layout].layout;
	if (b->minor >= 13) {
		int r = debug_offsets(elf, fd, b);

		if (r > 0) {
			b->layout = -1;
			goto done;
		}
		if (r < 0)
			snprintf(b->note, sizeof(b->note), "no _Py_DebugOffsets found");
	} else {
		/* sizeof(_PyRuntimeState) changes with nearly any change of the layout */
		if (b->runtime_size != layouts[b->layout].runtime_size)
			snprintf(b->note, sizeof(b->note),
				 "_PyRuntime is %llu bytes, not %llu as in %s: its layout is used "
				 "unverified",
				 (unsigned long long)b->runtime_size,
				 (unsigned long long)layouts[b->layout].runtime_size,
				 layouts[b->layout].from);
	}
done:
	elf_file_close(elf, fd);
	return 0;
}

/* Does a mapped file's name look like a CPython executable or libpython? */
static bool python_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "python", 6) || !strncmp(base, "libpython", 9);
}

/* Files inspected, by identity: a process of a known file costs no ELF parsing. */
#define FILE_CACHE 64
static struct {
	uint64_t ino, mtime;
	uint32_t dev;
	bool used;
	struct py_binary bin;
} file_cache[FILE_CACHE];
static unsigned file_cache_next;

int py_binary_inspect_cached(const char *mapfile, const char *path, uint32_t dev, uint64_t ino,
			     struct py_binary *b)
{
	struct stat st;
	uint64_t mtime;
	unsigned i;

	if (stat(mapfile, &st) && stat(path, &st))
		return -1;
	mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	for (i = 0; i < FILE_CACHE; i++)
		if (file_cache[i].used && file_cache[i].ino == ino && file_cache[i].dev == dev &&
		    file_cache[i].mtime == mtime) {
			*b = file_cache[i].bin;
			return 0;
		}
	if (py_binary_inspect(mapfile, b) && py_binary_inspect(path, b))
		return -1;
	i = file_cache_next++ % FILE_CACHE;
	file_cache[i].used = true;
	file_cache[i].ino = ino;
	file_cache[i].dev = dev;
	file_cache[i].mtime = mtime;
	file_cache[i].bin = *b;
	return 0;
}

int py_process_find(pid_t pid, struct py_process *out)
{
	char file[64], line[1024], exe[512] = "";
	FILE *f;
	ssize_t n;
	int found = 0;

	memset(out, 0, sizeof(*out));
	snprintf(file, sizeof(file), "/proc/%d/exe", (int)pid);
	n = readlink(file, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -1;
	/* the executable, then the first libpython: the mappings at file offset 0 */
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		char perms[8], path[512] = "", mapfile[96];
		struct py_binary b;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %511[^\n]", &lo, &hi, perms, &off,
			   &maj, &min, &ino, path) < 8 ||
		    off != 0 || path[0] != '/')
			continue;
		if (strcmp(path, exe) && !python_name(path))
			continue;
		/* map_files: the mapped file itself, even in another mount namespace */
		snprintf(mapfile, sizeof(mapfile), "/proc/%d/map_files/%llx-%llx", (int)pid, lo,
			 hi);
		if (py_binary_inspect_cached(mapfile, path, maj << 20 | min, ino, &b))
			continue;
		if (!b.python)
			continue;
		snprintf(out->path, sizeof(out->path), "%s", path);
		out->ino = ino;
		out->dev = maj << 20 | min;
		out->runtime = lo - b.first_vaddr + b.runtime;
		out->bin = b;
		found = 1;
	}
	fclose(f);
	return found;
}

/* Where this thread's pthread_getspecific(key) data is, from the thread pointer. */
static long find_slot(uintptr_t tp, const void *value)
{
	/* specific_1stblock ends well inside the first 2 KiB of struct pthread */
	for (long off = 0; off < 2048; off += sizeof(void *))
		if (*(void *const *)(tp + off) == value)
			return off;
	return -1;
}

int py_pthread_specific_offset(uint32_t *off)
{
	static char marks[2];
	pthread_key_t keys[2];
	uintptr_t tp = (uintptr_t)pthread_self(); /* glibc: the struct pthread, = fsbase */
	long at[2];
	int err = -1;

	if (pthread_key_create(&keys[0], NULL))
		return -1;
	if (pthread_key_create(&keys[1], NULL)) {
		pthread_key_delete(keys[0]);
		return -1;
	}
	/* both keys in the first block (keys below 32), set to values found once */
	if (keys[0] < 32 && keys[1] < 32 && !pthread_setspecific(keys[0], &marks[0]) &&
	    !pthread_setspecific(keys[1], &marks[1])) {
		at[0] = find_slot(tp, &marks[0]);
		at[1] = find_slot(tp, &marks[1]);
		/* slot k is {seq, data} at specific_1stblock + 16 k: data at + 8 */
		if (at[0] >= 0 && at[1] - at[0] == ((long)keys[1] - (long)keys[0]) * 16 &&
		    at[0] >= (long)keys[0] * 16 + 8) {
			*off = at[0] - keys[0] * 16 - 8;
			err = 0;
		}
	}
	pthread_key_delete(keys[0]);
	pthread_key_delete(keys[1]);
	return err;
}
