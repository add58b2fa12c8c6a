"""The event stream's contract with the trace formats, with no kernel
(tests/unit/event_roundtrip.c): every event kind, and each of the syscall
kinds with the arguments it carries, through event_head/event_args and back
through event_parse is the same event, field by field; and the same events
written by each writer (JSON, .pftrace, plain and gzip) and read back by
trace_file_read are the same again."""
import os
import shutil
import subprocess
import tempfile
import unittest

from dltrace_harness import helper, traced_syscalls

# besides one of each syscall kind (bpf/syscalls.def): the trace's first and last, 14
# variants of syscalls (errors, sockets, lost files, fcntl's arguments, ...), 11 process
# events, 32 of the layers, 5 spans and an event of no known kind
OTHER_EVENTS = 2 + 14 + 11 + 32 + 5 + 1


class EventRoundTripTest(unittest.TestCase):
    def test_every_kind_comes_back_the_same(self):
        tmp = tempfile.mkdtemp(prefix='dltrace-roundtrip-')
        try:
            res = subprocess.run([helper('tests/event_roundtrip'), tmp],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual((res.returncode, res.stderr), (0, ''), res.stdout[-6000:])
            self.assertEqual(res.stdout, '%d events, 4 files: 0 failed\n' %
                             (len(traced_syscalls()) + OTHER_EVENTS))
            self.assertEqual(os.listdir(tmp), [])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    unittest.main()
