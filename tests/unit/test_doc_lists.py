"""The documents' lists of findings and layers are the tables dltrace runs on.

No root and no BPF.  `dltrace report --list-findings` prints the findings'
rules table (user/report/report_findings.c) and `dltrace --list-layers` the
capture layers' table (user/probe/probe_layers.c); tools/doc_lists.py makes
the lists of docs/report.md, docs/user-guide.md and the man page from them.

- each list in the documents is what the tool makes of dltrace's tables now
  (run tools/doc_lists.py to rewrite them);
- the tables themselves: every finding id is one rule, every row is filled,
  the thresholds appear in the text; --help's --layers text names the
  table's layers and those off by default.
"""
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import doc_lists  # noqa: E402

sys.path.pop(0)


def need_dltrace():
    if not os.access(doc_lists.DLTRACE, os.X_OK):
        raise AssertionError('%s is missing: build it with make (the documents are checked '
                             'against its tables)' % doc_lists.DLTRACE)


class DocumentLists(unittest.TestCase):
    def test_documents_show_the_tables(self):
        need_dltrace()
        self.assertEqual(doc_lists.differences(write=False), [],
                         'run tools/doc_lists.py to make these lists again')

    def test_a_changed_table_is_seen(self):
        """The check is not blind: a block with one row less differs."""
        need_dltrace()
        for name, (doc, make) in doc_lists.LISTS.items():
            with self.subTest(name=name):
                with open(os.path.join(ROOT, doc), encoding='utf-8') as f:
                    _, block, _ = doc_lists.split(f.read(), doc, name)
                self.assertEqual(block, make())
                self.assertNotEqual(block[:-1], make())


class FindingRules(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_dltrace()
        cls.rules = doc_lists.rows('report', '--list-findings')

    def test_rows(self):
        ids = [r[0] for r in self.rules]
        self.assertEqual(len(ids), len(set(ids)), 'a finding id is one rule')
        for r in self.rules:
            with self.subTest(rule=r[0]):
                self.assertEqual(len(r), 4)
                self.assertRegex(r[0], r'^[a-z][a-z0-9_]*$')
                self.assertIn(r[1], ('info', 'warn', 'high', 'warn or high'))
                self.assertTrue(r[2] and r[3])
                self.assertNotIn('{', r[2], 'a threshold left unfilled')
                # a rule that can be high says from where
                self.assertEqual('or high' in r[1], bool(re.search(r'\bhigh (from|above|when)\b',
                                                                    r[2])))

    def test_known_rules(self):
        """Thresholds come from the rows: the ones the report's rule texts state."""
        by_id = {r[0]: r for r in self.rules}
        self.assertEqual(by_id['small_reads'][1:3], [
            'warn or high', 'reads under 1 MiB are more than 10% of the reads and more than '
            "1000 (Drishti's thresholds); high above 50%"])
        self.assertIn('50 ms', by_id['data_stall'][2])
        self.assertIn('1 MiB', by_id['redundant_reads'][2])
        self.assertEqual(by_id['random_reads'][1], 'high')


class Layers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_dltrace()
        cls.layers = doc_lists.rows('--list-layers')

    def test_rows(self):
        names = [r[0] for r in self.layers]
        self.assertEqual(names[0], 'syscall')
        self.assertEqual(len(names), len(set(names)))
        for r in self.layers:
            with self.subTest(layer=r[0]):
                self.assertEqual(len(r), 5)
                self.assertIn(r[1], ('on', 'off'))
                self.assertTrue(r[2] and r[3] and r[4])

    def test_known_layers(self):
        """Today's layers, in --layers order; the opt-in ones are the uprobes on
        functions every process may call."""
        self.assertEqual([r[0] for r in self.layers], [
            'syscall', 'vfs', 'mmap', 'cache', 'block', 'uring', 'markers', 'stdio', 'hdf5',
            'mpiio'])
        self.assertEqual([r[0] for r in self.layers if r[1] == 'off'],
                         ['stdio', 'hdf5', 'mpiio'])

    def test_help_names_every_layer(self):
        """--help's --layers text lists the table's names and the ones off by default."""
        text = subprocess.run([doc_lists.DLTRACE, '--help'], capture_output=True, text=True,
                              check=True).stdout
        m = re.search(r'--layers LIST\s+(.*?)\n  (?=\S|  --)', text, re.S)
        said = re.sub(r'\s+', ' ', m.group(1))
        names = [r[0] for r in self.layers]
        off = [r[0] for r in self.layers if r[1] == 'off']
        self.assertIn('comma separated: %s;' % ', '.join(names), said)
        self.assertIn('default (all but %s,' % ', '.join(off), said)


if __name__ == '__main__':
    unittest.main()
