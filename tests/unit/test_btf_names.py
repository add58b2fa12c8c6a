"""Start-up's one-pass index of the kernel's BTF names (user/lib/btf_names.c,
tools/btf_names_check.c) against libbpf's parse and bpftool's dump of
/sys/kernel/btf/vmlinux: a file any user can read.  The kernel under test
matters here: `make vm-test` runs it again on Debian's stock kernel."""
import os
import re
import shutil
import subprocess
import unittest

from dltrace_harness import helper

# Debian's is in /usr/sbin, not on a user's PATH (as in the Makefile)
BPFTOOL = os.environ.get('BPFTOOL') or shutil.which('bpftool') or '/usr/sbin/bpftool'


class BtfNamesTest(unittest.TestCase):
    def test_kernel_type_names(self):
        """Start-up's one-pass index of the kernel's BTF (lib/btf_names) finds every function
        and typedef at the id libbpf gives, and counts what bpftool's dump lists."""
        out = subprocess.run([helper('tests/btf_names_check')],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        dump = subprocess.run([BPFTOOL, 'btf', 'dump', 'file', '/sys/kernel/btf/vmlinux'],
                              capture_output=True, text=True, check=True).stdout
        ids = re.findall(r"^\[(\d+)\] (\w+) '([^']*)'", dump, re.M)
        named = sum(1 for _, kind, name in ids if kind in ('FUNC', 'TYPEDEF') and name)
        self.assertEqual(out.stdout.strip(), '%s types, %d FUNC/TYPEDEF names (%d distinct): 0 wrong'
                         % (ids[-1][0], named,
                            len({(k, n) for _, k, n in ids if k in ('FUNC', 'TYPEDEF') and n})))


if __name__ == '__main__':
    unittest.main()
