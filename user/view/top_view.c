// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's drawing: the screen (header, columns, colors, escape
 * sequences), the lines of lines mode and the keys; what the rows are and
 * their order come from top_model.c.
 */
#define _GNU_SOURCE
#include "view/top_view.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/human_format.h"
#include "lib/u64_index.h"
#include "view/top_model.h"

/* ---- columns ---- */

static const struct column {
	const char *title;
	int width;
	int drop; /* dropped first when the screen is narrow: higher first; 0 never */
} columns[C_COUNT] = {
    [C_PID] = {"PID", 7, 0},	  [C_THR] = {"THR", 4, 6},     [C_RD_S] = {"READ/s", 7, 0},
    [C_WR_S] = {"WRITE/s", 7, 0}, [C_OPS_S] = {"OPS/s", 7, 0}, [C_META_S] = {"META/s", 7, 5},
    [C_IO] = {"IO%", 5, 0},	  [C_P50] = {"P50", 6, 3},     [C_P99] = {"P99", 6, 2},
    [C_RD] = {"READ", 7, 4},	  [C_WR] = {"WRITE", 7, 7},    [C_OPS] = {"OPS", 7, 1},
    [C_NAME] = {"NAME", 0, 0},
};

struct top_view *top_view__new(void)
{
	struct top_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	for (int i = 0; i < LIVE_TABLES; i++)
		u64_index_init(&v->prev_index[i]);
	for (int i = 0; i < TOP_VIEWS; i++)
		v->sort[i] = C_RD_S;
	v->tree = true;
	v->interval = 1;
	snprintf(v->title, sizeof(v->title), "dltrace top");
	return v;
}

void top_view__free(struct top_view *v)
{
	if (!v)
		return;
	for (int i = 0; i < 2; i++)
		live_snapshot_free(&v->snap[i]);
	for (int i = 0; i < LIVE_TABLES; i++)
		u64_index_free(&v->prev_index[i]);
	free(v->rows);
	free(v->order);
	free(v);
}

void top_view__set_title(struct top_view *v, const char *title)
{
	snprintf(v->title, sizeof(v->title), "%s", title);
}

void top_view__set_interval(struct top_view *v, double seconds)
{
	v->interval = seconds;
}

void top_view__set_message(struct top_view *v, const char *msg)
{
	snprintf(v->message, sizeof(v->message), "%s", msg ? msg : "");
}

bool top_view__ready(const struct top_view *v)
{
	return v->count > 0;
}

bool top_view__paused(const struct top_view *v)
{
	return v->paused;
}

void top_view__push(struct top_view *v, struct live_snapshot *s)
{
	int old = v->count ? 1 - v->cur : 0;

	if (v->count) {
		live_snapshot_free(&v->snap[old]);
		v->cur = old;
	}
	v->snap[v->cur] = *s;
	memset(s, 0, sizeof(*s));
	if (v->count < 2)
		v->count++;
	for (int t = 0; t < LIVE_TABLES; t++) {
		const struct live_snapshot *p = prev_snap(v);

		u64_index_free(&v->prev_index[t]);
		u64_index_init(&v->prev_index[t]);
		if (!p)
			continue;
		for (uint32_t i = 0; i < p->nrows[t]; i++)
			if (p->rows[t][i].serial)
				u64_index_put(&v->prev_index[t], p->rows[t][i].serial, i);
	}
}

/* ---- numbers ---- */

static void fmt_scaled(char *out, size_t size, double v, double base, const char *units)
{
	unsigned u;

	if (v < 0)
		v = 0;
	if (v < base) {
		snprintf(out, size, "%.0f", v);
		return;
	}
	u = human_scale(&v, base, strlen(units) - 1);
	if (v < 9.95)
		snprintf(out, size, "%.1f%c", v, units[u]);
	else
		snprintf(out, size, "%.0f%c", v, units[u]);
}

static void fmt_bytes(char *out, size_t size, double v)
{
	fmt_scaled(out, size, v, 1024, " KMGTP");
}

static void fmt_count(char *out, size_t size, double v)
{
	fmt_scaled(out, size, v, 1000, " kMGTP");
}

static void fmt_ns(char *out, size_t size, uint64_t ns)
{
	if (ns < 1000)
		snprintf(out, size, "%lluns", (unsigned long long)ns);
	else if (ns < 10000)
		snprintf(out, size, "%.1fus", ns / 1e3);
	else if (ns < 1000000)
		snprintf(out, size, "%.0fus", ns / 1e3);
	else if (ns < 10000000)
		snprintf(out, size, "%.1fms", ns / 1e6);
	else if (ns < 1000000000)
		snprintf(out, size, "%.0fms", ns / 1e6);
	else if (ns < 10000000000ull)
		snprintf(out, size, "%.1fs", ns / 1e9);
	else
		snprintf(out, size, "%.0fs", ns / 1e9);
}

static void fmt_pct(char *out, size_t size, double share)
{
	double p = share * 100;

	if (p < 9.95 && p > 0)
		snprintf(out, size, "%.1f", p);
	else
		snprintf(out, size, "%.0f", p);
}

/* ---- text cells ---- */

/* A line being built: at most width columns (UTF-8 characters). */
struct line {
	char buf[4096];
	size_t len;
	int cols, width;
};

static void line_start(struct line *l, int width)
{
	l->len = 0;
	l->cols = 0;
	l->width = width < (int)sizeof(l->buf) / 4 ? width : (int)sizeof(l->buf) / 4;
}

static void line_raw(struct line *l, const char *s)
{
	size_t n = strlen(s);

	if (l->len + n < sizeof(l->buf)) {
		memcpy(l->buf + l->len, s, n);
		l->len += n;
	}
}

/* Length of the valid UTF-8 character at s (1..4), 0 when invalid or a control. */
static int char_len(const unsigned char *s, size_t n)
{
	int len;
	uint32_t cp;

	if (s[0] < 0x20 || s[0] == 0x7f)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if ((size_t)len > n)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0))
		return 0;
	return len;
}

static int count_chars(const char *s, size_t n)
{
	int chars = 0;

	for (size_t i = 0; i < n; chars++) {
		int c = char_len((const unsigned char *)s + i, n - i);

		i += c ? c : 1;
	}
	return chars;
}

static void line_spaces(struct line *l, int n)
{
	for (int k = 0; k < n && l->len + 1 < sizeof(l->buf); k++)
		l->buf[l->len++] = ' ';
}

/*
 * Text of n bytes, made printable ('?' for controls and bytes that are not
 * UTF-8), in a cell of width columns (0: the rest of the line), aligned
 * right or left; too long, it is cut at the right, or at the left with a
 * '~' (paths: their end says most).
 */
static void line_text(struct line *l, const char *s, size_t n, int width, bool right, bool cut_left)
{
	int room = l->width - l->cols, chars = count_chars(s, n), shown, skip = 0, mark = 0;

	if (width <= 0 || width > room)
		width = room;
	if (width <= 0)
		return;
	if (chars <= width) {
		shown = chars;
	} else if (cut_left) {
		mark = 1;
		shown = width - 1;
		skip = chars - shown;
	} else {
		shown = width;
	}
	if (right)
		line_spaces(l, width - shown - mark);
	if (mark)
		line_raw(l, "~");
	for (size_t i = 0, k = 0; i < n; k++) {
		int c = char_len((const unsigned char *)s + i, n - i);

		if ((int)k >= skip && (int)k < skip + shown && l->len + 5 < sizeof(l->buf)) {
			if (c)
				memcpy(l->buf + l->len, s + i, c);
			else
				l->buf[l->len] = '?';
			l->len += c ? c : 1;
		}
		i += c ? c : 1;
	}
	if (!right)
		line_spaces(l, width - shown - mark);
	l->cols += width;
}

static void line_str(struct line *l, const char *s, int width, bool right)
{
	line_text(l, s, strlen(s), width, right, false);
}

/* Free text up to the end of the line. */
static void line_printf(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line_printf(struct line *l, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	line_text(l, text, strlen(text), count_chars(text, strlen(text)), false, false);
}

/* The screen: lines from the top, the last one without a line feed (no scrolling). */
struct screen {
	FILE *out;
	int y, height, width;
};

static void screen_put(struct screen *sc, struct line *l)
{
	if (sc->y >= sc->height)
		return;
	if (sc->y)
		fputs("\r\n", sc->out);
	fwrite(l->buf, 1, l->len, sc->out);
	fputs("\x1b[K", sc->out);
	sc->y++;
}

/* ---- the screen ---- */

static bool col_in(int t, int c)
{
	return t == TOP_PROCESSES || (c != C_PID && c != C_THR);
}

/* Which columns fit: the narrow screen drops the least useful first. */
static void choose_columns(int t, int width, bool *on)
{
	int used = 0;

	for (int c = 0; c < C_COUNT; c++) {
		on[c] = col_in(t, c);
		if (on[c] && c != C_NAME)
			used += columns[c].width + 1;
	}
	while (width - used < 24) {
		int worst = -1;

		for (int c = 0; c < C_COUNT; c++)
			if (on[c] && columns[c].drop &&
			    (worst < 0 || columns[c].drop > columns[worst].drop))
				worst = c;
		if (worst < 0)
			break;
		on[worst] = false;
		used -= columns[worst].width + 1;
	}
}

static const char *name_title(int t)
{
	return t == TOP_PROCESSES ? "COMMAND" : t == TOP_FILES ? "FILE" : "DIRECTORY";
}

static void table_header(struct screen *sc, int t, const bool *on, int sort)
{
	struct line l;

	line_start(&l, sc->width);
	line_raw(&l, "\x1b[7m");
	for (int c = 0; c < C_COUNT; c++) {
		if (!on[c])
			continue;
		if (c == sort)
			line_raw(&l, "\x1b[1;4m");
		line_str(&l, c == C_NAME ? name_title(t) : columns[c].title,
			 c == C_NAME ? 0 : columns[c].width, c != C_NAME);
		if (c == sort)
			line_raw(&l, "\x1b[22;24m");
		if (c != C_NAME)
			line_str(&l, " ", 1, false);
	}
	line_raw(&l, "\x1b[0m");
	screen_put(sc, &l);
}

static void cell(struct line *l, int c, const struct disp *d)
{
	char text[32];

	switch (c) {
	case C_PID:
		if (d->r->serial)
			snprintf(text, sizeof(text), "%u", d->r->pid);
		else
			snprintf(text, sizeof(text), "-");
		break;
	case C_THR:
		snprintf(text, sizeof(text), "%u", d->r->threads);
		break;
	case C_RD_S:
	case C_WR_S:
	case C_RD:
	case C_WR:
		fmt_bytes(text, sizeof(text), d->v[c]);
		break;
	case C_OPS: /* exact while it fits */
		if (d->v[c] < 1e7)
			snprintf(text, sizeof(text), "%.0f", d->v[c]);
		else
			fmt_count(text, sizeof(text), d->v[c]);
		break;
	case C_OPS_S:
	case C_META_S:
		fmt_count(text, sizeof(text), d->v[c]);
		break;
	case C_IO:
		fmt_pct(text, sizeof(text), d->v[c]);
		break;
	case C_P50:
	case C_P99:
		if (d->d_ops)
			fmt_ns(text, sizeof(text), c == C_P50 ? d->p50 : d->p99);
		else
			snprintf(text, sizeof(text), "-");
		break;
	default:
		text[0] = '\0';
	}
	line_str(l, text, columns[c].width, true);
	line_str(l, " ", 1, false);
}

static void table_rows(struct top_view *v, struct screen *sc, int t)
{
	int lt = t == TOP_PROCESSES ? LIVE_PROCS : t == TOP_FILES ? LIVE_FILES : LIVE_DIRS;
	uint32_t n = top_build_rows(v, lt), shown;
	bool on[C_COUNT];
	struct line l;

	choose_columns(t, sc->width, on);
	table_header(sc, t, on, v->sort[t]);
	shown = top_order_rows(v, n, t == TOP_PROCESSES && v->tree);
	for (uint32_t k = 0; k < shown && sc->y < sc->height; k++) {
		const struct disp *d = &v->rows[v->order[k]];

		if (t == TOP_PROCESSES && v->hidden && sc->y == sc->height - 1)
			break; /* room for the line of the hidden ones */
		line_start(&l, sc->width);
		for (int c = 0; c < C_NAME; c++)
			if (on[c])
				cell(&l, c, d);
		if (!d->r->serial) {
			line_str(&l,
				 t == TOP_PROCESSES ? "(other processes)"
				 : t == TOP_FILES   ? "(files no longer listed)"
						    : "(directories no longer listed)",
				 0, false);
		} else if (t == TOP_PROCESSES) {
			for (int i = 0; i < d->depth && i < 16; i++)
				line_str(&l, i + 1 == d->depth ? "`- " : "   ", 3, false);
			if (d->r->name_len)
				line_text(&l, d->r->name, d->r->name_len, 0, false, false);
			else
				line_printf(&l, "(pid %u)", d->r->pid);
			if (!d->r->alive)
				line_str(&l, " (exited)", 0, false);
		} else {
			line_text(&l, d->r->name, d->r->name_len, 0, false, true);
		}
		screen_put(sc, &l);
	}
	if (t == TOP_PROCESSES && v->hidden) {
		line_start(&l, sc->width);
		line_printf(&l, "  %u exited processes idle in the interval are not shown",
			    v->hidden);
		screen_put(sc, &l);
	}
}

/* ---- the capture layers ---- */

struct layer_line {
	const char *name;
	uint64_t ops, rd, wr, io_ns;	  /* cumulative */
	uint64_t d_ops, d_rd, d_wr, d_io; /* in the interval */
	const uint32_t *lat, *plat;	  /* latency histograms, now and before (NULL: none) */
	bool io_known;
	char note[160];
};

static bool has_layer(const struct live_snapshot *s, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = s->layers; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && !memcmp(p, name, n))
			return true;
		p = comma ? comma + 1 : p + len;
	}
	return false;
}

static void layer_set(struct layer_line *x, const char *name, uint64_t ops, uint64_t pops,
		      uint64_t rd, uint64_t prd, uint64_t wr, uint64_t pwr, uint64_t io,
		      uint64_t pio)
{
	x->name = name;
	x->ops = ops;
	x->rd = rd;
	x->wr = wr;
	x->io_ns = io;
	x->d_ops = sub(ops, pops);
	x->d_rd = sub(rd, prd);
	x->d_wr = sub(wr, pwr);
	x->d_io = sub(io, pio);
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

static void layers_table(struct top_view *v, struct screen *sc)
{
	static const struct live_snapshot zero;
	const struct live_snapshot *c = cur_snap(v), *p = prev_snap(v) ? prev_snap(v) : &zero;
	const struct live_layers *L = &c->layers_n, *P = &p->layers_n;
	static const char *libs[3] = {"stdio", "hdf5", "mpiio"};
	struct layer_line x[12];
	double dt = top_interval_s(v);
	int n = 0;
	struct line l;

	memset(x, 0, sizeof(x));
	layer_set(&x[n], "syscall", c->total.ops, p->total.ops, c->total.rd_bytes,
		  p->total.rd_bytes, c->total.wr_bytes, p->total.wr_bytes, c->total.io_ns,
		  p->total.io_ns);
	x[n].lat = c->total.lat;
	x[n].plat = p->total.lat;
	x[n].io_known = true;
	snprintf(x[n++].note, sizeof(x[0].note), "%llu failed",
		 (unsigned long long)c->total.failed);
	if (has_layer(c, "mmap") || L->faults) {
		layer_set(&x[n], "mmap", L->faults, P->faults, L->fault_bytes, P->fault_bytes, 0, 0,
			  0, 0);
		snprintf(x[n++].note, sizeof(x[0].note),
			 "page faults reading mapped files (%llu on write)",
			 (unsigned long long)L->write_faults);
	}
	if (has_layer(c, "cache") || L->cache_reads) {
		uint64_t drd = sub(L->cache_read_bytes, P->cache_read_bytes);
		uint64_t dmiss = sub(L->cache_miss_bytes, P->cache_miss_bytes);

		layer_set(&x[n], "page cache", L->cache_reads, P->cache_reads, L->cache_read_bytes,
			  P->cache_read_bytes, 0, 0, 0, 0);
		if (drd || L->cache_read_bytes) {
			char a[16] = "-", b[16];

			if (drd) {
				fmt_pct(a, sizeof(a), 1 - share(dmiss < drd ? dmiss : drd, drd));
				strcat(a, "%");
			}
			fmt_pct(b, sizeof(b),
				1 - share(L->cache_miss_bytes < L->cache_read_bytes
					      ? L->cache_miss_bytes
					      : L->cache_read_bytes,
					  L->cache_read_bytes));
			snprintf(x[n].note, sizeof(x[0].note), "hit ratio %s (since start %s%%)", a,
				 b);
		}
		n++;
	}
	if (has_layer(c, "block") || L->block_reqs) {
		layer_set(&x[n], "block", L->block_reqs, P->block_reqs, L->block_rd_bytes,
			  P->block_rd_bytes, L->block_wr_bytes, P->block_wr_bytes, L->block_ns,
			  P->block_ns);
		x[n].lat = L->block_lat;
		x[n].plat = P->block_lat;
		snprintf(x[n++].note, sizeof(x[0].note), "requests of every process while traced");
	}
	if (has_layer(c, "uring") || L->uring_reqs) {
		layer_set(&x[n], "io_uring", L->uring_reqs, P->uring_reqs, L->uring_rd_bytes,
			  P->uring_rd_bytes, L->uring_wr_bytes, P->uring_wr_bytes, L->uring_ns,
			  P->uring_ns);
		x[n].lat = L->uring_lat;
		x[n].plat = P->uring_lat;
		x[n++].io_known = true;
	}
	if (has_layer(c, "vfs") || L->vfs_calls) {
		layer_set(&x[n], "vfs", L->vfs_calls, P->vfs_calls, 0, 0, 0, 0, L->vfs_ns,
			  P->vfs_ns);
		x[n++].io_known = true;
	}
	for (int i = 0; i < 3; i++) {
		if (!has_layer(c, libs[i]) && !L->lib_calls[i])
			continue;
		layer_set(&x[n], libs[i], L->lib_calls[i], P->lib_calls[i], 0, 0, 0, 0,
			  L->lib_ns[i], P->lib_ns[i]);
		x[n].io_known = true;
		snprintf(x[n++].note, sizeof(x[0].note), "library calls");
	}
	if (has_layer(c, "markers") || L->marker_regions) {
		layer_set(&x[n], "markers", L->marker_regions, P->marker_regions, 0, 0, 0, 0, 0, 0);
		snprintf(x[n++].note, sizeof(x[0].note), "regions; %llu steps, %llu fetches",
			 (unsigned long long)c->phases.steps,
			 (unsigned long long)c->phases.fetches);
	}

	line_start(&l, sc->width);
	line_raw(&l, "\x1b[7m");
	line_str(&l, "LAYER", 11, false);
	for (int k = C_RD_S; k <= C_OPS; k++) {
		static const char *t[] = {"READ/s", "WRITE/s", "OPS/s", "",	 "IO%",
					  "P50",    "P99",     "READ",	"WRITE", "OPS"};

		if (k == C_META_S)
			continue;
		line_str(&l, t[k - C_RD_S], columns[k].width, true);
		line_str(&l, " ", 1, false);
	}
	line_str(&l, "NOTE", 0, false);
	line_raw(&l, "\x1b[0m");
	screen_put(sc, &l);
	for (int i = 0; i < n; i++) {
		char a[32], b[32];
		uint32_t lat[LIVE_LAT_BUCKETS];

		line_start(&l, sc->width);
		line_str(&l, x[i].name, 11, false);
		fmt_bytes(a, sizeof(a), x[i].d_rd / dt);
		line_str(&l, a, columns[C_RD_S].width, true);
		fmt_bytes(a, sizeof(a), x[i].d_wr / dt);
		line_str(&l, " ", 1, false);
		line_str(&l, a, columns[C_WR_S].width, true);
		fmt_count(a, sizeof(a), x[i].d_ops / dt);
		line_str(&l, " ", 1, false);
		line_str(&l, a, columns[C_OPS_S].width, true);
		line_str(&l, " ", 1, false);
		if (x[i].io_known)
			fmt_pct(a, sizeof(a), x[i].d_io / 1e9 / dt);
		else
			snprintf(a, sizeof(a), "-");
		line_str(&l, a, columns[C_IO].width, true);
		line_str(&l, " ", 1, false);
		snprintf(a, sizeof(a), "-");
		snprintf(b, sizeof(b), "-");
		if (x[i].lat && x[i].d_ops) {
			for (unsigned k = 0; k < LIVE_LAT_BUCKETS; k++)
				lat[k] = x[i].lat[k] - (x[i].plat ? x[i].plat[k] : 0);
			fmt_ns(a, sizeof(a), live_lat_quantile(lat, x[i].d_ops, 0.5));
			fmt_ns(b, sizeof(b), live_lat_quantile(lat, x[i].d_ops, 0.99));
		}
		line_str(&l, a, columns[C_P50].width, true);
		line_str(&l, " ", 1, false);
		line_str(&l, b, columns[C_P99].width, true);
		line_str(&l, " ", 1, false);
		fmt_bytes(a, sizeof(a), (double)x[i].rd);
		line_str(&l, a, columns[C_RD].width, true);
		line_str(&l, " ", 1, false);
		fmt_bytes(a, sizeof(a), (double)x[i].wr);
		line_str(&l, a, columns[C_WR].width, true);
		line_str(&l, " ", 1, false);
		if (x[i].ops < 10000000)
			snprintf(a, sizeof(a), "%llu", (unsigned long long)x[i].ops);
		else
			fmt_count(a, sizeof(a), (double)x[i].ops);
		line_str(&l, a, columns[C_OPS].width, true);
		line_str(&l, " ", 1, false);
		line_str(&l, x[i].note, 0, false);
		screen_put(sc, &l);
	}
}

/* ---- header ---- */

static const char *table_names[TOP_VIEWS] = {"processes", "files", "directories", "layers"};

static void header(struct top_view *v, struct screen *sc)
{
	static const struct live_snapshot zero;
	const struct live_snapshot *c = cur_snap(v), *p = prev_snap(v) ? prev_snap(v) : &zero;
	struct live_counts d;
	double dt = top_interval_s(v), stall;
	uint64_t up = c->now_ns / 1000000000ull, steps;
	char a[32], b[32], e[32], f[32], g[32], h[32];
	const struct live_row *tr;
	struct line l;

	top_counts_delta(&c->total, &p->total, &d);
	line_start(&l, sc->width);
	line_raw(&l, "\x1b[1m");
	line_printf(&l, "%s", v->title);
	line_raw(&l, "\x1b[0m");
	line_printf(&l, "   up %llu:%02llu:%02llu   every %.3g s%s   host %s   %s",
		    (unsigned long long)up / 3600, (unsigned long long)up / 60 % 60,
		    (unsigned long long)up % 60, v->interval, v->paused ? "   PAUSED" : "", c->host,
		    c->target);
	screen_put(sc, &l);

	fmt_bytes(a, sizeof(a), d.rd_bytes / dt);
	fmt_bytes(b, sizeof(b), (double)c->total.rd_bytes);
	fmt_bytes(e, sizeof(e), d.wr_bytes / dt);
	fmt_bytes(f, sizeof(f), (double)c->total.wr_bytes);
	fmt_count(g, sizeof(g), d.ops / dt);
	fmt_count(h, sizeof(h), (double)c->total.ops);
	line_start(&l, sc->width);
	line_printf(&l, "Read %s/s (total %s)   Write %s/s (total %s)   Ops %s/s (total %s)", a, b,
		    e, f, g, h);
	fmt_count(a, sizeof(a), d.meta_ops / dt);
	fmt_count(b, sizeof(b), d.sync_ops / dt);
	fmt_pct(e, sizeof(e), d.io_ns / 1e9 / dt);
	line_printf(&l, "   Meta %s/s   Sync %s/s   In I/O %s%%", a, b, e);
	screen_put(sc, &l);

	fmt_count(a, sizeof(a), sub(c->events, p->events) / dt);
	fmt_count(b, sizeof(b), (double)c->events);
	line_start(&l, sc->width);
	line_printf(&l, "Processes %u (%u seen)   Threads %u   Events %s/s (total %s)   ",
		    c->processes, c->processes_seen, c->threads, a, b);
	if (c->lost)
		line_raw(&l, "\x1b[1;31m");
	line_printf(&l, "Lost %llu (%llu in the interval)", (unsigned long long)c->lost,
		    (unsigned long long)sub(c->lost, p->lost));
	if (c->lost)
		line_raw(&l, "\x1b[0m");
	screen_put(sc, &l);

	line_start(&l, sc->width);
	if (c->training.tid) {
		tr = top_find_proc(c, c->training.pid);
		fmt_pct(a, sizeof(a), sub(c->training.io_ns, p->training.io_ns) / 1e9 / dt);
		line_printf(&l, "Training thread %u", c->training.tid);
		if (tr && tr->name_len) {
			int w = count_chars(tr->name, tr->name_len);

			line_str(&l, " (", 2, false);
			line_text(&l, tr->name, tr->name_len, w < 40 ? w : 40, false, false);
			line_str(&l, ")", 1, false);
		}
		line_printf(&l, ": %s%% of its time in I/O", a);
	} else {
		line_printf(&l, "Training thread: not seen yet");
	}
	stall = top_stall_share(&c->phases, &p->phases, &steps);
	if (stall >= 0) {
		fmt_pct(a, sizeof(a), stall);
		line_printf(&l, "   Data stall %s%% (%llu steps)", a, (unsigned long long)steps);
	} else {
		line_printf(&l, "   Data stall: -%s",
			    c->phases.fetches || c->phases.steps ? "" : " (no fetch/step markers)");
	}
	screen_put(sc, &l);

	line_start(&l, sc->width);
	line_printf(&l,
		    "View %s (p f d l)   Sort %s (< > r)   Tree %s (t)   Pause (space)   "
		    "Quit (q)",
		    table_names[v->table],
		    v->table == TOP_LAYERS	  ? "-"
		    : v->sort[v->table] == C_NAME ? name_title(v->table)
						  : columns[v->sort[v->table]].title,
		    v->tree ? "on" : "off");
	screen_put(sc, &l);
	line_start(&l, sc->width);
	line_printf(&l, "%s", v->message);
	screen_put(sc, &l);
}

void top_view__screen(struct top_view *v, FILE *out, int width, int height)
{
	struct screen sc = {out, 0, height, width};

	fputs("\x1b[H", out);
	if (v->count) {
		header(v, &sc);
		if (v->table == TOP_LAYERS)
			layers_table(v, &sc);
		else
			table_rows(v, &sc, v->table);
	}
	fputs("\x1b[J", out);
}

/* ---- lines ---- */

void top_view__line_header(FILE *out)
{
	fprintf(out, "%-8s %8s %5s %7s %8s %8s %8s %8s %12s %12s %9s %8s %8s %8s %6s %6s %8s\n",
		"time", "elapsed", "procs", "threads", "rd_ops", "wr_ops", "meta_ops", "sync_ops",
		"rd_bytes", "wr_bytes", "io_ms", "p50_us", "p99_us", "train_io", "stall", "lost",
		"events");
}

void top_view__line(struct top_view *v, FILE *out)
{
	static const struct live_snapshot zero;
	const struct live_snapshot *c = cur_snap(v), *p = prev_snap(v) ? prev_snap(v) : &zero;
	char when[16], p50[16] = "-", p99[16] = "-", train[16] = "-", stall_s[16] = "-";
	double dt = top_interval_s(v), stall;
	struct live_counts d;
	time_t now = time(NULL);
	uint64_t steps;
	struct tm tm;

	if (!v->count)
		return;
	top_counts_delta(&c->total, &p->total, &d);
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (d.ops) {
		snprintf(p50, sizeof(p50), "%.1f", live_lat_quantile(d.lat, d.ops, 0.5) / 1e3);
		snprintf(p99, sizeof(p99), "%.1f", live_lat_quantile(d.lat, d.ops, 0.99) / 1e3);
	}
	if (c->training.tid)
		snprintf(train, sizeof(train), "%.1f",
			 100.0 * sub(c->training.io_ns, p->training.io_ns) / 1e9 / dt);
	stall = top_stall_share(&c->phases, &p->phases, &steps);
	if (stall >= 0)
		snprintf(stall_s, sizeof(stall_s), "%.1f", 100 * stall);
	fprintf(out,
		"%-8s %8.2f %5u %7u %8llu %8llu %8llu %8llu %12llu %12llu %9.1f %8s %8s %8s %6s "
		"%6llu %8llu\n",
		when, c->now_ns / 1e9, c->processes, c->threads, (unsigned long long)d.rd_ops,
		(unsigned long long)d.wr_ops, (unsigned long long)d.meta_ops,
		(unsigned long long)d.sync_ops, (unsigned long long)d.rd_bytes,
		(unsigned long long)d.wr_bytes, d.io_ns / 1e6, p50, p99, train, stall_s,
		(unsigned long long)sub(c->lost, p->lost),
		(unsigned long long)sub(c->events, p->events));
}

/* ---- keys ---- */

static const char help[] = "p f d l: processes, files, directories, layers (Tab: next)   < >: "
			   "sort column   r: reverse   t: tree   space: pause   q: stop";

static int next_sort(const struct top_view *v, int dir)
{
	int c = v->sort[v->table];

	for (int k = 0; k < C_COUNT; k++) {
		c = (c + dir + C_COUNT) % C_COUNT;
		if (col_in(v->table, c))
			return c;
	}
	return v->sort[v->table];
}

enum top_key_result top_view__key(struct top_view *v, int key)
{
	v->message[0] = '\0';
	switch (key) {
	case 'q':
	case 'Q':
		return TOP_KEY_QUIT;
	case 'p':
	case 'P':
		v->table = TOP_PROCESSES;
		break;
	case 'f':
	case 'F':
		v->table = TOP_FILES;
		break;
	case 'd':
	case 'D':
		v->table = TOP_DIRS;
		break;
	case 'l':
	case 'L':
		v->table = TOP_LAYERS;
		break;
	case '\t':
		v->table = (v->table + 1) % TOP_VIEWS;
		break;
	case '<':
	case ',':
	case TOP_K_LEFT:
		v->sort[v->table] = next_sort(v, -1);
		break;
	case '>':
	case '.':
	case TOP_K_RIGHT:
		v->sort[v->table] = next_sort(v, 1);
		break;
	case 'r':
	case 'R':
		v->reverse = !v->reverse;
		break;
	case 't':
	case 'T':
		v->tree = !v->tree;
		break;
	case ' ':
		v->paused = !v->paused;
		break;
	case 'h':
	case 'H':
	case '?':
		snprintf(v->message, sizeof(v->message), "%s", help);
		break;
	default:
		return TOP_KEY_NONE;
	}
	return TOP_KEY_REDRAW;
}
