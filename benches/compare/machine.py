"""One-line description of the machine a benchmark ran on (shared by the scripts in this folder)."""

from __future__ import annotations

import os
import platform


def cpu_model() -> str:
    """The CPU model from /proc/cpuinfo, or ``"unknown CPU"`` where that file does not exist."""
    try:
        with open("/proc/cpuinfo") as fh:
            return next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or "unknown CPU"


def describe() -> str:
    """Cores, CPU model, Python and the versions of fwsvm and the peers that are installed."""
    versions = []
    for mod in ("fwsvm", "sklearn", "thundersvm"):
        try:
            versions.append(f"{mod} {__import__(mod).__version__}")
        except Exception:  # noqa: BLE001 - optional peers
            pass
    try:
        import fwsvm._core

        versions.append(f"fwsvm loops {fwsvm._core.instruction_set()}")
    except Exception:  # noqa: BLE001 - fwsvm not installed
        pass
    return f"{os.cpu_count()} cores ({cpu_model()}), Python {platform.python_version()}, " + ", ".join(versions)
