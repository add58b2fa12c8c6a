"""A disk whose requests take a known time, whatever the machine: an ext4 file
system on a loop device, throttled for the processes of a cgroup v1 blkio cgroup.

- The loop device uses direct I/O on its backing file (losetup --direct-io=on):
  the backing file's page cache never serves its reads, so a read whose pages
  are not in the loop file system's own cache goes to the device.
- blkio.throttle.read_bps_device / write_bps_device on the loop device: a
  process in the cgroup moves N bytes through it in at least N / bps seconds,
  less one throttle slice (blk-throttle lets a slice's worth through at once).
  Only the requests a process submits itself are throttled: reads, O_DIRECT
  writes, the writeback that its fsync does (cgroup v1 does not throttle the
  kernel's background writeback).
- Give it a directory on a disk (dltrace_harness.disk_scratch_dir), never /tmp
  (a tmpfs on many machines): the backing file lives there.

Every step that fails raises AssertionError saying which setup failed; close()
undoes what was done (mount, loop device, cgroup, files), also after a failure.
"""
import os
import shutil
import subprocess

from dltrace_harness import remove_cgroup

BLKIO = '/sys/fs/cgroup/blkio'
# blk-throttle's slice (100 ms): at the start of a slice it lets the slice's
# worth of bytes through at once, and a request is timed to the slices it spans,
# rounded: N bytes take at least N / bps less two slices (seen: 1 MiB at 512 KiB/s
# in 1.88 s, 20 ms under one slice's allowance)
THROTTLE_SLICE = 0.1
THROTTLE_SLACK = 2 * THROTTLE_SLICE


def _run(what, argv):
    res = subprocess.run(argv, capture_output=True, text=True)
    if res.returncode != 0:
        raise AssertionError('setup failed: %s (%s: %s)' %
                             (what, ' '.join(argv), (res.stderr or res.stdout).strip()))
    return res.stdout.strip()


class ThrottledDisk:
    """ThrottledDisk(directory, size, read_bps, write_bps): mounted at
    directory/mnt; start a process with preexec_fn=disk.enter to throttle it."""

    def __init__(self, directory, size, read_bps, write_bps):
        self.read_bps, self.write_bps = read_bps, write_bps
        self.image = os.path.join(directory, 'disk.img')
        self.mnt = os.path.join(directory, 'mnt')
        self.device = self.cgroup = None
        self.mounted = False
        try:
            self._setup(size)
        except BaseException:
            self.close()
            raise

    def _setup(self, size):
        if not os.path.isdir(BLKIO):
            raise AssertionError('setup failed: no cgroup v1 blkio hierarchy at %s, so the '
                                 'loop device cannot be throttled' % BLKIO)
        with open(self.image, 'wb') as f:
            f.truncate(size)
        self.device = _run('a loop device with direct I/O on its backing file',
                           ['losetup', '--direct-io=on', '--find', '--show', self.image])
        name = os.path.basename(self.device)
        with open('/sys/block/%s/loop/dio' % name) as f:
            if f.read().strip() != '1':
                raise AssertionError('setup failed: %s does not use direct I/O on %s, so the '
                                     "backing file's cache would serve its reads" %
                                     (self.device, self.image))
        with open('/sys/block/%s/dev' % name) as f:
            self.devnum = f.read().strip()
        # inode tables and journal written now: no lazy initialization beside the tests
        _run('an ext4 file system on ' + self.device,
             ['mkfs.ext4', '-q', '-F', '-E', 'lazy_itable_init=0,lazy_journal_init=0',
              self.device])
        os.mkdir(self.mnt)
        _run('mounting ' + self.device, ['mount', '-t', 'ext4', self.device, self.mnt])
        self.mounted = True
        os.chmod(self.mnt, 0o755)
        cgroup = os.path.join(BLKIO, 'dltrace-test-%d-%s' % (os.getpid(), name))
        os.mkdir(cgroup)
        self.cgroup = cgroup
        for key, bps in (('read', self.read_bps), ('write', self.write_bps)):
            knob = os.path.join(cgroup, 'blkio.throttle.%s_bps_device' % key)
            with open(knob, 'w') as f:
                f.write('%s %d\n' % (self.devnum, bps))
            with open(knob) as f:
                if f.read().split() != [self.devnum, str(bps)]:
                    raise AssertionError('setup failed: %s does not hold "%s %d"' %
                                         (knob, self.devnum, bps))

    def path(self, *names):
        return os.path.join(self.mnt, *names)

    def enter(self):
        """preexec_fn: the child joins the throttled cgroup before it execs."""
        with open(os.path.join(self.cgroup, 'cgroup.procs'), 'w') as f:
            f.write(str(os.getpid()))

    def min_seconds(self, nbytes, direction):
        """The least time, from the start of the first request to the end of the last,
        in which processes of the cgroup move nbytes ('read' or 'write')."""
        bps = self.read_bps if direction == 'read' else self.write_bps
        return nbytes / bps - THROTTLE_SLACK

    @staticmethod
    def drop_cached_pages(path):
        """The file's pages leave the page cache (written back first): its next read
        comes from the device."""
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)

    def close(self):
        """Unmount, detach and remove the cgroup; an error of one step is reported after
        the others were tried."""
        errors = []
        if self.mounted:
            res = subprocess.run(['umount', self.mnt], capture_output=True, text=True)
            if res.returncode != 0:  # still busy: detach it now, it goes when released
                res = subprocess.run(['umount', '-l', self.mnt], capture_output=True,
                                     text=True)
            if res.returncode != 0:
                errors.append('umount %s: %s' % (self.mnt, res.stderr.strip()))
            self.mounted = False
        if self.device:
            res = subprocess.run(['losetup', '-d', self.device], capture_output=True, text=True)
            if res.returncode != 0:
                errors.append('losetup -d %s: %s' % (self.device, res.stderr.strip()))
            self.device = None
        if self.cgroup:
            if not remove_cgroup(self.cgroup):
                errors.append('rmdir %s: processes remain in it' % self.cgroup)
            self.cgroup = None
        if os.path.exists(self.image):
            os.unlink(self.image)
        if os.path.isdir(self.mnt) and not os.path.ismount(self.mnt):
            shutil.rmtree(self.mnt, ignore_errors=True)
        if errors:
            raise AssertionError('cleaning up the throttled disk: ' + '; '.join(errors))
