// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "decode/python_frames.h"

#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/dltrace_events.h"
#include "lib/py_linetable.h"
#include "lib/u64_index.h"

/* the record layouts drawn in dltrace_events.h */
_Static_assert(sizeof(struct dl_py_code) == 56, "struct dl_py_code");
_Static_assert(offsetof(struct dl_py_stack, frames) == 40, "struct dl_py_stack");
_Static_assert(sizeof(struct dl_py_frame) == 16, "struct dl_py_frame");
_Static_assert(sizeof(struct dl_io_py) == sizeof(struct dl_io) + 8, "struct dl_io_py");

struct py_code {
	char *file, *name;
	uint8_t *table;
	uint32_t table_len;
	int firstlineno;
	uint8_t minor;
};

struct py_stack {
	uint16_t n;
	uint8_t flags;
	char *text[2]; /* py_frames_text(), application frame and full stack: made once */
	uint32_t text_len[2];
	struct py_frame_raw {
		uint64_t code;
		int32_t lasti;
		int32_t line; /* -1: not computed yet */
	} * frames;
};

struct py_proc {
	uint32_t tgid, gen;
	bool live;
	struct u64_index code_index; /* address -> codes[] */
	struct py_code *codes;
	uint32_t ncodes, capcodes;
	struct py_stack *stacks; /* by id */
	uint32_t capstacks;
};

struct py_frames {
	struct u64_index proc_index; /* tgid -> procs[] */
	struct py_proc *procs;
	uint32_t nprocs, capprocs;
	uint64_t nstacks, ncodes;
};

struct py_frames *py_frames_new(void)
{
	struct py_frames *t = calloc(1, sizeof(*t));

	if (t)
		u64_index_init(&t->proc_index);
	return t;
}

static void proc_clear(struct py_frames *t, struct py_proc *p)
{
	for (uint32_t i = 0; i < p->ncodes; i++) {
		free(p->codes[i].file);
		free(p->codes[i].name);
		free(p->codes[i].table);
	}
	for (uint32_t i = 0; i < p->capstacks; i++) {
		if (p->stacks[i].frames)
			t->nstacks--;
		free(p->stacks[i].frames);
		free(p->stacks[i].text[0]);
		free(p->stacks[i].text[1]);
	}
	t->ncodes -= p->ncodes;
	free(p->codes);
	free(p->stacks);
	u64_index_free(&p->code_index);
	p->codes = NULL;
	p->stacks = NULL;
	p->ncodes = p->capcodes = p->capstacks = 0;
	p->live = false;
}

void py_frames_free(struct py_frames *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nprocs; i++)
		proc_clear(t, &t->procs[i]);
	free(t->procs);
	u64_index_free(&t->proc_index);
	free(t);
}

void py_frames_counts(const struct py_frames *t, uint64_t *stacks, uint64_t *codes)
{
	*stacks = t->nstacks;
	*codes = t->ncodes;
}

static struct py_proc *proc_find(struct py_frames *t, uint32_t tgid)
{
	uint32_t i = u64_index_get(&t->proc_index, tgid);

	return i == U64_NONE || !t->procs[i].live ? NULL : &t->procs[i];
}

/* The process's tables for image gen: a new image of the pid starts empty. */
static struct py_proc *proc_for(struct py_frames *t, uint32_t tgid, uint32_t gen)
{
	uint32_t i = u64_index_get(&t->proc_index, tgid);
	struct py_proc *p;

	if (i == U64_NONE) {
		if (t->nprocs == t->capprocs) {
			uint32_t cap = t->capprocs ? 2 * t->capprocs : 16;
			struct py_proc *procs = realloc(t->procs, cap * sizeof(*procs));

			if (!procs)
				return NULL;
			t->procs = procs;
			t->capprocs = cap;
		}
		i = t->nprocs;
		if (u64_index_put(&t->proc_index, tgid, i))
			return NULL;
		t->nprocs++;
		memset(&t->procs[i], 0, sizeof(t->procs[i]));
		u64_index_init(&t->procs[i].code_index);
	}
	p = &t->procs[i];
	if (p->live && p->gen == gen)
		return p;
	if (p->live)
		proc_clear(t, p);
	u64_index_init(&p->code_index);
	p->tgid = tgid;
	p->gen = gen;
	p->live = true;
	return p;
}

void py_frames_forget(struct py_frames *t, uint32_t tgid)
{
	struct py_proc *p = proc_find(t, tgid);

	if (p)
		proc_clear(t, p);
}

/* Append the UTF-8 form of code point c (surrogateescape'd bytes go back to the byte). */
static size_t put_utf8(char *out, uint32_t c)
{
	if (c >= 0xdc80 && c <= 0xdcff) { /* a byte that was not UTF-8 in the file name */
		out[0] = c - 0xdc00;
		return 1;
	}
	if (c < 0x80) {
		out[0] = c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = 0xc0 | c >> 6;
		out[1] = 0x80 | (c & 0x3f);
		return 2;
	}
	if (c < 0x10000) {
		out[0] = 0xe0 | c >> 12;
		out[1] = 0x80 | ((c >> 6) & 0x3f);
		out[2] = 0x80 | (c & 0x3f);
		return 3;
	}
	out[0] = 0xf0 | ((c >> 18) & 7);
	out[1] = 0x80 | ((c >> 12) & 0x3f);
	out[2] = 0x80 | ((c >> 6) & 0x3f);
	out[3] = 0x80 | (c & 0x3f);
	return 4;
}

/* A PyUnicode's characters (kind 1, 2 or 4 bytes each, little endian) as UTF-8. */
static char *unicode_to_utf8(const uint8_t *s, size_t len, unsigned kind)
{
	size_t n = kind ? len / kind : 0, o = 0;
	char *out = malloc(n * 4 + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = s[i * kind];

		if (kind >= 2)
			c |= (uint32_t)s[i * kind + 1] << 8;
		if (kind == 4)
			c |= (uint32_t)s[i * kind + 2] << 16 | (uint32_t)s[i * kind + 3] << 24;
		o += put_utf8(out + o, c > 0x10ffff ? 0xfffd : c);
	}
	out[o] = '\0';
	return out;
}

static void stack_text_clear(struct py_stack *st)
{
	for (int k = 0; k < 2; k++) {
		free(st->text[k]);
		st->text[k] = NULL;
		st->text_len[k] = 0;
	}
}

static int code_record(struct py_frames *t, const struct dl_py_code *c, size_t size)
{
	size_t need = sizeof(*c) + (size_t)c->file_len + c->name_len + c->table_len;
	struct py_proc *p;
	struct py_code code = {0}, *slot;
	uint32_t i;

	if (size < sizeof(*c) || need > size ||
	    (c->file_kind != 1 && c->file_kind != 2 && c->file_kind != 4) ||
	    (c->name_kind != 1 && c->name_kind != 2 && c->name_kind != 4))
		return -1;
	p = proc_for(t, c->h.tgid, c->gen);
	if (!p)
		return -1;
	code.file = unicode_to_utf8((const uint8_t *)c->data, c->file_len, c->file_kind);
	code.name =
	    unicode_to_utf8((const uint8_t *)c->data + c->file_len, c->name_len, c->name_kind);
	code.table = malloc(c->table_len ? c->table_len : 1);
	if (!code.file || !code.name || !code.table) {
		free(code.file);
		free(code.name);
		free(code.table);
		return -1;
	}
	memcpy(code.table, c->data + c->file_len + c->name_len, c->table_len);
	code.table_len = c->table_len;
	code.firstlineno = c->firstlineno;
	code.minor = c->minor;

	i = u64_index_get(&p->code_index, c->code);
	if (i != U64_NONE) {
		/* sent again: the address may hold another code object now */
		slot = &p->codes[i];
		free(slot->file);
		free(slot->name);
		free(slot->table);
		*slot = code;
		/* lines and texts made from the old one are stale */
		for (uint32_t s = 0; s < p->capstacks; s++)
			for (uint32_t f = 0; p->stacks[s].frames && f < p->stacks[s].n; f++)
				if (p->stacks[s].frames[f].code == c->code) {
					p->stacks[s].frames[f].line = -1;
					stack_text_clear(&p->stacks[s]);
				}
		return 0;
	}
	if (p->ncodes == p->capcodes) {
		uint32_t cap = p->capcodes ? 2 * p->capcodes : 64;
		struct py_code *codes = realloc(p->codes, cap * sizeof(*codes));

		if (!codes)
			goto fail;
		p->codes = codes;
		p->capcodes = cap;
	}
	if (u64_index_put(&p->code_index, c->code, p->ncodes))
		goto fail;
	p->codes[p->ncodes++] = code;
	t->ncodes++;
	return 0;
fail:
	free(code.file);
	free(code.name);
	free(code.table);
	return -1;
}

static int stack_record(struct py_frames *t, const struct dl_py_stack *s, size_t size)
{
	size_t head = offsetof(struct dl_py_stack, frames);
	struct py_proc *p;
	struct py_stack *st;

	if (size < head || s->n > DL_PY_FRAMES || head + s->n * sizeof(s->frames[0]) > size ||
	    !s->id || s->id > (1u << 24))
		return -1;
	p = proc_for(t, s->h.tgid, s->gen);
	if (!p)
		return -1;
	if (s->id >= p->capstacks) {
		uint32_t cap = p->capstacks ? p->capstacks : 64;
		struct py_stack *stacks;

		while (cap <= s->id)
			cap *= 2;
		stacks = realloc(p->stacks, cap * sizeof(*stacks));
		if (!stacks)
			return -1;
		memset(stacks + p->capstacks, 0, (cap - p->capstacks) * sizeof(*stacks));
		p->stacks = stacks;
		p->capstacks = cap;
	}
	st = &p->stacks[s->id];
	if (!st->frames)
		t->nstacks++;
	free(st->frames);
	stack_text_clear(st);
	st->frames = calloc(s->n ? s->n : 1, sizeof(*st->frames));
	if (!st->frames) {
		t->nstacks--;
		return -1;
	}
	st->n = s->n;
	st->flags = s->flags;
	for (int i = 0; i < s->n; i++) {
		st->frames[i].code = s->frames[i].code;
		st->frames[i].lasti = s->frames[i].lasti;
		st->frames[i].line = -1;
	}
	return 0;
}

int py_frames_record(struct py_frames *t, const void *data, size_t size)
{
	const struct dl_hdr *h = data;

	if (size < sizeof(*h))
		return -1;
	if (h->kind == DL_EV_PY_STACK)
		return stack_record(t, data, size);
	if (h->kind == DL_EV_PY_CODE)
		return code_record(t, data, size);
	return -1;
}

int py_frames_stack(struct py_frames *t, uint32_t tgid, uint32_t id, struct py_frame *out, int max,
		    unsigned *flags)
{
	struct py_proc *p = proc_find(t, tgid);
	struct py_stack *st;
	int n;

	*flags = 0;
	if (!p || id >= p->capstacks || !p->stacks[id].frames)
		return 0;
	st = &p->stacks[id];
	*flags = st->flags;
	n = st->n < max ? st->n : max;
	for (int i = 0; i < n; i++) {
		struct py_frame_raw *r = &st->frames[i];
		uint32_t c = u64_index_get(&p->code_index, r->code);
		const struct py_code *code = c == U64_NONE ? NULL : &p->codes[c];

		if (r->line < 0 && code) {
			int line = py_line_of(code->table, code->table_len, code->minor,
					      code->firstlineno, r->lasti);

			r->line = line > 0 ? line : 0;
		}
		out[i].file = code ? code->file : "";
		out[i].name = code ? code->name : "?";
		out[i].line = r->line > 0 ? r->line : 0;
		out[i].lasti = r->lasti;
		out[i].code = r->code;
	}
	return n;
}

const char *py_frames_text(struct py_frames *t, const struct py_rules *r, uint32_t tgid,
			   uint32_t id, bool full, size_t *len)
{
	struct py_proc *p = proc_find(t, tgid);
	struct py_frame f[DL_PY_FRAMES];
	struct py_stack *st;
	char buf[DL_PY_FRAMES * (DL_PY_FILE_MAX * 3 + DL_PY_NAME_MAX * 3 + 32)];
	size_t n = 0;
	unsigned flags;
	int nf;

	*len = 0;
	if (!p || id >= p->capstacks || !p->stacks[id].frames)
		return NULL;
	st = &p->stacks[id];
	if (st->text[full]) {
		*len = st->text_len[full];
		return st->text[full];
	}
	nf = py_frames_stack(t, tgid, id, f, DL_PY_FRAMES, &flags);
	if (nf <= 0)
		return NULL;
	if (full) {
		for (int i = 0; i < nf && n < sizeof(buf) - 4; i++) {
			if (i) {
				memcpy(buf + n, " | ", 3);
				n += 3;
			}
			n += py_frame_format(&f[i], true, buf + n, sizeof(buf) - n);
			if (n >= sizeof(buf))
				n = sizeof(buf) - 1; /* cut: stops the loop */
		}
		if ((flags & DL_PYS_TRUNCATED) && n + 6 < sizeof(buf)) {
			memcpy(buf + n, " | ...", 6);
			n += 6;
		}
	} else {
		n = py_frame_format(&f[py_frames_app(r, f, nf)], true, buf, sizeof(buf));
	}
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	st->text[full] = malloc(n + 1);
	if (!st->text[full])
		return NULL;
	memcpy(st->text[full], buf, n);
	st->text[full][n] = '\0';
	st->text_len[full] = n;
	*len = n;
	return st->text[full];
}

/* The default rules: "!" keeps (code given as a string by the user: -c, stdin). */
static const char *const default_rules[] = {
    "!<string>",	 "!<stdin>",	       "<*>", /* frozen modules, generated code */
    "*/lib/python3*/*",	 "*/lib64/python3*/*", "*/site-packages/*",
    "*/dist-packages/*",
};

void py_rules_init(struct py_rules *r)
{
	memset(r, 0, sizeof(*r));
}

int py_rules_add(struct py_rules *r, const char *pattern, char *err, size_t errlen)
{
	if (!strcmp(pattern, "none")) {
		r->no_defaults = true;
		return 0;
	}
	if (!*pattern || (pattern[0] == '!' && !pattern[1])) {
		snprintf(err, errlen, "--python-skip: an empty pattern");
		return -1;
	}
	if (r->n == PY_RULES_MAX) {
		snprintf(err, errlen, "--python-skip: more than %d patterns", PY_RULES_MAX);
		return -1;
	}
	r->keep[r->n] = pattern[0] == '!';
	r->pattern[r->n++] = pattern + (pattern[0] == '!');
	return 0;
}

bool py_rules_skip(const struct py_rules *r, const char *file)
{
	for (int i = 0; i < r->n; i++)
		if (!fnmatch(r->pattern[i], file, 0))
			return !r->keep[i];
	if (!r->no_defaults)
		for (size_t i = 0; i < sizeof(default_rules) / sizeof(default_rules[0]); i++) {
			const char *p = default_rules[i];

			if (!fnmatch(p + (*p == '!'), file, 0))
				return *p != '!';
		}
	return false;
}

int py_frames_app(const struct py_rules *r, const struct py_frame *f, int n)
{
	for (int i = 0; i < n; i++)
		if (!py_rules_skip(r, f[i].file))
			return i;
	return 0;
}

size_t py_frame_format(const struct py_frame *f, bool full_path, char *buf, size_t len)
{
	const char *file = f->file, *slash = strrchr(file, '/');
	int n;

	if (!full_path && slash)
		file = slash + 1;
	if (f->line)
		n = snprintf(buf, len, "%s:%d %s", file, f->line, f->name);
	else
		n = snprintf(buf, len, "%s %s", file, f->name);
	return n < 0 ? 0 : (size_t)n;
}
