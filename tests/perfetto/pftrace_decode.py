#!/usr/bin/env python3
"""Decode a dltrace .pftrace with Debian's protoc, into comparable events.

decode(path) runs `protoc --decode=dltrace.pftrace.Trace` against
tests/perfetto/dltrace_trace.proto and rebuilds the events the way
Perfetto's trace processor reads them: per packet sequence the interned
strings, the default track and the incremental clock; slices from
SLICE_BEGIN/SLICE_END pairs on a track.  It also fails when the file holds a field
the .proto does not declare: protoc --decode prints those as bare numbers,
and every field number of `--decode_raw`'s tree, walked along the declared
messages, must be declared.

canonical_json(events) turns the events of a dltrace JSON trace into the
same canonical form, for a field-by-field comparison.
"""
import re
import subprocess
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(HERE, 'dltrace_trace.proto')

ESCAPES = {'n': 10, 'r': 13, 't': 9, '"': 34, "'": 39, '\\': 92, 'a': 7, 'b': 8, 'f': 12,
           'v': 11, '?': 63}


def unescape(s):
    """Bytes of a protoc text-format string body (C escapes, octal, hex)."""
    out = bytearray()
    raw = s.encode('utf-8')
    i = 0
    while i < len(raw):
        c = raw[i]
        if c != 92:
            out.append(c)
            i += 1
            continue
        n = chr(raw[i + 1])
        if n in '01234567':
            j = i + 1
            while j < i + 4 and j < len(raw) and chr(raw[j]) in '01234567':
                j += 1
            out.append(int(raw[i + 1:j], 8))
            i = j
        elif n == 'x':
            j = i + 2
            while j < len(raw) and chr(raw[j]) in '0123456789abcdefABCDEF' and j < i + 4:
                j += 1
            out.append(int(raw[i + 2:j], 16))
            i = j
        else:
            out.append(ESCAPES[n])
            i += 2
    return bytes(out)


def parse_value(value):
    if value[0] == '"':
        body = value[1:-1]
        return unescape(body) if '\\' in body else body.encode('utf-8')
    if value == 'true' or value == 'false':
        return value == 'true'
    if value.startswith('0x'):
        return int(value, 16)
    try:
        return int(value)
    except ValueError:
        return float(value)


def parse_text(text):
    """protoc's text format as nested dicts: field -> list of values."""
    root = {}
    stack = [root]
    top = root
    for line in text.splitlines():
        line = line.strip()
        if line == '}':
            stack.pop()
            top = stack[-1]
        elif line.endswith('{'):
            child = {}
            top.setdefault(line[:-2], []).append(child)
            stack.append(child)
            top = child
        elif line:
            key, _, value = line.partition(': ')
            top.setdefault(key, []).append(parse_value(value))
    return root


def proto_schema(path=PROTO):
    """{message: {field number: message type or None}} of a simple proto2 file."""
    schema, stack = {}, []
    for line in open(path):
        line = line.split('//')[0].strip()
        m = re.match(r'message (\w+) \{', line)
        if m:
            stack.append(m.group(1))
            schema.setdefault(m.group(1), {})
            if line.endswith('}'):
                stack.pop()
            continue
        m = re.match(r'(?:optional|repeated) (\w+) \w+ = (\d+);', line)
        if m:
            schema[stack[-1]][int(m.group(2))] = m.group(1)
        elif line == '}':
            stack.pop()
    return {msg: {n: (t if t in schema else None) for n, t in fields.items()}
            for msg, fields in schema.items()}


def check_raw(node, msg, schema, where):
    """Every field of a --decode_raw tree is declared (bytes fields not entered)."""
    for key, values in node.items():
        number = int(key)
        if number not in schema[msg]:
            raise AssertionError('%s: field %d of %s is not in the .proto' % (where, number, msg))
        sub = schema[msg][number]
        for v in values:
            if sub and isinstance(v, dict):
                check_raw(v, sub, schema, where)
            elif sub and v != b'':  # an empty message shows as ""
                raise AssertionError('%s: field %d of %s is not a message' % (where, number, msg))


def protoc(args, data):
    res = subprocess.run(['protoc'] + args, input=data, capture_output=True)
    if res.returncode:
        raise AssertionError('protoc %s failed: %s' % (' '.join(args), res.stderr.decode()))
    return res.stdout.decode('utf-8')


def decode_text(path, proto=PROTO, message='dltrace.pftrace.Trace'):
    """(text of --decode, text of --decode_raw); fails on undeclared fields."""
    with open(path, 'rb') as f:
        data = f.read()
    if path.endswith('.gz'):
        import gzip
        data = gzip.decompress(data)
    text = protoc(['-I', os.path.dirname(proto), '--decode=' + message,
                   os.path.basename(proto)], data)
    raw = protoc(['--decode_raw'], data)
    unknown = [l for l in text.splitlines() if re.match(r'\s*\d+[:\s{]', l)]
    if unknown:
        raise AssertionError('%s: fields %s declares not: %s' % (path, proto, unknown[:5]))
    if proto == PROTO:
        check_raw(parse_text(raw), 'Trace', proto_schema(proto), path)
    return text, raw


def one(msg, key, default=None):
    v = msg.get(key)
    return v[0] if v else default


def arg_value(a, strings, names):
    key = names[a['name_iid'][0]] if 'name_iid' in a else one(a, 'name')
    if 'dict_entries' in a:
        return key, dict(arg_value(e, strings, names) for e in a['dict_entries'])
    for field in ('bool_value', 'uint_value', 'int_value', 'double_value', 'string_value',
                  'pointer_value'):
        if field in a:
            v = a[field][0]
            if field == 'pointer_value':  # the JSON's hex text
                v = b'0x%x' % v
            if field == 'double_value':  # protoc prints 370.0 as 370
                v = float(v)
            break
    else:
        v = strings[a['string_value_iid'][0]]
    if key.endswith(b'_us') and isinstance(v, float):
        v = int(round(v * 1000))
    return key, v


def events(path):
    """The events of a .pftrace, as canonical tuples (see canonical_json)."""
    text, _ = decode_text(path)
    trace = parse_text(text)
    seqs, tracks, out = {}, {}, []
    open_slices = {}
    start_mono = 0
    for p in trace.get('packet', []):
        sid = one(p, 'sequence_id', 0)
        seq = seqs.setdefault(sid, {'ts': 0, 'track': 0, 'interned': {}})
        flags = one(p, 'sequence_flags', 0)
        if flags & 1:
            seq['interned'] = {}
        for d in p.get('defaults', []):
            assert one(d, 'timestamp_clock_id') == 64
            seq['track'] = one(one(d, 'track_event_defaults'), 'track_uuid')
        for c in p.get('clock_snapshot', []):
            clocks = {one(clk, 'clock_id'): one(clk, 'timestamp') for clk in c['clocks']}
            for clk in c['clocks']:
                if one(clk, 'clock_id') == 64:
                    assert one(clk, 'is_incremental')
                    seq['ts'] = one(clk, 'timestamp')
            if 3 in clocks and 64 in clocks:
                start_mono = clocks[3] - clocks[64]
        for i in p.get('interned', []):
            for kind, entries in i.items():
                table = seq['interned'].setdefault(kind, {})
                for e in entries:
                    table[one(e, 'iid')] = one(e, 'name', b'')
        if 'timestamp' in p and one(p, 'timestamp_clock_id') == 3:
            ts = one(p, 'timestamp') - start_mono  # absolute: the summary
        else:
            if 'timestamp' in p:
                seq['ts'] = (seq['ts'] + one(p, 'timestamp')) % (1 << 64)
            ts = seq['ts']
        for t in p.get('track_descriptor', []):
            uuid = one(t, 'uuid')
            old = tracks.get(uuid, {})
            if 'process' in t:
                pr = one(t, 'process')
                tracks[uuid] = {'kind': 'process', 'pid': one(pr, 'pid')}
                if 'process_name' in pr:
                    out.append(('P', one(pr, 'pid'), one(pr, 'process_name'),
                                frozenset(pr.get('process_labels', []))))
            elif 'thread' in t:
                th = one(t, 'thread')
                tracks[uuid] = {'kind': 'thread', 'pid': one(th, 'pid'), 'tid': one(th, 'tid')}
                if 'thread_name' in th:
                    out.append(('T', one(th, 'pid'), one(th, 'tid'), one(th, 'thread_name')))
            elif 'parent_uuid' not in t:
                tracks[uuid] = {'kind': 'meta', 'name': one(t, 'name')}
            else:
                parent = tracks[one(t, 'parent_uuid')]
                tracks[uuid] = {'kind': 'counter' if 'counter' in t else 'lane',
                                'pid': parent['pid'], 'name': one(t, 'name')}
            assert not old or old['kind'] == tracks[uuid]['kind']
        for ev in p.get('track_event', []):
            interned = seq['interned']
            names = interned.get('debug_annotation_names', {})
            strings = interned.get('debug_annotation_string_values', {})
            track = one(ev, 'track_uuid', seq['track'])
            typ = one(ev, 'type')
            name = (interned['event_names'][one(ev, 'name_iid')] if 'name_iid' in ev
                    else one(ev, 'name'))
            cats = [interned['event_categories'][c] for c in ev.get('category_iids', [])]
            cat = cats[0] if cats else one(ev, 'categories', b'')
            args = dict(arg_value(a, strings, names) for a in ev.get('debug_annotations', []))
            info = tracks.get(track, {'kind': 'meta'})
            if typ == 4:
                values = [float(v) for v in [one(ev, 'double_counter_value')] +
                          ev.get('extra_double_counter_values', [])]
                uuids = [track] + ev.get('extra_double_counter_track_uuids', [])
                vals = {}
                for u, v in zip(uuids, values):
                    cname, _, key = tracks[u]['name'].rpartition(b' ')
                    vals[key] = v
                out.append(('C', info['pid'], cname, ts, frozen(vals)))
            elif typ == 1:
                open_slices.setdefault(track, []).append(
                    (ts, name, cat, args, ev.get('flow_ids', []), ev.get('terminating_flow_ids',
                                                                          [])))
            elif typ == 2:
                bts, bname, bcat, bargs, fout, fin = open_slices[track].pop()
                if info['kind'] == 'lane':
                    out.append(('A', info['pid'], bname, bcat, bts, ts - bts, frozen(bargs),
                                frozen(args)))
                else:
                    bargs.update(args)
                    out.append(('X', info['pid'], info['tid'], bname, bcat, bts, ts - bts,
                                frozen(bargs), tuple(fout), tuple(fin)))
            elif typ == 3 and info['kind'] == 'meta':
                out.append(('M', name, frozen(args)))
            elif typ == 3:
                out.append(('i', info['pid'], info['tid'], name, cat, ts, frozen(args)))
    assert not any(open_slices.values()), 'slices left open'
    return out


def frozen(d):
    return tuple(sorted((k, frozen(v) if isinstance(v, dict) else v) for k, v in d.items()))


def b(s):
    return s.encode('utf-8', 'surrogateescape') if isinstance(s, str) else s


def json_args(args):
    out = {}
    args = args or {}
    for key, v in args.items():
        if key.endswith('_hex') and key[:-4] in args:
            continue
        if key + '_hex' in args:
            v = bytes.fromhex(args[key + '_hex'])
        elif isinstance(v, dict):
            v = json_args(v)
        elif isinstance(v, str):
            v = b(v)
        elif isinstance(v, float) and key.endswith('_us'):
            v = int(round(v * 1000))
        out[b(key)] = v
    return {k: v for k, v in out.items()}


def ns(us):
    return int(round(us * 1000))


def canonical_json(events):
    """The events of a dltrace JSON trace in the form events() gives."""
    out, pending = [], {}
    for e in events:
        ph, name = e.get('ph'), b(e.get('name', ''))
        pid, tid = e.get('pid', 0), e.get('tid', 0)
        args = json_args(e.get('args'))
        cat = b(e.get('cat', ''))
        if ph == 'M' and name in (b'dltrace', b'dltrace_summary'):
            out.append(('M', name, frozen(args)))
        elif ph == 'M' and name == b'process_name':
            # the ranks are the .pftrace's process labels, "rank=3"
            labels = frozenset(k + b'=' + (v if isinstance(v, bytes) else b'%d' % v)
                               for k, v in args.items() if k != b'name')
            out.append(('P', pid, args[b'name'], labels))
        elif ph == 'M' and name == b'thread_name':
            out.append(('T', pid, tid, args[b'name']))
        elif ph == 'X':
            flow = e.get('bind_id')
            out.append(('X', pid, tid, name, cat, ns(e['ts']), ns(e.get('dur', 0)),
                        frozen(args), (flow,) if e.get('flow_out') else (),
                        (flow,) if e.get('flow_in') else ()))
        elif ph == 'i':
            out.append(('i', pid, tid, name, cat, ns(e['ts']), frozen(args)))
        elif ph == 'C':
            out.append(('C', pid, name, ns(e['ts']),
                        frozen({k: float(v) for k, v in args.items()})))
        elif ph == 'b':
            pending[(pid, name, e['id2']['local'])] = (ns(e['ts']), cat, args)
        elif ph == 'e':
            bts, bcat, bargs = pending.pop((pid, name, e['id2']['local']))
            out.append(('A', pid, name, bcat, bts, ns(e['ts']) - bts, frozen(bargs),
                        frozen(args)))
        else:
            raise ValueError('no canonical form for %r' % e)
    return out
