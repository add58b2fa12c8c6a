// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "view/top_ui.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "view/top_view.h"
#include "lib/clock_ns.h"

struct top_ui {
	struct top_view *view;
	FILE *out;
	bool screen;
	int key_fd;
	bool own_key_fd, raw;
	struct termios saved;
	top_snapshot_fn fn;
	void *ctx;
	uint64_t interval_ns, next_ns;
	int width, height;
	bool header_done, finished;
	char *frame; /* the screen being built */
	size_t frame_len;
};

static void term_size(struct top_ui *ui, int *w, int *h)
{
	struct winsize ws;

	*w = 80;
	*h = 24;
	if (!ioctl(fileno(ui->out), TIOCGWINSZ, &ws) && ws.ws_col && ws.ws_row) {
		*w = ws.ws_col;
		*h = ws.ws_row;
	}
}

static void keys_open(struct top_ui *ui)
{
	struct termios t;

	ui->key_fd = -1;
	if (isatty(STDIN_FILENO)) {
		ui->key_fd = STDIN_FILENO;
	} else {
		ui->key_fd = open("/dev/tty", O_RDONLY | O_CLOEXEC | O_NOCTTY);
		ui->own_key_fd = ui->key_fd >= 0;
	}
	if (ui->key_fd < 0 || tcgetattr(ui->key_fd, &ui->saved))
		return;
	t = ui->saved;
	t.c_lflag &= ~(ICANON | ECHO); /* ISIG stays: Ctrl-C is still SIGINT */
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	ui->raw = !tcsetattr(ui->key_fd, TCSANOW, &t);
}

static void draw(struct top_ui *ui)
{
	FILE *f;

	free(ui->frame);
	ui->frame = NULL;
	f = open_memstream(&ui->frame, &ui->frame_len);
	if (!f)
		return;
	term_size(ui, &ui->width, &ui->height);
	top_view__screen(ui->view, f, ui->width, ui->height);
	if (fclose(f))
		return;
	/* one write per frame */
	fwrite(ui->frame, 1, ui->frame_len, ui->out);
	fflush(ui->out);
}

struct top_ui *top_ui__new(FILE *out, double interval, const char *title, top_snapshot_fn fn,
			   void *ctx)
{
	struct top_ui *ui = calloc(1, sizeof(*ui));
	const char *term = getenv("TERM");

	if (!ui)
		return NULL;
	ui->view = top_view__new();
	if (!ui->view) {
		free(ui);
		return NULL;
	}
	ui->out = out;
	ui->fn = fn;
	ui->ctx = ctx;
	ui->interval_ns = (uint64_t)(interval * 1e9);
	ui->key_fd = -1;
	top_view__set_title(ui->view, title);
	top_view__set_interval(ui->view, interval);
	ui->screen = isatty(fileno(out)) && !(term && !strcmp(term, "dumb"));
	ui->next_ns = mono_ns() + ui->interval_ns;
	if (ui->screen) {
		keys_open(ui);
		fputs("\x1b[?1049h\x1b[?25l\x1b[H\x1b[J", out); /* alternate screen, no cursor */
		fflush(out);
		ui->next_ns = 0; /* a first screen at once */
	}
	return ui;
}

bool top_ui__screen(const struct top_ui *ui)
{
	return ui->screen;
}

int top_ui__timeout_ms(const struct top_ui *ui)
{
	uint64_t now = mono_ns();

	return now >= ui->next_ns ? 0 : (int)((ui->next_ns - now + 999999) / 1000000);
}

int top_ui__key_fd(const struct top_ui *ui)
{
	return ui->raw ? ui->key_fd : -1;
}

static bool refresh(struct top_ui *ui)
{
	struct live_snapshot s;

	if (ui->fn(ui->ctx, ui->screen, &s))
		return false;
	top_view__push(ui->view, &s);
	return true;
}

static int read_key(struct top_ui *ui)
{
	unsigned char c, seq[2];

	if (read(ui->key_fd, &c, 1) != 1)
		return -1;
	if (c != 0x1b)
		return c;
	/* arrows: ESC [ C and ESC [ D; any other sequence is dropped */
	if (read(ui->key_fd, seq, 2) == 2 && seq[0] == '[')
		return seq[1] == 'D' ? TOP_K_LEFT : seq[1] == 'C' ? TOP_K_RIGHT : 0;
	return 0;
}

bool top_ui__step(struct top_ui *ui)
{
	uint64_t now = mono_ns();
	bool redraw = false;
	int w, h, key;

	if (ui->finished)
		return false;
	while (ui->raw && (key = read_key(ui)) >= 0) {
		enum top_key_result r = top_view__key(ui->view, key);

		if (r == TOP_KEY_QUIT)
			return true;
		redraw |= r == TOP_KEY_REDRAW;
	}
	if (now >= ui->next_ns) {
		ui->next_ns = now + ui->interval_ns;
		if (!ui->screen) {
			if (refresh(ui)) {
				if (!ui->header_done)
					top_view__line_header(ui->out);
				ui->header_done = true;
				top_view__line(ui->view, ui->out);
				fflush(ui->out);
			}
			return false;
		}
		if (!top_view__paused(ui->view))
			redraw |= refresh(ui);
	}
	if (ui->screen) {
		term_size(ui, &w, &h);
		redraw |= w != ui->width || h != ui->height;
		if (redraw)
			draw(ui);
	}
	return false;
}

void top_ui__message(struct top_ui *ui, const char *msg)
{
	if (!ui->screen) {
		fprintf(stderr, "dltrace: %s\n", msg);
		return;
	}
	top_view__set_message(ui->view, msg);
	draw(ui);
}

void top_ui__finish(struct top_ui *ui)
{
	if (ui->finished)
		return;
	ui->finished = true;
	if (ui->screen || !refresh(ui))
		return;
	if (!ui->header_done)
		top_view__line_header(ui->out);
	ui->header_done = true;
	top_view__line(ui->view, ui->out);
	fflush(ui->out);
}

void top_ui__free(struct top_ui *ui)
{
	if (!ui)
		return;
	if (ui->screen) {
		fputs("\x1b[?25h\x1b[?1049l", ui->out);
		fflush(ui->out);
	}
	if (ui->raw)
		tcsetattr(ui->key_fd, TCSANOW, &ui->saved);
	if (ui->own_key_fd)
		close(ui->key_fd);
	top_view__free(ui->view);
	free(ui->frame);
	free(ui);
}
