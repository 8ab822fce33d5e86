"""One wait for a file descriptor to have something to read, by poll(2), not select(2).

select() takes only descriptors below 1024 (FD_SETSIZE): a server holding 200 visitors'
websockets had its workers' pipes above that, and every Run failed with "filedescriptor out of
range in select()" (bench/capacity.py at 200 visitors). poll() takes any descriptor.
"""

from __future__ import annotations

import select


def readable(fd: int, timeout_s: float) -> bool:
    """True once `fd` is readable (data, EOF or a hang-up), False after `timeout_s` (0: now)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(max(timeout_s, 0.0) * 1000.0))
