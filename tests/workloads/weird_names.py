"""Create and read files whose names test JSON escaping and UTF-8 handling.

Usage: weird_names.py DIR
Prints one JSON line: {"names": [<hex of each full path>]}.
"""
import json
import os
import sys

NAMES = [
    b'quote"back\\slash',
    b'new\nline\ttab',
    b'invalid-\xff\xfe-utf8',
    b'looks-like-json-{"ph":"X"}',
    b'\xe2\x82\xac-euro-and-\xf0\x9f\x98\x80-emoji',
    b'lone-\xed\xa0\x80-surrogate-bytes',
    b'ctrl-\x01\x1f\x7f',
]


def main():
    d = os.fsencode(sys.argv[1])
    out = []
    for name in NAMES:
        path = os.path.join(d, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, b'data')
        os.close(fd)
        fd = os.open(path, os.O_RDONLY)
        os.read(fd, 100)
        os.close(fd)
        out.append(path.hex())
    print(json.dumps({'names': out}))


if __name__ == '__main__':
    main()
