// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HTML report's SVG charts, drawn here: the axes, grouped bars, the
 * bandwidth timeline and the data stall per step.
 */
#include <math.h>

#include "lib/human_format.h"
#include "report/render/report_html_internal.h"

#define CHART_W 900
#define CHART_H 220

static double nice_max(double v)
{
	double p, m;

	if (v <= 0)
		return 1;
	p = pow(10, floor(log10(v)));
	m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void axis_y(FILE *f, double max, int x0, int y0, int h, const char *(*label)(char *, double))
{
	char b[HUMAN_MAX];

	for (int i = 0; i <= 4; i++) {
		int y = y0 + h - h * i / 4;

		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#e3e7ec\"/>", x0,
			y, CHART_W - 10, y);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", x0 - 6, y + 4,
			label(b, max * i / 4));
	}
}

static const char *label_rate(char *b, double v)
{
	char t[HUMAN_MAX];

	snprintf(b, HUMAN_MAX, "%s/s", human_bytes(t, clamp_u64(v)));
	return b;
}

const char *html_label_count(char *b, double v)
{
	return human_count(b, clamp_u64(v));
}

const char *html_label_ns(char *b, double v)
{
	return human_ns(b, clamp_u64(v));
}

void html_timeline_chart(FILE *f, const struct report_stats *st)
{
	const int x0 = 80, y0 = 10, w = CHART_W - x0 - 10, h = CHART_H - 40;
	double max = 0, scale = 1e9 / st->tl_width;
	uint64_t t0;
	uint32_t first, n;
	char b[HUMAN_MAX];

	rs_timeline_range(st, &first, &n);
	t0 = (uint64_t)first * st->tl_width;
	for (uint32_t i = first; i < first + n; i++) {
		if (st->tl_read[i] * scale > max)
			max = st->tl_read[i] * scale;
		if (st->tl_write[i] * scale > max)
			max = st->tl_write[i] * scale;
	}
	max = nice_max(max);
	fprintf(f,
		"<svg data-chart=\"timeline\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-label=\"bandwidth over time\">",
		CHART_W, CHART_H);
	axis_y(f, max, x0, y0, h, label_rate);
	/* bursts behind the lines */
	for (uint32_t k = 0; k < st->nbursts_kept; k++) {
		const struct rs_burst *bu = &st->top_bursts[k];
		double bx = x0 + (double)w * (double)(bu->start_ns > t0 ? bu->start_ns - t0 : 0) /
				     (n * (double)st->tl_width);
		double bw = (double)w * (bu->end_ns - bu->start_ns) / (n * (double)st->tl_width);

		if (bw < 2)
			bw = 2;
		fprintf(f,
			"<rect class=\"burst\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			"fill=\"#c23b3b\" fill-opacity=\"0.13\"><title>write burst: %s",
			bx, y0, bw, h, human_bytes(b, bu->bytes));
		fprintf(f, " in %s", human_ns(b, bu->end_ns - bu->start_ns));
		fprintf(f, ", blocked %s</title></rect>", human_ns(b, bu->blocked_ns));
	}
	for (int dir = 0; dir < 2; dir++) {
		const uint64_t *bins = (dir ? st->tl_write : st->tl_read) + first;

		fprintf(f, "<polyline fill=\"none\" stroke-width=\"1.6\" stroke=\"%s\" points=\"",
			dir ? "#d9822b" : "#2f74c0");
		for (uint32_t i = 0; i < n; i++)
			fprintf(f, "%.1f,%.1f ", x0 + (double)w * (i + 0.5) / n,
				y0 + h - h * (bins[i] * scale / max));
		fprintf(f, "\"/>");
		for (uint32_t i = 0; i < n; i++) {
			if (!bins[i])
				continue;
			fprintf(
			    f,
			    "<circle class=\"pt\" r=\"1.6\" cx=\"%.1f\" cy=\"%.1f\" fill=\"%s\">"
			    "<title>%s: ",
			    x0 + (double)w * (i + 0.5) / n, y0 + h - h * (bins[i] * scale / max),
			    dir ? "#d9822b" : "#2f74c0", dir ? "write" : "read");
			fprintf(f, "%s at ", label_rate(b, bins[i] * scale));
			fprintf(f, "%s</title></circle>", human_ns(b, i * st->tl_width));
		}
	}
	for (int i = 0; i <= 4; i++)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>",
			x0 + w * i / 4, CHART_H - 12,
			human_ns(b, clamp_u64((double)n * st->tl_width * i / 4)));
	fprintf(f, "</svg><div class=\"legend\"><span><i style=\"background:#2f74c0\"></i>read"
		   "</span><span><i style=\"background:#d9822b\"></i>write</span><span><i "
		   "style=\"background:#f3d6d6\"></i>write burst (checkpoint)</span></div>");
}

/* Grouped bars: one group per label, one bar per series. */
void html_bar_chart(FILE *f, const char *id, const char *const *labels, int ngroups,
		    const uint64_t *values, int nseries, const char *const *colors,
		    const char *const *series, const char *(*label)(char *, double))
{
	const int x0 = 80, y0 = 10, w = CHART_W - x0 - 10, h = CHART_H - 40;
	double max = 0, gw = (double)w / (ngroups ? ngroups : 1);
	char b[HUMAN_MAX];

	for (int i = 0; i < ngroups * nseries; i++)
		if (values[i] > max)
			max = values[i];
	max = nice_max(max);
	fprintf(f, "<svg data-chart=\"%s\" viewBox=\"0 0 %d %d\" role=\"img\">", id, CHART_W,
		CHART_H);
	axis_y(f, max, x0, y0, h, label);
	for (int g = 0; g < ngroups; g++) {
		for (int s = 0; s < nseries; s++) {
			uint64_t val = values[g * nseries + s];
			double bh = h * (val / max), bw = gw * 0.8 / nseries;
			double bx = x0 + g * gw + gw * 0.1 + s * bw;

			fprintf(f,
				"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"%s\"><title>",
				bx, y0 + h - bh, bw > 1 ? bw - 1 : bw, bh, colors[s]);
			esc(f, labels[g]);
			fprintf(f, " %s: %s</title></rect>", series[s], label(b, (double)val));
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x0 + (g + 0.5) * gw,
			CHART_H - 12);
		esc(f, labels[g]);
		fprintf(f, "</text>");
	}
	fprintf(f, "</svg><div class=\"legend\">");
	for (int s = 0; s < nseries; s++)
		fprintf(f, "<span><i style=\"background:%s\"></i>%s</span>", colors[s], series[s]);
	fprintf(f, "</div>");
}

#define STALL_BARS 200

/* Per step (or group of steps): the wait for the batch under the rest of the iteration. */
void html_stall_chart(FILE *f, const struct report_stats *st, uint32_t oi)
{
	const int x0 = 80, y0 = 10, w = CHART_W - x0 - 10, h = CHART_H - 40;
	struct rs_stall_bar bars[STALL_BARS];
	uint32_t n = rs_stall_bars(st, oi, bars, STALL_BARS);
	double max = 0, gw = (double)w / (n ? n : 1);
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], label[64];

	for (uint32_t k = 0; k < n; k++)
		if ((double)bars[k].iter_ns / bars[k].steps > max)
			max = (double)bars[k].iter_ns / bars[k].steps;
	max = nice_max(max);
	fprintf(f,
		"<svg data-chart=\"stall\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-label=\"data stall per step\">",
		CHART_W, CHART_H);
	axis_y(f, max, x0, y0, h, html_label_ns);
	for (uint32_t k = 0; k < n; k++) {
		double iter = (double)bars[k].iter_ns / bars[k].steps,
		       stall = (double)bars[k].stall_ns / bars[k].steps;
		double bw = gw * 0.8, bx = x0 + k * gw + gw * 0.1;
		double hs = h * stall / max, hi = h * iter / max;

		rs_step_label(st, &st->phases.steps[bars[k].first], label, sizeof(label));
		for (int part = 0; part < 2; part++) {
			double y = part ? y0 + h - hi : y0 + h - hs, bh = part ? hi - hs : hs;

			fprintf(f,
				"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"%s\"><title>",
				bx, y, bw > 1 ? bw - 1 : bw, bh > 0 ? bh : 0,
				part ? "#2f74c0" : "#d9822b");
			esc(f, label);
			if (bars[k].steps > 1)
				fprintf(f, " and the next %u (mean)", bars[k].steps - 1);
			fprintf(f, ": %s, %s waiting for the batch (%s)</title></rect>",
				human_ns(a, (uint64_t)iter), human_ns(b, (uint64_t)stall),
				human_pct(c, iter > 0 ? stall / iter : 0));
		}
	}
	for (int i = 0; i <= 4 && n; i++) {
		uint32_t k = i == 4 ? n - 1 : n * i / 4;

		rs_step_label(st, &st->phases.steps[bars[k].first], label, sizeof(label));
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x0 + (k + 0.5) * gw,
			CHART_H - 12);
		esc(f, label);
		fprintf(f, "</text>");
	}
	fprintf(f,
		"</svg><div class=\"legend\"><span><i style=\"background:#d9822b\"></i>"
		"waiting for the batch (data stall)</span><span><i style=\"background:#2f74c0"
		"\"></i>rest of the iteration (the step)</span>%s</div>",
		n && bars[0].steps > 1 ? "<span>bars: consecutive steps, mean</span>" : "");
}
