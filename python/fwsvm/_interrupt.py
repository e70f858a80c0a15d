"""Running long native calls so that Ctrl-C stops them (no NumPy or SciPy import: the command
line's scripts start through here)."""

from __future__ import annotations

import os
import queue
import threading
from typing import Any, Callable

from fwsvm import _core, _progress


def run_interruptible(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a GIL-releasing native call so that Ctrl-C stops it.

    Python delivers signals to the main thread only, and only between bytecodes; a native fit
    holding the main thread would ignore Ctrl-C until it finished. So the call runs in a worker
    thread while the main thread waits in short, interruptible joins; on KeyboardInterrupt it
    sets the call's cancel token, waits for the solver to stop at its next poll (about 0.1 s)
    and re-raises.

    When ``sys.stderr`` is not the process's stderr (redirected, a notebook), the progress of a
    ``verbose`` fit is queued by the call and written to ``sys.stderr`` by the waiting thread
    (:mod:`fwsvm._progress`); called from another thread, it is written when the call returns.
    """
    token = _core.CancelToken()
    kwargs["cancel"] = token
    progress = _progress.for_stderr()
    if threading.current_thread() is not threading.main_thread():
        if progress is None:
            return fn(*args, **kwargs)
        progress.route()
        try:
            return fn(*args, **kwargs)
        finally:
            progress.unroute()
            progress.close()
    outcome: dict[str, Any] = {}
    # An event, not Thread.join: a KeyboardInterrupt that lands inside join() can mark the
    # thread as stopped while it still runs (CPython's bpo-45274 handling in 3.11), and the
    # next join() returns at once.
    done = threading.Event()

    def target() -> None:
        try:
            if progress is not None:
                progress.route()
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc
        finally:
            if progress is not None:
                progress.unroute()
            done.set()

    _worker().put(target)
    try:
        while not done.wait(0.05):
            if progress is not None:
                progress.pump()
    except KeyboardInterrupt:
        token.cancel()
        done.wait()  # the native call stops at its next check of the token
        raise
    finally:
        if progress is not None:
            progress.close()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# The thread that runs the main thread's native calls, started once per process: a thread per
# call cost about as much as the fit of a 270-row problem (0.5–1 ms of a 2 ms SVR fit).
_WORKER: tuple[int, queue.SimpleQueue[Callable[[], None]]] | None = None


def _worker() -> queue.SimpleQueue[Callable[[], None]]:
    """The job queue of this process's worker thread (a forked child starts its own)."""
    global _WORKER
    if _WORKER is None or _WORKER[0] != os.getpid():
        jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()

        def serve() -> None:
            while True:
                jobs.get()()

        threading.Thread(target=serve, name="fwsvm-native", daemon=True).start()
        _WORKER = (os.getpid(), jobs)
    return _WORKER[1]
