"""mbkit_output.py — the PyTorch front end's outputs, as the C tools write theirs (data/file.c's
mb_out, docs/commands.md "Conventions"): a regular file written whole through a temporary beside
the file a link chain ends at and renamed onto it, so a link stays a link; a device, FIFO or
socket opened once and written in place (a FIFO waits MBKIT_FIFO_WAIT s for its reader); '-'
standard output. With the checks made before any work: an output that is an input, a closed
standard output. Used by mbkit_torch.py.
"""

import errno
import os
import re
import stat
import sys
import tempfile
import time

import mbkit_streams as streams
from mbkit_streams import Fail

FIFO_WAIT = 5.0          # an output FIFO waits this long for its reader (MBKIT_FIFO_WAIT)


def not_regular(path):
    """What path is when it exists and is not a regular file (links followed): 'a directory',
    'a FIFO', 'a device', ...; None for a regular file or nothing (data/file.c's
    mb_data_not_regular)."""
    try:
        m = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(m):
        return None
    return "a directory" if stat.S_ISDIR(m) else "a FIFO" if stat.S_ISFIFO(m) else \
        "a socket" if stat.S_ISSOCK(m) else "a device" if stat.S_ISCHR(m) or stat.S_ISBLK(m) \
        else "not a regular file"


def same_file(a, b):
    """1 when paths a and b name one file (links resolved), as data/file.c's mb_data_same_file:
    an output that is an input is refused before any work."""
    if not a or not b or "-" in (a, b):
        return False
    try:
        return os.path.samefile(a, b) and os.path.isfile(a)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def fifo_wait():
    """MBKIT_FIFO_WAIT: seconds an output FIFO waits for its reader (0..3600, default 5), as
    the C tools read it; None for a bad value (check_args refuses it before any work)."""
    text = os.environ.get("MBKIT_FIFO_WAIT")
    if text is None:
        return FIFO_WAIT
    try:
        v = float(text)
    except ValueError:
        return None
    return v if 0 <= v <= 3600 else None


TEMP_RANDOM = 8          # tempfile.mkstemp's random characters after the prefix


def name_max(folder):
    """The most bytes one name in folder may hold (pathconf's PC_NAME_MAX, else 255)."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def temp_keep(b, slen, cap):
    """How many bytes of the name b (bytes) a temporary keeps before its suffix of slen bytes
    where names hold cap (data/file.c's temp_keep): all, or as many as fit, cut back to the
    start of a UTF-8 character (campaign 33's D7: a 240-byte name was refused)."""
    if len(b) + slen <= cap:
        return len(b)
    keep = cap - slen if cap > slen + 1 else 1
    while keep > 1 and (b[keep] & 0xC0) == 0x80:
        keep -= 1
    return keep


class Output:
    """One output, checked when made (before any work) and written whole by write() (data/
    file.c's mb_out, docs/commands.md "Conventions"): a regular file or a new path goes to
    PATH.tmp.PID.XXXXXX beside the file a link chain ends at and is renamed onto it when every
    byte is on disk, so a link stays a link; a device, FIFO or socket is opened once, at
    write(), and written in place, never replaced (a FIFO waits MBKIT_FIFO_WAIT s for its
    reader); '-' is standard output. Temporaries of writers that are gone are removed."""

    def __init__(self, path, flag):
        self.path, self.flag = path, flag
        self.special = False
        if path == "-":
            return
        if not path:
            raise Fail(f"{flag} '': cannot write: an empty file name")
        kind = not_regular(path)
        if kind == "a directory":
            raise Fail(f"{path}: cannot write: {os.strerror(errno.EISDIR)}")
        if kind is not None:  # asked, not opened: a FIFO's reader would see an end of file
            self.special = True
            if not os.access(path, os.W_OK):
                raise Fail(f"{path}: cannot write: {os.strerror(errno.EACCES)}")
            return
        self.target = os.path.realpath(path)
        if os.path.islink(self.target):
            raise Fail(f"{path}: cannot write: {os.strerror(errno.ELOOP)}")
        d = os.path.dirname(self.target)
        if not os.path.isdir(d):
            raise Fail(f"{path}: cannot write: no such folder '{d}'")
        n, cap = len(os.fsencode(os.path.basename(self.target))), name_max(d)
        if n > cap:  # the temporary's name is cut to fit (temp_keep), this one cannot be
            raise Fail(f"{path}: cannot write: {os.strerror(errno.ENAMETOOLONG)} (a name of "
                       f"{n} bytes, more than the {cap} its folder holds)")
        os.close(self._mktemp())  # the folder takes a new file: checked now, not after work
        os.unlink(self.tmp)
        self.tmp = None

    def _mktemp(self):
        d, base = os.path.split(self.target)
        b, pre = os.fsencode(base), f".tmp.{os.getpid()}."
        keep = temp_keep(b, len(pre) + TEMP_RANDOM, name_max(d))
        try:
            fd, self.tmp = tempfile.mkstemp(prefix=os.fsdecode(b[:keep]) + pre, dir=d)
        except OSError as e:
            raise Fail(f"{self.path}: cannot write: {e.strerror}")
        return fd

    def _remove_stale(self):
        """Temporaries PATH.tmp.PID.* whose process is gone (a write killed half-way); PATH's
        name cut where a temporary of that process would cut it (temp_keep) counts too."""
        d, base = os.path.split(self.target)
        b, cap = os.fsencode(base), name_max(d)
        try:
            names = os.listdir(d)
        except OSError:
            return
        for n in names:
            m = re.fullmatch(r"(.*)\.tmp\.([1-9][0-9]{0,8})\.[^.]+", n, re.S)
            if not m or int(m.group(2)) == os.getpid():
                continue
            stem, pid = os.fsencode(m.group(1)), m.group(2)
            if stem != b and not (len(stem) < len(b) and b.startswith(stem) and temp_keep(
                    b, len(os.fsencode(n)) - len(stem), cap) == len(stem)):
                continue
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                try:
                    os.unlink(os.path.join(d, n))
                except OSError:
                    pass
            except OSError:
                pass

    def write(self, text):
        data = text.encode("utf-8")
        if self.path == "-":
            say_out(text, streams.STDOUT or sys.stdout)
            return
        if self.special:
            self._write_special(data)
            return
        self._remove_stale()
        fd = self._mktemp()
        try:
            mask = os.umask(0)
            os.umask(mask)
            os.fchmod(fd, 0o666 & ~mask)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            os.close(fd)
            fd = -1
            os.replace(self.tmp, self.target)
            self.tmp = None
        except OSError as e:
            if fd >= 0:
                os.close(fd)
            os.unlink(self.tmp)
            self.tmp = None
            raise Fail(f"{self.path}: write error: {e.strerror}")

    def _write_special(self, data):
        wait = fifo_wait() or 0.0
        t0 = time.monotonic()
        while True:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
                break
            except OSError as e:
                if e.errno != errno.ENXIO:  # ENXIO: a FIFO that no reader has open yet
                    raise Fail(f"{self.path}: cannot write: {e.strerror}")
                if time.monotonic() - t0 >= wait:
                    raise Fail(f"{self.path}: a FIFO with no reader after {wait:g} s: start "
                               f"its reader first, or give a regular file")
                time.sleep(0.05)
        try:
            os.set_blocking(fd, True)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.close(fd)
        except OSError as e:
            os.close(fd)
            raise Fail(f"{self.path}: write error: {e.strerror}")


def say_out(text, stream):
    """Text to standard output (or error), flushed: a write error is Fail, one line."""
    try:
        stream.write(text)
        stream.flush()
    except OSError as e:
        raise Fail(f"standard output: write error: {e.strerror}")


def stdout_closed():
    """1 when standard output is closed (`>&-`): refused before any work, as the C tools do
    (data/file.c), so that nothing is written that the command could not report."""
    try:
        os.fstat(1)
        return sys.stdout is None
    except OSError:
        return True
