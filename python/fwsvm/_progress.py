"""Progress of native fits (``verbose``) on Python's ``sys.stderr`` when it is not the process's
own stderr: a stream redirected with :func:`contextlib.redirect_stderr`, pytest's capture, a
Jupyter cell. Without this the Rust display writes to file descriptor 2, which such streams
never see.

Each native call makes a :class:`StreamProgress` for ``sys.stderr`` when that is not the
process's stderr (``src/python/interrupt.rs``): the fit queues its lines (and, in Jupyter, its
live state) in the writer's ``_core.ProgressQueue`` and the thread waiting for the fit writes
them (it calls :meth:`StreamProgress.pump` every 0.05 s), so no solver thread ever needs the
interpreter. In a Jupyter kernel with ``tqdm``
installed, fits running longer than 2 s also show an updating bar (``tqdm.auto``: a widget
with ipywidgets, else a text line redrawn in place); without tqdm only the lines appear.
(No NumPy or SciPy import: the command line's scripts start through here.)
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, TextIO

from fwsvm import _core


def _notebook_tqdm() -> Any:
    """``tqdm.auto.tqdm`` inside a Jupyter kernel when tqdm is importable, else ``None``."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return None
    try:
        shell = ipython.get_ipython()
        in_kernel = shell is not None and "IPKernelApp" in shell.config
    except Exception:  # an IPython too old or too odd to ask: no live display
        return None
    if not in_kernel:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tqdm's "IProgress not found" falls back to text
            from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


class StreamProgress:
    """Writes the queued progress of fits to ``stream`` (lines, and a live bar in Jupyter)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._tqdm = _notebook_tqdm()
        self.queue = _core.ProgressQueue(live=self._tqdm is not None)
        self._bar: Any = None

    def pump(self) -> None:
        """Write what the fit queued since the last call."""
        for kind, text, done, total, running in self.queue.drain():
            if kind == "line":
                self._write(text)
            elif kind == "live":
                self._draw(text, done, total, running)
            else:
                self._close_bar()

    def close(self) -> None:
        """Write what is left and remove the live display."""
        self.pump()
        self._close_bar()

    def _write(self, text: str) -> None:
        try:
            if self._bar is not None:
                self._tqdm.write(text, file=self.stream)
            else:
                self.stream.write(text + "\n")
                self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: the fit's result matters more
            pass

    def _draw(self, status: str, done: int, total: int, running: list[str]) -> None:
        if self._bar is None:
            if total:
                self._bar = self._tqdm(total=total, desc="fwsvm", unit="pair", leave=False, file=self.stream)
            else:
                self._bar = self._tqdm(bar_format="fwsvm: {desc}", leave=False, file=self.stream)
        if total:
            self._bar.n = done
            self._bar.set_postfix_str("; ".join(running), refresh=False)
        else:
            self._bar.set_description_str(status, refresh=False)
        self._bar.refresh()

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

