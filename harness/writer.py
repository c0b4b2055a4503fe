"""The run's record writer: trial records reach the disk without the event loop waiting on fsync.

Every trial record is written atomically and fsync'd (`RunDirectory.save`). Done on the event loop,
those writes stalled every trial in flight (14–17% of a 256-trial run's time). Here one writer task
owns the writes: callers hand it a record and await `save`, which returns once the record is on disk;
the writer takes everything queued so far as one batch and writes it in a worker thread, so the loop
keeps running trials while the disk works. A batch's files are fsync'd together
(`files.write_atomic_many`): ×4–5 faster here than one fsync after another.

Durability is unchanged: a trial counts as done (progress, summary) only after `save` returned, so a
killed run loses only trials in flight. On exit — normal, an error, or a cancellation such as Ctrl-C —
the writer drains: every record already handed to it is written before the context exits.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from harness.records import TrialRecord
from harness.rundir import RunDirectory

BATCH_MAX = 256
"""At most this many records per thread hop (a batch is whatever queued while the last one was written)."""


@dataclass
class _Pending:
    record: TrialRecord
    data: bytes | None
    done: anyio.Event = field(default_factory=anyio.Event)
    error: BaseException | None = None


class RecordWriter:
    """Writes records handed to `save` into one run directory, in batches, off the event loop."""

    def __init__(self, directory: RunDirectory) -> None:
        self.directory = directory
        self._send: MemoryObjectSendStream[_Pending]
        self._receive: MemoryObjectReceiveStream[_Pending]
        self._send, self._receive = anyio.create_memory_object_stream[_Pending](math.inf)
        self.written = 0

    async def save(self, record: TrialRecord, data: bytes | None = None) -> None:
        """Return once `record` is on disk (atomically, fsync'd); raise what the write raised.
        `data` is the record already encoded (`rundir.encode_record`), e.g. by a worker process."""
        pending = _Pending(record, data)
        self._send.send_nowait(pending)  # unbounded: never waits; raises if the writer was closed
        await pending.done.wait()
        if pending.error is not None:
            raise pending.error

    def _write(self, batch: list[_Pending]) -> None:
        """One batch: the files are written, fsync'd together and renamed (`files.write_atomic_many`)."""
        try:
            errors = self.directory.save_many([(p.record, p.data) for p in batch])
        except Exception as exc:  # noqa: BLE001 - e.g. a directory that cannot be synced: every caller learns it
            errors = [exc] * len(batch)
        for pending, error in zip(batch, errors, strict=True):
            pending.error = error  # handed back to the caller of `save`

    async def _run(self) -> None:
        """Until the send side closes and the queue is empty. Shielded: a cancelled run still writes
        every record it handed over (the thread finishes its batch either way)."""
        with anyio.CancelScope(shield=True):
            async with self._receive:
                async for first in self._receive:
                    batch = [first]
                    with contextlib.suppress(anyio.WouldBlock, anyio.EndOfStream):  # nothing more queued, or closed
                        while len(batch) < BATCH_MAX:
                            batch.append(self._receive.receive_nowait())
                    await anyio.to_thread.run_sync(self._write, batch)
                    self.written += sum(p.error is None for p in batch)
                    for pending in batch:
                        pending.done.set()

    def close(self) -> None:
        """No more records: the writer drains what it holds and stops."""
        self._send.close()


@contextlib.asynccontextmanager
async def record_writer(directory: RunDirectory) -> AsyncIterator[RecordWriter]:
    """A running writer for the body of the `async with`; its exit waits until every record handed
    over is on disk."""
    writer = RecordWriter(directory)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(writer._run)
            try:
                yield writer
            finally:
                writer.close()
    except BaseExceptionGroup as errors:
        # The writer task raises nothing (write errors go to `save`'s caller), so the group holds what
        # the body raised: let it through as itself, as if there were no task group.
        if len(errors.exceptions) == 1:
            raise errors.exceptions[0] from errors.exceptions[0].__cause__
        raise
