"""Dump the line tables of many code objects with CPython's own line for
every instruction, for tests/workloads/py_linetable_check.c.

Usage: python3 py_linetable_dump.py MODULE...   (the modules' code objects,
all nested ones included)
"""
import importlib
import sys
import types


def codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from codes(const)


def main():
    minor = sys.version_info[1]
    out = sys.stdout
    for name in sys.argv[1:]:
        module = importlib.import_module(name)
        path = module.__file__
        with open(path, 'rb') as f:
            top = compile(f.read(), path, 'exec')
        for code in codes(top):
            table = code.co_linetable
            out.write('T %d %d %s %s.%s\n' % (minor, code.co_firstlineno,
                                              table.hex() or '-', name,
                                              code.co_name.replace(' ', '_')))
            # co_lines(): (start, end, line) byte ranges; line None: no line
            for start, end, line in code.co_lines():
                for addr in range(start, end, 2):
                    out.write('L %d %d\n' % (addr // 2, line or 0))


if __name__ == '__main__':
    main()
