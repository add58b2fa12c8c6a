"""What dltrace writes: valid JSON for Perfetto whatever the file names, gzip,
standard output, and files that are private to the user who asked."""
import gzip
import json
import os
import pwd
import stat
import subprocess
import unittest

from dltrace_harness import (DLTRACE, PYTHON, TESTS, TraceTest, helper, io_events, load_trace,
                             trace_validator, workload)

WEIRD = os.path.join(TESTS, 'workloads', 'weird_names.py')


def path_bytes(args, key='path'):
    """The exact bytes of a path argument: the hex form when not UTF-8."""
    if key + '_hex' in args:
        return bytes.fromhex(args[key + '_hex'])
    return args[key].encode('utf-8')


class FileNameTest(TraceTest):
    def test_hostile_names_are_escaped_and_recoverable(self):
        res, events = self.trace_command([PYTHON, WEIRD, self.dir])
        expected = [bytes.fromhex(h) for h in json.loads(res.stdout)['names']]
        opened = [path_bytes(e['args']) for e in io_events(events)
                  if e['name'] == 'openat' and e['args'].get('ret', -1) >= 0 and
                  path_bytes(e['args']).startswith(os.fsencode(self.dir) + b'/')]
        # each name is opened twice (create, then read) and comes back byte for byte
        self.assertEqual(opened, [p for p in expected for _ in range(2)])
        reads = [e for e in io_events(events) if e['name'] == 'read' and
                 path_bytes(e['args']) in expected]
        self.assertEqual(len(reads), len(expected))
        # the raw file has no surrogate escapes and is strict UTF-8 JSON
        with open(self.path('trace.json'), 'rb') as f:
            raw = f.read()
        self.assertEqual(trace_validator.surrogate_escapes(raw.decode('utf-8')), [])
        # names that are valid UTF-8 are shown as they are, without a hex copy
        euro = next(e for e in reads if b'euro' in path_bytes(e['args']))
        self.assertNotIn('path_hex', euro['args'])
        self.assertIn('\u20ac-euro-and-\U0001F600-emoji', euro['args']['path'])
        bad = next(e for e in reads if b'invalid-' in path_bytes(e['args']))
        self.assertIn('\ufffd', bad['args']['path'])

    def test_command_lines_keep_every_byte(self):
        """A command line that is not UTF-8: its exact bytes in cmdline_hex, name_hex,
        target_hex; read back and written again byte for byte; merged with the host prefix."""
        arg = bytes(range(1, 256))
        res, events = self.trace_command([b'/bin/true', arg])
        line = b'/bin/true ' + arg
        execs = [e for e in events if e['name'] == 'exec' and e['args']['file'] == '/bin/true']
        self.assertEqual([path_bytes(e['args'], 'cmdline') for e in execs], [line])
        self.assertIn('\ufffd', execs[0]['args']['cmdline'])
        pid = execs[0]['pid']
        names = [path_bytes(e['args'], 'name') for e in events
                 if e['name'] == 'process_name' and e['pid'] == pid]
        self.assertEqual(names, [line])
        self.assertEqual(path_bytes(events[0]['args'], 'target'), b'command ' + line)
        # names that are UTF-8 have no hex copy
        self.assertFalse([e for e in events if e['name'] == 'thread_name' and
                          'name_hex' in e['args']])
        trace = self.path('trace.json')
        again = subprocess.run([helper('trace_rewrite'), trace],
                               capture_output=True, check=True).stdout
        with open(trace, 'rb') as f:
            self.assertEqual(again, f.read())
        merged = self.path('merged.json')
        subprocess.run([DLTRACE, 'merge', '-o', merged, trace], capture_output=True, check=True)
        merged_events = load_trace(merged)
        inputs = merged_events[0]['args']['traces']
        self.assertEqual([path_bytes(t, 'target') for t in inputs], [b'command ' + line])
        host = inputs[0]['hostname'].encode()
        names = [path_bytes(e['args'], 'name') for e in merged_events
                 if e['name'] == 'process_name' and b'/bin/true' in path_bytes(e['args'], 'name')]
        self.assertEqual(names, [host + b': ' + line])


class OutputFormsTest(TraceTest):
    def test_gzip_output(self):
        res, events = self.trace_command(['cat', '/etc/hostname'], name='t.json.gz')
        with open(self.path('t.json.gz'), 'rb') as f:
            data = f.read()
        self.assertEqual(data[:2], b'\x1f\x8b')
        plain = gzip.decompress(data)
        self.assertTrue(plain.startswith(b'[{"name":"dltrace"'))
        self.assertTrue(plain.endswith(b']\n'))
        self.assertEqual(len(json.loads(plain)), len(events))

    def test_standard_output(self):
        res = subprocess.run([DLTRACE, '-q', '-o', '-', '--', 'true'], capture_output=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        events, errors = trace_validator.validate_bytes(res.stdout)
        self.assertEqual(errors, [])
        self.assertEqual(res.stderr, b'')
        self.assertTrue(any(e['name'] == 'exec' for e in events))

    def test_one_event_per_line(self):
        self.trace_command(['cat', '/etc/hostname'])
        with open(self.path('trace.json')) as f:
            lines = f.read().splitlines()
        self.assertTrue(lines[0].startswith('[{'))
        self.assertEqual(lines[-1], ']')
        for line in lines[1:-1]:
            self.assertTrue(line.startswith(',{') and line.endswith('}'), line)
            json.loads(line[1:])


class FullDiskTest(TraceTest):
    """The output file system fills up: dltrace says so, stops, and leaves a valid trace."""

    def setUp(self):
        super().setUp()
        self.mnt = self.path('small')
        os.mkdir(self.mnt)
        subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', self.mnt], check=True)

    def tearDown(self):
        subprocess.run(['umount', self.mnt])
        super().tearDown()

    def check(self, name):
        data = self.path('data.bin')
        with open(data, 'wb') as f:
            f.write(b'd' * 4096)
        out = os.path.join(self.mnt, name)
        # 1,000,192 preads: more events than 512 KiB holds, however well they compress and
        # however many the ring drops (what it holds at any time is over 1 MiB of trace)
        res = subprocess.run([DLTRACE, '-o', out, '--', workload('busy_reader'), data, '1', '0',
                              '1000192'], capture_output=True)
        err = res.stderr.decode()
        self.assertEqual(res.returncode, 1, err)
        self.assertIn('writing %s failed: No space left on device' % out, err)
        # the command was not harmed: it made all its reads and reported their count
        self.assertTrue(res.stdout.startswith(b'count 1000192\n'), res.stdout)
        events = load_trace(out)
        s = events[-1]['args']
        self.assertEqual((s['stop_reason'], s['truncated'], s['write_error']),
                         ('output write error', True, 'No space left on device'))
        reads = [e for e in events if e.get('name') == 'pread64']
        self.assertGreater(len(reads), 1000)
        return events

    def test_plain(self):
        self.check('t.json')

    def test_gzip(self):
        self.check('t.json.gz')


class OutputSafetyTest(TraceTest):
    def test_private_and_owned_by_the_invoking_user(self):
        os.chmod(self.dir, 0o777)
        env = dict(os.environ, SUDO_UID='65534', SUDO_GID='65534', SUDO_USER='nobody')
        out = self.path('mine.json')
        res = subprocess.run([DLTRACE, '-o', out, '--', 'sh', '-c', 'id -u; id -g; id -G'],
                             capture_output=True, env=env)
        self.assertEqual(res.returncode, 0, res.stderr)
        # the command ran as the invoking user with that user's groups, not as root
        nobody = pwd.getpwnam('nobody')
        groups = sorted(os.getgrouplist('nobody', nobody.pw_gid))
        uid, gid, all_groups = res.stdout.decode().splitlines()
        self.assertEqual((int(uid), int(gid)), (65534, 65534))
        self.assertEqual(sorted(int(g) for g in all_groups.split()), groups)
        self.assertNotIn(0, groups)
        st = os.stat(out)
        self.assertEqual((st.st_uid, st.st_gid), (65534, 65534))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
        load_trace(out)

    def test_refuses_symlinks_and_other_users_files(self):
        target = self.path('victim')
        with open(target, 'w') as f:
            f.write('keep')
        os.symlink(target, self.path('link.json'))
        res = subprocess.run([DLTRACE, '-o', self.path('link.json'), '--', 'true'],
                             capture_output=True)
        self.assertEqual(res.returncode, 1)
        self.assertIn('symbolic link', res.stderr.decode())
        os.chown(target, 65534, 65534)
        res = subprocess.run([DLTRACE, '-o', target, '--', 'true'], capture_output=True)
        self.assertEqual(res.returncode, 1)
        self.assertIn('belongs to another user', res.stderr.decode())
        with open(target) as f:
            self.assertEqual(f.read(), 'keep')

    def test_bad_output_directory_rejected_before_attaching(self):
        for out in (self.path('missing', 'x.json'), '/proc/x.json'):
            res = subprocess.run([DLTRACE, '-o', out, '--', 'touch', self.path('ran')],
                                 capture_output=True)
            self.assertEqual(res.returncode, 1)
            self.assertIn('cannot create', res.stderr.decode())
            # the command never started
            self.assertFalse(os.path.exists(self.path('ran')))


if __name__ == '__main__':
    unittest.main()
