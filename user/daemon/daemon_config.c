// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "daemon/daemon_config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/trace_format.h"
#include "probe/probe_layers.h"

#define CONFIG_MAX_BYTES (1 << 20)

void config_defaults(struct daemon_config *c)
{
	memset(c, 0, sizeof(*c));
	/* Slurm on cgroup v2: .../job_<id> anywhere, e.g. below slurmstepd.scope */
	snprintf(c->patterns[0], sizeof(c->patterns[0]), "/system.slice/slurmstepd.scope/job_*");
	snprintf(c->patterns[1], sizeof(c->patterns[1]), "*/job_[0-9]*");
	c->npatterns = 2;
	snprintf(c->log_dir, sizeof(c->log_dir), "/var/log/dltrace");
	c->layers = layers_default();
	c->trace_format = CONFIG_TRACE_NONE; /* every job counted; a trace is asked for */
	c->max_trace_bytes = 4ull << 30;
	c->retention_days = 30;
	c->ring_bytes = 64ull << 20;
	c->idle_detach_s = 60;
	snprintf(c->socket, sizeof(c->socket), "/run/dltrace.sock");
	snprintf(c->metrics_listen, sizeof(c->metrics_listen), "%s", DEFAULT_METRICS_LISTEN);
}

/* v as one of n names: its index in *out; -1 with "KEY needs A, B or C" in why. */
static int parse_choice(const char *key, const char *v, const char *const *names, int n, int *out,
			char *why, size_t whylen)
{
	int len;

	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i])) {
			*out = i;
			return 0;
		}
	len = snprintf(why, whylen, "%s needs", key);
	for (int i = 0; i < n && len > 0 && (size_t)len < whylen; i++)
		len += snprintf(why + len, whylen - len, "%s%s",
				i == 0	     ? " "
				: i == n - 1 ? " or "
					     : ", ",
				names[i]);
	return -1;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_long(const char *v, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	return errno || end == v || *end || *out < min || *out > max ? -1 : 0;
}

static int set_key(struct daemon_config *c, const char *key, const char *v, bool *patterns_given,
		   char *why, size_t whylen)
{
	long n;

	if (!strcmp(key, "job_cgroup")) {
		if (!*patterns_given) {
			c->npatterns = 0; /* the file's patterns replace the defaults */
			*patterns_given = true;
		}
		if (c->npatterns == CONFIG_MAX_PATTERNS || strlen(v) >= sizeof(c->patterns[0]) ||
		    (v[0] != '/' && v[0] != '*')) {
			snprintf(why, whylen,
				 "job_cgroup needs a pattern starting with / or * "
				 "(at most %d patterns of 255 bytes)",
				 CONFIG_MAX_PATTERNS);
			return -1;
		}
		strcpy(c->patterns[c->npatterns++], v);
	} else if (!strcmp(key, "log_dir")) {
		if (v[0] != '/' || strlen(v) >= sizeof(c->log_dir)) {
			snprintf(why, whylen, "log_dir needs an absolute directory");
			return -1;
		}
		strcpy(c->log_dir, v);
	} else if (!strcmp(key, "layers")) {
		return layers_parse(v, &c->layers, why, whylen);
	} else if (!strcmp(key, "max_trace_mb")) {
		if (parse_long(v, 0, 1 << 30, &n))
			goto number;
		c->max_trace_bytes = (uint64_t)n << 20;
	} else if (!strcmp(key, "retention_days")) {
		if (parse_long(v, 0, 100000, &n))
			goto number;
		c->retention_days = n;
	} else if (!strcmp(key, "trace_format")) {
		/* the registry's formats, in the order of enum trace_format, then none */
		const char *names[TRACE_FORMAT_COUNT + 1];

		for (int f = 0; f < TRACE_FORMAT_COUNT; f++)
			names[f] = trace_format_name(f);
		names[TRACE_FORMAT_COUNT] = "none";
		if (parse_choice(key, v, names, TRACE_FORMAT_COUNT + 1, &c->trace_format, why,
				 whylen))
			return -1;
		if (c->trace_format == TRACE_FORMAT_COUNT)
			c->trace_format = CONFIG_TRACE_NONE;
	} else if (!strcmp(key, "python_stacks")) {
		/* in the order of enum daemon_python */
		static const char *const names[] = {"off", "on", "full"};

		return parse_choice(key, v, names, 3, &c->python_stacks, why, whylen);
	} else if (!strcmp(key, "gzip_level")) {
		if (parse_long(v, 1, 9, &n))
			goto number;
		c->gzip_level = n;
	} else if (!strcmp(key, "ring_size_mb")) {
		if (parse_long(v, 1, 4096, &n) || (n & (n - 1))) {
			snprintf(why, whylen, "ring_size_mb needs a power of two from 1 to 4096");
			return -1;
		}
		c->ring_bytes = (uint64_t)n << 20;
	} else if (!strcmp(key, "idle_detach_s")) {
		if (parse_long(v, -1, 86400, &n))
			goto number;
		c->idle_detach_s = n;
	} else if (!strcmp(key, "socket")) {
		if (v[0] != '/' || strlen(v) >= sizeof(c->socket)) {
			snprintf(why, whylen, "socket needs an absolute path of at most 107 bytes");
			return -1;
		}
		strcpy(c->socket, v);
	} else if (!strcmp(key, "metrics_listen")) {
		const char *colon = strrchr(v, ':');

		if (!strcmp(v, "off")) {
			c->metrics_listen[0] = '\0';
			return 0;
		}
		if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
		    atol(colon + 1) > 65535 || strlen(v) >= sizeof(c->metrics_listen)) {
			snprintf(why, whylen,
				 "metrics_listen needs HOST:PORT (e.g. 127.0.0.1:9477, [::1]:9477, "
				 "0.0.0.0:9477) or off");
			return -1;
		}
		strcpy(c->metrics_listen, v);
	} else {
		snprintf(why, whylen, "unknown key '%.64s'", key);
		return -1;
	}
	return 0;
number:
	snprintf(why, whylen, "%s: '%.64s' is not a valid number here", key, v);
	return -1;
}

int config_parse(struct daemon_config *c, const char *text, size_t len, char *err, size_t errlen)
{
	char line[2048], why[256];
	bool patterns_given = false, layers_given = false;
	size_t pos = 0;
	int lineno = 0;

	config_defaults(c);
	while (pos < len) {
		size_t end = pos;
		char *key, *value, *eq;

		while (end < len && text[end] != '\n')
			end++;
		lineno++;
		if (end - pos >= sizeof(line)) {
			snprintf(err, errlen, "line %d: too long", lineno);
			return -1;
		}
		if (memchr(text + pos, '\0', end - pos)) {
			snprintf(err, errlen, "line %d: NUL byte", lineno);
			return -1;
		}
		memcpy(line, text + pos, end - pos);
		line[end - pos] = '\0';
		pos = end + 1;
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, errlen, "line %d: expected 'key = value'", lineno);
			return -1;
		}
		*eq = '\0';
		value = trim(eq + 1);
		key = trim(key);
		layers_given |= !strcmp(key, "layers");
		if (set_key(c, key, value, &patterns_given, why, sizeof(why))) {
			snprintf(err, errlen, "line %d: %s", lineno, why);
			return -1;
		}
	}
	if (!c->npatterns) {
		snprintf(err, errlen, "no job_cgroup pattern");
		return -1;
	}
	if (!layers_given && c->trace_format == CONFIG_TRACE_NONE)
		c->layers = layers_default_counted();
	return 0;
}

int config_load(struct daemon_config *c, const char *path, char *err, size_t errlen)
{
	char *text = malloc(CONFIG_MAX_BYTES);
	ssize_t n, total = 0;
	int fd, rc;

	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		free(text);
		return -1;
	}
	while (total < CONFIG_MAX_BYTES &&
	       (n = read(fd, text + total, CONFIG_MAX_BYTES - total)) > 0)
		total += n;
	close(fd);
	if (total == CONFIG_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than 1 MiB", path);
		free(text);
		return -1;
	}
	rc = config_parse(c, text, total, err, errlen);
	if (rc) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s: %s", path, err);
		snprintf(err, errlen, "%s", msg);
	}
	free(text);
	return rc;
}

int config_job_of(const struct daemon_config *c, const char *rel, char *jobid, size_t size)
{
	const char *job, *d;
	size_t n;

	for (int i = 0; i < c->npatterns; i++) {
		if (fnmatch(c->patterns[i], rel, 0))
			continue;
		job = strrchr(rel, '/');
		job = job ? job + 1 : rel;
		d = strstr(job, "job_");
		d = d ? d + 4 : job;
		n = strspn(d, "0123456789");
		if (!n)
			continue;
		snprintf(jobid, size, "%.*s", (int)n, d);
		return 1;
	}
	return 0;
}
