#!/usr/bin/env python3
"""Strict checker for Chrome-trace JSON as Perfetto's JSON importer reads it.

Rules (from Perfetto's json trace tokenizer/parser and slice tracker):
  * the file, after leading whitespace, starts with '[{"' (array form);
  * it is valid UTF-8 and valid JSON, with no \\uD800-\\uDFFF escapes
    (Perfetto rejects the whole file on a surrogate escape) and no raw
    control characters inside strings;
  * every event has a non-empty string 'ph' and integer pid/tid >= 0;
  * non-metadata events have a numeric ts >= 0 (a negative ts is dropped);
  * 'X' events have a numeric dur >= 0;
  * 'X' slices on one thread nest: none starts inside another and ends
    after it (Perfetto drops such slices);
  * instant scopes are g, p or t; async 'b'/'e' carry cat and id/id2 and
    pair up; counters carry numeric args; process/thread names are
    non-empty strings; v2 flows carry bind_id with flow_in/flow_out.
dltrace's own conventions are checked too: the first event is the
'dltrace' metadata event and the last one the 'dltrace_summary'.

Usage: trace_validator.py TRACE [TRACE...]   (plain or .gz)
"""
import gzip
import json
import sys
from collections import defaultdict


def read_bytes(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return data


def surrogate_escapes(text):
    """Positions of \\uD800-\\uDFFF escapes (a backslash that is itself escaped does not count)."""
    found = []
    i = text.find('\\')
    while i != -1:
        nxt = text[i + 1:i + 2]
        if nxt == 'u':
            hexpart = text[i + 2:i + 6]
            if len(hexpart) == 4 and hexpart[0] in 'dD' and hexpart[1] in '89abcdefABCDEF':
                found.append(i)
            i = text.find('\\', i + 6)
        else:
            i = text.find('\\', i + 2)
    return found


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool))


def ns(v):
    return int(round(v * 1000))


def validate_events(events, errors, dltrace=True):
    if not isinstance(events, list):
        errors.append('top level is not an array')
        return
    slices = defaultdict(list)
    async_open = defaultdict(int)
    for n, ev in enumerate(events):
        where = 'event %d' % n
        if not isinstance(ev, dict):
            errors.append('%s: not an object' % where)
            continue
        ph = ev.get('ph')
        if not isinstance(ph, str) or not ph:
            errors.append('%s: missing ph' % where)
            continue
        for key in ('pid', 'tid'):
            if key in ev and not (is_int(ev[key]) and ev[key] >= 0):
                errors.append('%s: %s must be an integer >= 0: %r' % (where, key, ev[key]))
        if 'pid' not in ev:
            errors.append('%s: no pid' % where)
        if ph != 'M':
            ts = ev.get('ts')
            if not is_num(ts) or ts < 0:
                errors.append('%s: ts must be a number >= 0: %r' % (where, ts))
                continue
            if 'tid' not in ev and ph not in ('C', 'b', 'e', 'n'):
                errors.append('%s: no tid' % where)
        if 'dur' in ev and not (is_num(ev['dur']) and ev['dur'] >= 0):
            errors.append('%s: dur must be a number >= 0: %r' % (where, ev['dur']))
        if not isinstance(ev.get('name', ''), str):
            errors.append('%s: name must be a string' % where)
        if 'args' in ev and not isinstance(ev['args'], dict):
            errors.append('%s: args must be an object' % where)
        if ph == 'X':
            if 'dur' not in ev:
                errors.append('%s: X without dur' % where)
                continue
            slices[(ev['pid'], ev.get('tid'))].append((ns(ev['ts']), ns(ev['dur']), n))
        elif ph in ('i', 'I'):
            if ev.get('s', 't') not in ('g', 'p', 't'):
                errors.append('%s: bad instant scope %r' % (where, ev.get('s')))
        elif ph in ('b', 'e', 'n'):
            ident = ev.get('id')
            if ident is None and isinstance(ev.get('id2'), dict):
                ident = ev['id2'].get('local', ev['id2'].get('global'))
            if ident is None:
                errors.append('%s: async event without id/id2' % where)
            if not ev.get('cat'):
                errors.append('%s: async event without cat' % where)
            key = (ev['pid'], ev.get('cat'), json.dumps(ident))
            if ph == 'b':
                async_open[key] += 1
            elif ph == 'e':
                if async_open[key] <= 0:
                    errors.append('%s: async end without begin' % where)
                else:
                    async_open[key] -= 1
        elif ph == 'C':
            args = ev.get('args')
            if not isinstance(args, dict) or not args or \
                    not all(is_num(v) for v in args.values()):
                errors.append('%s: counter needs numeric args' % where)
        elif ph == 'M':
            if ev.get('name') in ('process_name', 'thread_name'):
                name = (ev.get('args') or {}).get('name')
                if not isinstance(name, str) or not name:
                    errors.append('%s: %s needs a non-empty args.name' % (where, ev['name']))
        if 'bind_id' in ev:
            if ph not in ('X', 'B', 'b', 'n'):
                errors.append('%s: bind_id on a %s event' % (where, ph))
            if not (ev.get('flow_in') is True or ev.get('flow_out') is True):
                errors.append('%s: bind_id without flow_in/flow_out' % where)
    for track, items in slices.items():
        items.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for start, dur, n in items:
            end = start + dur
            while stack and stack[-1][0] <= start:
                stack.pop()
            if stack and end > stack[-1][0]:
                errors.append('event %d: X slice on %r partially overlaps event %d' %
                              (n, track, stack[-1][1]))
            stack.append((end, n))
    if dltrace:
        if not events or events[0].get('name') != 'dltrace' or events[0].get('ph') != 'M':
            errors.append('first event is not the dltrace metadata event')
        if not events or events[-1].get('name') != 'dltrace_summary':
            errors.append('last event is not the dltrace_summary event')


def validate_bytes(data, dltrace=True):
    """Returns (events or None, [errors])."""
    errors = []
    if not data.lstrip()[:3] == b'[{"':
        errors.append('does not start with [{" (Perfetto will not detect it as JSON)')
    try:
        text = data.decode('utf-8', errors='strict')
    except UnicodeDecodeError as e:
        errors.append('not valid UTF-8: %s' % e)
        return None, errors
    for pos in surrogate_escapes(text)[:5]:
        errors.append('surrogate escape at byte %d: %r' % (pos, text[pos:pos + 6]))
    try:
        events = json.loads(text, strict=True)
    except ValueError as e:
        errors.append('invalid JSON: %s' % e)
        return None, errors
    validate_events(events, errors, dltrace)
    return events, errors


def validate_file(path, dltrace=True):
    return validate_bytes(read_bytes(path), dltrace)


def main(argv):
    bad = 0
    for path in argv[1:]:
        events, errors = validate_file(path)
        for e in errors[:20]:
            print('%s: %s' % (path, e))
        if errors:
            bad += 1
        else:
            print('%s: ok, %d events' % (path, len(events)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
