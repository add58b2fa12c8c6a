// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dltrace report --html FILE`: the report as one self-contained page
 * (inline CSS, SVG charts drawn by dltrace, a little JavaScript to sort tables);
 * it loads nothing from the network.  Every chart is an <svg> with a
 * data-chart attribute and one element per data point (class "bar", "pt"
 * or "burst"), so that tests can check that it rendered.
 *
 * This file is the page's frame: head, CSS, script and the order of the
 * sections; the sections and charts are in report_html_*.c.
 */
#include "lib/human_format.h"
#include "report/render/report_html_internal.h"

static const char *css =
    ":root{--fg:#1d232b;--mut:#5d6875;--bg:#f6f7f9;--card:#fff;--line:#dde2e8;"
    "--read:#2f74c0;--write:#d9822b;--meta:#8a63c8;--sync:#c23b3b;--high:#c62828;"
    "--warn:#b26a00;--info:#1f7a8c;--ok:#2e7d32}"
    "*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe "
    "UI',Roboto,sans-serif;color:var(--fg);background:var(--bg)}"
    "header{background:#1d232b;color:#fff;padding:18px 28px}header h1{margin:0;font-size:"
    "20px}header p{margin:4px 0 0;color:#c9d1da;font-size:13px}"
    "main{max-width:1200px;margin:0 auto;padding:18px 28px 60px}"
    "section{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "padding:14px 18px;margin:16px 0}h2{font-size:16px;margin:0 0 10px}"
    "h3{font-size:14px;margin:14px 0 6px;color:var(--mut)}"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px}"
    ".card{border:1px solid var(--line);border-radius:6px;padding:8px 10px}"
    ".card b{display:block;font-size:18px}.card span{color:var(--mut);font-size:12px}"
    ".finding{border-left:5px solid var(--info);padding:8px 12px;margin:10px 0;"
    "background:#fafbfc;border-radius:4px}.finding.high{border-color:var(--high)}"
    ".finding.warn{border-color:var(--warn)}.finding h3{margin:0;color:var(--fg)}"
    ".lvl{display:inline-block;font-size:11px;font-weight:700;color:#fff;border-radius:3px;"
    "padding:1px 6px;margin-right:6px;background:var(--info)}.high .lvl{background:"
    "var(--high)}.warn .lvl{background:var(--warn)}.rule{color:var(--mut);font-size:12px}"
    ".rec{background:#eef6ee;border-radius:4px;padding:6px 8px;margin-top:6px}"
    ".ok{color:var(--ok)}.warnline{color:var(--warn)}"
    "table{border-collapse:collapse;width:100%;font-size:12.5px}"
    "th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:right;"
    "white-space:nowrap}th{cursor:pointer;color:var(--mut);font-weight:600;user-select:none}"
    "th:hover{color:var(--fg)}td.l,th.l{text-align:left}td.path{max-width:420px;overflow:"
    "hidden;text-overflow:ellipsis;text-align:left}"
    ".scroll{overflow-x:auto}svg{width:100%;height:auto;display:block}"
    "svg text{font:11px system-ui,sans-serif;fill:var(--mut)}"
    ".legend span{display:inline-block;margin-right:14px;font-size:12px}"
    ".legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}"
    "footer{color:var(--mut);font-size:12px;text-align:center;margin-top:20px}";

static const char *script =
    "(function(){'use strict';"
    "function val(td){var v=td.getAttribute('data-v');return v===null?td.textContent:"
    "parseFloat(v);}"
    "document.querySelectorAll('table.sortable').forEach(function(t){"
    "t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){"
    "var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows),"
    "asc=th.getAttribute('data-asc')!=='1';th.setAttribute('data-asc',asc?'1':'0');"
    "rows.sort(function(a,b){var x=val(a.cells[i]),y=val(b.cells[i]);"
    "if(typeof x==='number'&&typeof y==='number')return asc?x-y:y-x;"
    "return asc?String(x).localeCompare(String(y)):String(y).localeCompare(String(x));});"
    "rows.forEach(function(r){tb.appendChild(r);});});});});"
    "var n=document.querySelectorAll('svg[data-chart]').length;"
    "document.body.setAttribute('data-charts',String(n));"
    "document.body.setAttribute('data-ready','1');})();";

void report_html(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	char a[HUMAN_MAX];

	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
		"<title>dltrace report</title><style>%s</style></head><body>\n",
		css);
	fprintf(f, "<header><h1>dltrace report</h1><p>");
	for (uint32_t t = 0; t < st->ntraces && t < 4; t++) {
		esc_id(f, st, st->traces[t].target);
		fprintf(f, " &middot; ");
		esc_id(f, st, st->traces[t].hostname);
		fprintf(f, "%s", t + 1 < st->ntraces ? "<br>" : "");
	}
	fprintf(f, " &middot; wall %s</p></header><main>\n", human_ns(a, st->wall_ns));
	html_summary(f, v);
	html_findings(f, v);
	report_gpu_html(f, st, v->top); /* with a profiler trace (report_gpu.c) */
	html_phases(f, v);
	html_timeline(f, v);
	html_time_section(f, v);
	html_application(f, v);
	html_files(f, v);
	html_balance(f, v);
	html_levels(f, v);
	html_python_locations(f, v);
	html_environment(f, v);
	fprintf(f, "<footer>");
	esc(f, v->generator);
	fprintf(f,
		" &middot; times are of the file system calls seen by the kernel; application "
		"figures exclude environment I/O</footer></main><script>%s</script></body></html>"
		"\n",
		script);
}
