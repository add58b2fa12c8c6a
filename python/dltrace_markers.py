"""dltrace markers for Python: name a job's phases on dltrace's timeline.

    import dltrace_markers as dltrace

    for e in range(2):
        with dltrace.epoch(e):
            for i, batch in enumerate(loader):
                with dltrace.step(i):
                    train(batch)
        dltrace.counter("loss_x1000", int(loss * 1000))

    @dltrace.region("save")
    def save(model): ...

    dltrace.instrument_torch(loader, model)   # fetch, step and checkpoint, in one call

The markers are USDT probes of libdltrace_markers.so (provider "dltrace").
While no tracer is attached, a marker costs a Python call and one memory
load: the library's semaphore is read directly, no C function is called
(bench/markers_cost.py measures it).  When the library is missing every
marker is a no-op.  The library is looked up
in $DLTRACE_MARKERS_LIB, where a checkout (../build) or `make install`
(PREFIX/lib) puts it, then by the dynamic loader.

Region arguments are keyword arguments with int, float, str or bool values,
sent as a flat JSON object.  Regions nest per thread: end (leave) the
innermost first.  dltrace keeps names up to 63 bytes and arguments up to
255 bytes of JSON.
"""
import ctypes
import ctypes.util
import functools
import json
import os

__all__ = ['region', 'step', 'epoch', 'instant', 'counter', 'enabled', 'instrument_torch',
           'library_path']

_LIB_NAME = 'libdltrace_markers.so'


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get('DLTRACE_MARKERS_LIB'),
                  os.path.join(here, '..', 'build', _LIB_NAME),    # a checkout's python/
                  os.path.join(here, '..', '..', _LIB_NAME),       # PREFIX/lib/dltrace/python/
                  os.path.join(here, _LIB_NAME)]
    for path in candidates:
        if path and os.path.exists(path):
            return os.path.realpath(path)
    found = ctypes.util.find_library('dltrace_markers')
    return found or None


def _load():
    path = _find_library()
    if not path:
        return None, None
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None, None
    lib.dltrace_region_begin.argtypes = (ctypes.c_char_p, ctypes.c_char_p)
    lib.dltrace_region_begin.restype = None
    lib.dltrace_region_end.argtypes = (ctypes.c_char_p,)
    lib.dltrace_region_end.restype = None
    lib.dltrace_instant.argtypes = (ctypes.c_char_p, ctypes.c_char_p)
    lib.dltrace_instant.restype = None
    lib.dltrace_counter.argtypes = (ctypes.c_char_p, ctypes.c_longlong)
    lib.dltrace_counter.restype = None
    return lib, path


_lib, _path = _load()


class _Off:
    """A semaphore of a missing library: always 0."""
    value = 0


def _semaphore(name):
    """One semaphore: its .value is the number of tracers attached (read
    without calling into the library: ctypes reads the memory itself)."""
    if _lib is None:
        return _Off
    return ctypes.c_ushort.in_dll(_lib, 'dltrace_%s_semaphore' % name)


_BEGIN = _semaphore('region_begin')
_END = _semaphore('region_end')
_INSTANT = _semaphore('instant')
_COUNTER = _semaphore('counter')


def library_path():
    """The marker library in use, or None (markers are then no-ops)."""
    return _path


def enabled():
    """True while a tracer is attached to the markers."""
    return bool(_BEGIN.value or _END.value or _INSTANT.value or _COUNTER.value)


def _encode_args(args):
    if not args:
        return None
    return json.dumps(args, separators=(',', ':'), default=str).encode()


def _name(name):
    return name if isinstance(name, bytes) else str(name).encode()


class _Region:
    """A marked region: a context manager, and a decorator (checked at each call)."""
    __slots__ = ('name', 'args', 'began')

    def __init__(self, name, args):
        self.name = name
        self.args = args
        self.began = False

    def __enter__(self):
        if _BEGIN.value:
            _lib.dltrace_region_begin(_name(self.name), _encode_args(self.args))
            self.began = True
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.began:
            self.began = False
            if _END.value:
                _lib.dltrace_region_end(_name(self.name))
        return False

    def __call__(self, fn):
        name, args = self.name, self.args

        @functools.wraps(fn)
        def marked(*a, **k):
            if not _BEGIN.value:
                return fn(*a, **k)
            with _Region(name, args):
                return fn(*a, **k)
        marked.__dltrace_marked__ = True
        return marked


class _Noop:
    """What step() and epoch() return while no tracer listens: the cheapest
    context manager Python has (a fixed-arity __exit__ is cheaper than *exc;
    the with statement itself costs more than the marker, see
    bench/markers_cost.py)."""
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False


_NOOP = _Noop()


def region(name, **args):
    """with region("load", shard=3): ...   or, on a function, @region("load")"""
    return _Region(name, args)


def step(i, _sem=_BEGIN, _noop=_NOOP):
    """with step(i): ... -- region "step" with argument step=i."""
    if _sem.value:
        return _Region(b'step', {'step': i})
    return _noop


def epoch(e, _sem=_BEGIN, _noop=_NOOP):
    """with epoch(e): ... -- region "epoch" with argument epoch=e."""
    if _sem.value:
        return _Region(b'epoch', {'epoch': e})
    return _noop


def instant(name, **args):
    """A point in time on the calling thread."""
    if _INSTANT.value:
        _lib.dltrace_instant(_name(name), _encode_args(args))


def counter(name, value):
    """A counter's value (an integer) at this time."""
    if _COUNTER.value:
        _lib.dltrace_counter(_name(name), int(value))


def _marked(fn, name, arg_of=None):
    """fn wrapped in region(name); arg_of(i, *a) gives its arguments."""
    calls = [0]

    @functools.wraps(fn)
    def wrapper(*a, **k):
        i = calls[0]
        calls[0] = i + 1
        if not _BEGIN.value:
            return fn(*a, **k)
        with _Region(name, arg_of(i, *a) if arg_of else {}):
            return fn(*a, **k)
    wrapper.__dltrace_marked__ = True
    return wrapper


def instrument_torch(loader=None, model=None, optimizer=None):
    """Mark a PyTorch job's phases with one call:
    - each batch fetch of loader (its iterator's __next__) as region "fetch"
      (argument batch: the index within the epoch; the fetch that ends an
      epoch, StopIteration, is a fetch slice too),
    - each call of model (its forward) as region "step" (argument step),
    - each optimizer.step() as region "optimizer_step", when given,
    - each torch.save() as region "checkpoint" (argument path when it is one).
    Returns the loader (the same object)."""
    import torch

    if loader is not None and not getattr(type(loader), '__dltrace_marked__', False):
        base = type(loader)

        def __iter__(self):
            it = base.__iter__(self)
            i = 0
            while True:
                with _Region(b'fetch', {'batch': i}):
                    try:
                        batch = next(it)
                    except StopIteration:
                        return
                i += 1
                yield batch
        loader.__class__ = type(base.__name__, (base,),
                                {'__iter__': __iter__, '__dltrace_marked__': True})
    if model is not None and not getattr(model.forward, '__dltrace_marked__', False):
        model.forward = _marked(model.forward, b'step', lambda i, *a: {'step': i})
    if optimizer is not None and not getattr(optimizer.step, '__dltrace_marked__', False):
        optimizer.step = _marked(optimizer.step, b'optimizer_step', lambda i, *a: {'step': i})
    if not getattr(torch.save, '__dltrace_marked__', False):
        torch.save = _marked(torch.save, b'checkpoint',
                             lambda i, obj=None, f=None, *a: {'path': os.fspath(f)}
                             if isinstance(f, (str, os.PathLike)) else {'n': i})
    return loader
