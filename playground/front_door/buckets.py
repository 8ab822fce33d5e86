"""Per-client token buckets and counters: how much each client may send, and how soon again."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass
class TokenBucket:
    """`burst` tokens at most, refilled at `rate` a second; each admitted message takes one."""

    rate: float
    burst: float
    tokens: float = -1.0  # -1: full on first use
    stamp: float = 0.0

    def _refill(self, now: float) -> None:
        if self.tokens < 0:
            self.tokens, self.stamp = self.burst, now
            return
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, now: float) -> bool:
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait_s(self, now: float) -> float:
        """Seconds until one token is there (0 if one is there now)."""
        self._refill(now)
        if self.tokens >= 1.0:
            return 0.0
        return (1.0 - self.tokens) / self.rate if self.rate > 0 else float("inf")

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.burst


@dataclass
class ClientTable(Generic[T]):
    """One entry per client, made on first use; entries that `idle` says are idle are dropped
    now and then, so a stream of one-off clients cannot grow the table without bound."""

    make: Callable[[], T]
    idle: Callable[[T, float], bool]
    clock: Callable[[], float] = time.monotonic
    sweep_every: int = 1024
    _entries: dict[str, T] = field(default_factory=dict)
    _uses: int = 0

    def __getitem__(self, client: str) -> T:
        self._uses += 1
        if self._uses % self.sweep_every == 0:
            now = self.clock()
            for key in [k for k, v in self._entries.items() if self.idle(v, now)]:
                del self._entries[key]
        entry = self._entries.get(client)
        if entry is None:
            entry = self._entries[client] = self.make()
        return entry

    def __len__(self) -> int:
        return len(self._entries)
