"""Traces written by hand, in the form dltrace writes them (one event a line,
the metadata first and the summary last, ts and dur in microseconds with
nanosecond decimals), so that every figure of a report on them is known:
times are given in nanoseconds and written exactly."""
import json

START_WALL_NS = 1700000000000000000


def us(ns):
    """ns as the microseconds a trace writes (three decimals, exact)."""
    return ns / 1000


class Trace:
    def __init__(self, hostname='node1', target='command python3 train.py', layers='syscall'):
        self.events = [{'name': 'dltrace', 'ph': 'M', 'pid': 0, 'tid': 0, 'args': {
            'format': 'dltrace-chrome-1', 'version': '0.1.0', 'kernel': '6.1.0',
            'hostname': hostname, 'target': target, 'layers': layers,
            'clock': 'CLOCK_MONOTONIC', 'start_mono_ns': 5000000000,
            'start_wall_ns': START_WALL_NS, 'start_wall': '2023-11-14T22:13:20.000000000Z',
            'tracer_pid': 1}}]
        self.names = []

    def call(self, name, cat, pid, tid, ts, dur, **args):
        """A syscall slice: ts and dur in ns; args in dltrace's order (ret first)."""
        self.events.append({'name': name, 'cat': cat, 'ph': 'X', 'ts': us(ts), 'pid': pid,
                            'tid': tid, 'dur': us(dur), 'args': args})

    def fork(self, pid, tid, child, ts, thread=False):
        """Both sides of a fork (thread=False) or a thread's creation, at ts ns."""
        flow = len(self.events)
        kind = ('thread_create', 'child_tid') if thread else ('fork', 'child_pid')
        self.events.append({'name': kind[0], 'cat': 'process', 'ph': 'X', 'ts': us(ts),
                            'pid': pid, 'tid': tid, 'dur': 0.0, 'bind_id': flow,
                            'flow_out': True, 'args': {kind[1]: child}})
        start, arg = ('thread_start', {'creator_tid': tid}) if thread else \
            ('process_start', {'parent_pid': pid})
        self.events.append({'name': start, 'cat': 'process', 'ph': 'X', 'ts': us(ts),
                            'pid': pid if thread else child, 'tid': child, 'dur': 0.0,
                            'bind_id': flow, 'flow_in': True, 'args': arg})

    def exit(self, pid, tid, ts, process=True, code=0):
        self.events.append({'name': 'process_exit' if process else 'thread_exit',
                            'cat': 'process', 'ph': 'i', 'ts': us(ts), 'pid': pid, 'tid': tid,
                            's': 't', 'args': {'exit_code': code}})

    def marker(self, name, pid, tid, ts, dur, **args):
        """A marked region (dltrace markers: cat "marker"), as one slice."""
        self.events.append({'name': name, 'cat': 'marker', 'ph': 'X', 'ts': us(ts),
                            'pid': pid, 'tid': tid, 'dur': us(dur), 'args': args})

    def process_name(self, pid, name):
        self.names.append({'name': 'process_name', 'ph': 'M', 'pid': pid, 'tid': pid,
                           'args': {'name': name}})

    def thread_name(self, pid, tid, name):
        self.names.append({'name': 'thread_name', 'ph': 'M', 'pid': pid, 'tid': tid,
                           'args': {'name': name}})

    def write(self, path, duration_ns, stop_reason='target exited', **summary):
        """The file: the events, the names, and a summary that counts them all."""
        events = self.events + self.names
        end = {'events': len(events) + 1, 'lost_events': 0, 'lost_bytes': 0,
               'duration_ns': duration_ns, 'end_wall_ns': START_WALL_NS + duration_ns,
               'stop_reason': stop_reason}
        end.update(summary)
        events.append({'name': 'dltrace_summary', 'ph': 'M', 'pid': 0, 'tid': 0, 'args': end})
        with open(path, 'w', encoding='utf-8') as f:
            f.write('[' + '\n,'.join(json.dumps(e, separators=(',', ':')) for e in events) +
                    '\n]\n')
        return path
