#!/usr/bin/env python3
"""A dltrace JSON trace as the event list of tests/perfetto/pftrace_encode.c.

Usage: pftrace_events.py TRACE.json[.gz] OUT

Each JSON event becomes the writer call the event stream will make for it
(the mapping of format/perfetto/pftrace_writer.h): metadata and summary are
'M', process/thread names 'P'/'T', complete events 'X', async pairs 'A',
instants 'i', counters 'C', B/E spans 'B'/'E'.  Arguments keep their JSON
order; `path_hex` gives its path's exact bytes and is not an argument of
its own; `*_us` arguments are nanoseconds written as microseconds.
"""
import gzip
import json
import struct
import sys

U64, I64, STR, PATH, BOOL, DOUBLE, US, DICT, HEX = range(9)
PATH_KEYS = ('path', 'new_path', 'out_path', 'file')
HEX_KEYS = ('address', 'addr', 'user_data')


def load(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', encoding='utf-8', errors='surrogateescape') as f:
        return json.load(f)


def ns(us):
    """JSON microseconds (3 decimals) as integer nanoseconds."""
    return int(round(us * 1000))


def typed_args(args):
    """[(key, type, value)] of a JSON args object."""
    out = []
    args = args or {}
    for key, v in args.items():
        if key.endswith('_hex') and key[:-4] in args:
            continue
        if key + '_hex' in args:
            out.append((key, PATH, bytes.fromhex(args[key + '_hex'])))
        elif isinstance(v, bool):
            out.append((key, BOOL, v))
        elif isinstance(v, int):
            out.append((key, U64 if v >= 0 else I64, v))
        elif isinstance(v, float) and key.endswith('_us'):
            out.append((key, US, ns(v)))
        elif isinstance(v, float):
            out.append((key, DOUBLE, v))
        elif isinstance(v, dict):
            out.append((key, DICT, typed_args(v)))
        elif key in HEX_KEYS and isinstance(v, str) and v.startswith('0x'):
            out.append((key, HEX, int(v, 16)))
        elif key in PATH_KEYS:
            out.append((key, PATH, v.encode('utf-8', 'surrogateescape')))
        else:
            out.append((key, STR, str(v).encode('utf-8', 'surrogateescape')))
    return out


def put_str(out, b):
    if isinstance(b, str):
        b = b.encode('utf-8', 'surrogateescape')
    out += struct.pack('<I', len(b)) + b


def put_args(out, args):
    out += struct.pack('<H', len(args))
    for key, t, v in args:
        put_str(out, key)
        out += struct.pack('<B', t)
        if t in (U64, US, HEX):
            out += struct.pack('<Q', v)
        elif t == I64:
            out += struct.pack('<q', v)
        elif t in (STR, PATH):
            put_str(out, v)
        elif t == BOOL:
            out += struct.pack('<B', v)
        elif t == DOUBLE:
            out += struct.pack('<d', v)
        elif t == DICT:
            put_args(out, v)


def record(out, op, pid=0, tid=0, group=0, ts=0, dur=0, flow_out=0, flow_in=0, name='',
           cat='', args=(), eargs=None):
    out += struct.pack('<BIIIQQQQ', ord(op), pid, tid, group, ts, dur, flow_out, flow_in)
    put_str(out, name)
    put_str(out, cat)
    put_args(out, list(args))
    if op == 'A':
        put_args(out, list(eargs or ()))


def convert(events):
    out = bytearray()
    open_async = {}
    for e in events:
        ph, name = e.get('ph'), e.get('name', '')
        pid, tid = e.get('pid', 0), e.get('tid', 0)
        args = e.get('args')
        if ph == 'M' and name in ('dltrace', 'dltrace_summary'):
            ts = 0 if name == 'dltrace' else args.get('duration_ns', 0)
            record(out, 'M', ts=ts, name=name, args=typed_args(args))
        elif ph == 'M' and name == 'process_name':
            record(out, 'P', pid=pid, tid=tid, name=args['name'])
        elif ph == 'M' and name == 'thread_name':
            record(out, 'T', pid=pid, tid=tid, name=args['name'])
        elif ph == 'X':
            flow = e.get('bind_id', 0)
            record(out, 'X', pid, tid, ts=ns(e['ts']), dur=ns(e.get('dur', 0)),
                   flow_out=flow if e.get('flow_out') else 0,
                   flow_in=flow if e.get('flow_in') else 0, name=name, cat=e.get('cat', ''),
                   args=typed_args(args))
        elif ph in ('B', 'E', 'i'):
            record(out, ph, pid, tid, ts=ns(e['ts']), name=name, cat=e.get('cat', ''),
                   args=typed_args(args))
        elif ph == 'C':
            record(out, 'C', pid, tid, ts=ns(e['ts']), name=name, args=typed_args(args))
        elif ph == 'b':
            open_async[(pid, name, e['id2']['local'])] = e
        elif ph == 'e':
            b = open_async.pop((pid, name, e['id2']['local']))
            record(out, 'A', b['pid'], b['tid'], pid, ts=ns(b['ts']),
                   dur=ns(e['ts']) - ns(b['ts']), name=name, cat=b.get('cat', ''),
                   args=typed_args(b.get('args')), eargs=typed_args(args))
        else:
            raise ValueError('no mapping for event %r' % e)
    return bytes(out)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[2], 'wb') as f:
        f.write(convert(load(argv[1])))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
