"""The live view's aggregation (view/live_stats.c) and lines (view/top_view.c)
with events made by hand, every figure known (tests/live/live_stats_test.c):
data stall from fetch and step regions, tables of 4 rows whose rows and
"other" row add up to the totals after replacing the least recently active
rows (processes only once exited), latency buckets, the /metrics buckets at
and around their bounds (le: at most the bound), a snapshot through
JSON and back."""
import subprocess
import unittest

from dltrace_harness import helper

EXPECTED = '''\
phases steps 10 fetches 10 fetch_ns 300000000 step_ns 700000000
phases line 1.00 1 1 1 0 0 0 4096 0 0.0 1.0 1.0 0.0 30.0 0 22
phases line 1.50 1 1 0 0 0 0 0 0 0.0 - - 0.0 80.0 0 10
eviction total ops 343 rd 330 wr 1 meta 6 sync 6 rd_bytes 1351680 wr_bytes 100
eviction alive processes 1 threads 2 seen 6
eviction procs row pid 104 alive 0 threads 0 ops 57
eviction procs row pid 105 alive 1 threads 2 ops 58
eviction procs row pid 102 alive 0 threads 0 ops 57
eviction procs row pid 103 alive 0 threads 0 ops 57
eviction procs other ops 114
eviction procs sum ops 343 bytes 1351780
eviction files row /d0/f0 pid 0 alive 0 threads 0 ops 2
eviction files row /d2/f7 pid 0 alive 0 threads 0 ops 8
eviction files row /d3/f8 pid 0 alive 0 threads 0 ops 9
eviction files row /d4/f9 pid 0 alive 0 threads 0 ops 11
eviction files other ops 313
eviction files sum ops 343 bytes 1351780
eviction dirs row /d0 pid 0 alive 0 threads 0 ops 2
eviction dirs row /d2 pid 0 alive 0 threads 0 ops 8
eviction dirs row /d3 pid 0 alive 0 threads 0 ops 9
eviction dirs row /d4 pid 0 alive 0 threads 0 ops 11
eviction dirs other ops 313
eviction dirs sum ops 343 bytes 1351780
latency 0 bucket 0 middle 0
latency 3 bucket 3 middle 3
latency 4 bucket 4 middle 4
latency 7 bucket 7 middle 7
latency 8 bucket 8 middle 9
latency 1000 bucket 35 middle 960
latency 4096 bucket 44 middle 4608
latency 1000000 bucket 75 middle 983040
latency 35184372088832 bucket 159 middle 2061584302080
latency p50 960 p98 960 p99 983040
metric 0 le 1000
metric 999 le 1000
metric 1000 le 1000
metric 1001 le 2500
metric 2500 le 2500
metric 2501 le 5000
metric 4999 le 5000
metric 5000 le 5000
metric 5001 le 10000
metric 1000000 le 1000000
metric 1000001 le 2500000
metric 9999999999 le 10000000000
metric 10000000000 le 10000000000
metric 10000000001 le +Inf
metric 4398046511104 le +Inf
json same 1 bytes 2420 lost 3 files 3
'''


class LiveStatsTest(unittest.TestCase):
    def test_exact_figures(self):
        res = subprocess.run([helper('tests/live_stats_test')], capture_output=True,
                             text=True, timeout=60)
        self.assertEqual((res.returncode, res.stderr), (0, ''))
        got = [' '.join(l.split()) for l in res.stdout.splitlines()]
        self.assertEqual(got, EXPECTED.splitlines())


if __name__ == '__main__':
    unittest.main()
