"""mbkit_streams.py — the PyTorch front end's standard streams while the user's code runs.

The front end's own table and summaries must reach standard output whole, and its one-line
errors standard error, whatever the user's model file does: print() at import, os.write(1, ...),
a C extension's printf, a child process, closing sys.stdout, sys.stderr or sys.__stdout__, or
closing every fd from 3 and opening files of its own. So while a command runs, fd 1 is a copy of
fd 2 (user_stdout) and the user's sys.stdout and sys.stderr are wrappers of their own; the table
goes to STDOUT, a copy of the first fd 1 at a high number, checked before every write (FdOut),
and the front end's lines to ERR, a FdOut over fd 2 the user's code never sees. Used by
mbkit_torch.py (and through it mbkit_dist.py's ranks, which inherit the fds made so).
"""

import contextlib
import os
import sys

# standard output, kept for the front end's own table and summaries (a FdOut over a dup of
# fd 1) while user_stdout holds fd 1 as a copy of stderr; None outside a command
STDOUT = None


class Fail(Exception):
    """A one-line error for the user: bad input, exit 1."""


class FdOut:
    """Text written straight to a file descriptor, unbuffered: a write error is OSError at
    the write (say_out's one line), and nothing is left for Python to flush at exit. With
    `ident` (st_dev, st_ino of the file it was made for) each write first checks that the fd
    still refers to that file (the user's code may close it and open another that gets its
    number): if not, Fail(`lost`), nothing written."""

    def __init__(self, fd, encoding, errors, ident=None, lost=None):
        self.fd, self.encoding, self.errors = fd, encoding, errors
        self.ident, self.lost = ident, lost

    def intact(self):
        try:
            st = os.fstat(self.fd)
        except OSError:
            return False
        return self.ident is None or (st.st_dev, st.st_ino) == self.ident

    def write(self, text):
        if self.ident is not None and not self.intact():
            raise Fail(self.lost)
        view = memoryview(text.encode(self.encoding, self.errors))
        while view:
            view = view[os.write(self.fd, view):]

    def flush(self):
        pass


def say_err(text):
    """The front end's own line on stderr (ERR); a closed stderr loses it, nothing more."""
    try:
        ERR.write(text)
    except OSError:
        pass


def c_flush():
    """C's stdio buffers flushed (fflush(NULL)): what a C extension printf()ed while fd 1 was
    stderr goes there, not into the table when fd 1 is put back (or at exit)."""
    try:
        import ctypes
        ctypes.CDLL(None).fflush(None)
    except (ImportError, OSError, AttributeError):
        pass


def high_dup(fd):
    """A copy of fd at a high number (1000, or half the fd limit), not inherited: user code that
    closes fds 3 and up over a range, then opens a file, does not get it."""
    import fcntl
    import resource
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    lo = 1000 if soft == resource.RLIM_INFINITY else max(3, min(1000, soft // 2))
    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, lo)
    except OSError:  # EMFILE, EINVAL: anywhere then
        return os.dup(fd)


def own_stream(stream, fd, like):
    """stream while it is open, else a new text stream over fd (the user's code closed
    sys.__stdout__ or sys.__stderr__, or left None): the front end never writes to a closed one."""
    if stream is not None and not getattr(stream, "closed", True):
        return stream
    try:
        return open(fd, "w", encoding=getattr(like, "encoding", None) or "utf-8",
                    errors=getattr(like, "errors", None) or "strict", closefd=False, buffering=1)
    except OSError:  # the fd is closed too
        return stream


@contextlib.contextmanager
def user_stdout(model):
    """While a command runs, fd 1 is a copy of fd 2 (os.dup2) and sys.stdout a wrapper of its
    own over it (closing it harms neither stderr nor the table); sys.stderr is the user's own
    wrapper over fd 2 too (the front end's lines go to ERR). The table goes to STDOUT, a copy
    of the first fd 1 at a high number, checked before each write (FdOut's ident), which is put
    back after; if the user's code closed or replaced it, Fail naming the model file. Spawned
    ranks inherit the fd 1 made so."""
    global STDOUT
    mine, mine_err = sys.stdout, sys.stderr
    mine.flush()
    saved = high_dup(1)
    st = os.fstat(saved)
    lost = (f"{model}: the model closed or replaced the front end's output (standard output); "
            f"nothing more written there")
    STDOUT = FdOut(saved, mine.encoding or "utf-8", mine.errors or "strict",
                   (st.st_dev, st.st_ino), lost)
    try:
        os.dup2(2, 1)
    except OSError:  # stderr closed (2>&-): the user's writes to fd 1 go nowhere
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)
    sys.stdout = open(1, "w", encoding=mine.encoding, errors=mine.errors, closefd=False,
                      buffering=1)
    sys.stderr = own_stream(None, 2, mine_err) or mine_err
    try:
        yield
    finally:
        for f in (sys.stdout, sys.__stdout__, mine, sys.stderr, sys.__stderr__, mine_err):
            try:  # the user's writes, still to stderr
                f.flush()
            except (OSError, ValueError, AttributeError):  # closed, replaced by None
                pass
        c_flush()  # a C extension's printf, buffered in C's stdio
        sys.stdout = own_stream(mine, 1, mine)
        sys.stderr = own_stream(mine_err, 2, mine_err)
        intact = STDOUT.intact()
        if intact:
            os.dup2(saved, 1)
            os.close(saved)
        STDOUT = None
    if not intact:  # fd 1 stays a copy of stderr
        raise Fail(lost)


def quiet_stdout():
    """After a write error on standard output (reported once), what is still buffered goes to
    /dev/null: Python's flush at exit would print a second, raw message."""
    try:
        if sys.stdout is not None and not getattr(sys.stdout, "closed", False):
            sys.stdout.flush()
    except (OSError, ValueError):
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)


ERR = FdOut(2, getattr(sys.stderr, "encoding", None) or "utf-8", "backslashreplace")
