"""Execution of chunked work (design studies, large maps) that scales from
one process to a cluster, written per chunk as it arrives, resumable.

* ``workers=1``: in this process (no pickling; the reference);
* ``workers=None`` (default) or N > 1: local worker processes
  (:class:`concurrent.futures.ProcessPoolExecutor`, every core by default;
  BLAS one thread per worker);
* ``client``: a ``dask.distributed.Client`` (a ``LocalCluster``, or a
  cluster's scheduler; ``scheduler="tcp://host:8786"`` connects one), the
  extra ``flexpkm[cluster]`` (:func:`flexpkm.optional.require`).

Each chunk's result (a dict of numpy arrays) is written to
``folder/chunks/chunk-NNNNNN.npz`` (:func:`write_whole`: whole or absent) as soon as it arrives, in any order. ``resume=True`` loads
the chunks already there and computes only the missing ones: a study
interrupted (Ctrl-C, kill, a lost worker) loses at most the chunks in
flight. ``folder/spec.json`` holds the work's identity; resuming another
work in that folder is refused (:class:`flexpkm.errors.OutputError`), and
so is a new run over existing chunks without ``resume``.

``shared``: what every chunk of a work needs (a map's model) is sent once
to each worker and kept there with what it builds (the model's loaded
generated code and CasADi maps: 0.1-0.25 s of CPU for the NaVARo), so a chunk
costs its own data only: a local process keeps it from its start
(``ProcessPoolExecutor``'s initializer; :class:`_InWorker`), a Dask worker
from its first chunk of the work (the object scattered once, one private
copy per worker thread; :func:`_on_dask_worker`).
"""
from __future__ import annotations

import json
import os
import pickle
import threading
import uuid
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

import numpy as np

from flexpkm.errors import InvalidArgumentError, OutputError

#: the file of a work's identity in its folder
SPEC = "spec.json"


def chunk_path(folder, k: int) -> Path:
    return Path(folder) / "chunks" / f"chunk-{k:06d}.npz"


def prepare_folder(folder, spec: dict, resume: bool) -> Path:
    """Create or check the output folder of a work ``spec`` (JSON-able
    dict); see the module for what is refused."""
    folder = Path(folder)
    try:
        (folder / "chunks").mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot write into {str(folder)!r}: {e.strerror or e}") from None
    text = json.dumps(spec, sort_keys=True, indent=1)
    old = folder / SPEC
    if old.exists():
        if old.read_text() != text:
            raise OutputError(f"{str(folder)!r} holds another study (its {SPEC} differs); "
                              "give another folder")
        if not resume and any((folder / "chunks").glob("chunk-*.npz")):
            raise OutputError(f"{str(folder)!r} holds chunks of this study: give --resume to "
                              "continue it, or another folder")
    write_whole(old, lambda tmp: Path(tmp).write_text(text))
    return folder


def write_whole(path, write):
    """``write(tmp)`` into a temporary file of ``path``'s folder
    (``.part-PID-NAME``), renamed onto ``path`` when complete: a file under
    its final name is whole (:mod:`flexpkm.io.output_paths`, for the files of
    an output folder of the analyses). OutputError when it cannot be written."""
    path = Path(path)
    tmp = path.with_name(f".part-{os.getpid()}-{path.name}")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as e:
        raise OutputError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
    finally:
        tmp.unlink(missing_ok=True)


def run_chunks(task, chunks, folder, workers=None, client=None, progress=None,
               shared=None) -> list:
    """The results of ``task(chunk)`` for every chunk of ``chunks`` (a list
    of picklable arguments), in order; the chunks whose file is in
    ``folder`` are read, not computed (``folder`` None: nothing written). ``task`` returns a dict of arrays and
    must be a module-level function (it is sent to the workers).
    shared : None, or a picklable object given as ``task(shared, chunk)``,
    sent once to each worker and kept there (module doc): what ``task``
    stores on it (a model's generated code) serves the worker's next chunks.
    progress : ``progress(done, total)`` or None. Ctrl-C: the pending
    chunks are cancelled, what arrived is on disk; the KeyboardInterrupt
    propagates."""
    results = [None] * len(chunks)
    for k in range(len(chunks) if folder is not None else 0):
        if chunk_path(folder, k).exists():
            with np.load(chunk_path(folder, k), allow_pickle=False) as z:
                results[k] = {name: z[name] for name in z.files}
    todo = [k for k in range(len(chunks)) if results[k] is None]
    done = len(chunks) - len(todo)
    if progress is not None:
        progress(done, len(chunks))

    def arrived(k, out):
        nonlocal done
        if folder is not None:
            _save(folder, k, out)
        results[k] = out
        done += 1
        if progress is not None:
            progress(done, len(chunks))

    if client is not None:
        _on_dask(client, task, chunks, todo, arrived, shared)
    elif workers == 1 or len(todo) <= 1:
        for k in todo:
            arrived(k, task(chunks[k]) if shared is None else task(shared, chunks[k]))
    else:
        _on_processes(task, chunks, todo, arrived, workers, shared)
    return results


def _save(folder, k, out):
    def save(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, **out)
    write_whole(chunk_path(folder, k), save)


def _on_processes(task, chunks, todo, arrived, workers, shared=None):
    n = (os.cpu_count() or 1) if workers is None else int(workers)
    if n < 1:
        raise InvalidArgumentError(f"workers must be >= 1, got {workers}")
    with ProcessPoolExecutor(max_workers=min(n, len(todo)), initializer=_start_worker,
                             initargs=(shared,)) as pool:
        futures = {(pool.submit(task, chunks[k]) if shared is None else
                    pool.submit(_with_kept, task, chunks[k])): k for k in todo}
        try:
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    arrived(futures[f], f.result())
        except BaseException:
            for f in futures:
                f.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise


class _InWorker:
    """What a local worker process keeps (:func:`_start_worker`): set in the
    worker processes only, never in the calling process."""

    shared = None


def _start_worker(shared=None):
    """Worker initializer: BLAS on one thread (the workers share the
    cores); ``shared`` kept for the worker's chunks (:func:`_with_kept`)."""
    _InWorker.shared = shared
    _one_thread()


def _with_kept(task, chunk):
    """``task(shared, chunk)`` with the worker's kept ``shared``."""
    return task(_InWorker.shared, chunk)


def _one_thread():
    """BLAS on one thread (the workers share the cores)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(1)
    except ImportError:                 # a core dependency; never absent in practice
        pass


def _on_dask(client, task, chunks, todo, arrived, shared=None):
    from flexpkm.optional import require
    distributed = require("distributed", "a study on a Dask cluster")
    if shared is None:
        futures = {client.submit(task, chunks[k], pure=False): k for k in todo}
    else:
        kept = client.scatter(shared, broadcast=True, hash=False)
        work = uuid.uuid4().hex
        futures = {client.submit(_on_dask_worker, task, work, kept, chunks[k], pure=False): k
                   for k in todo}
    try:
        for f in distributed.as_completed(list(futures)):
            arrived(futures[f], f.result())
    except BaseException:
        client.cancel(list(futures))
        raise


def _on_dask_worker(task, work, shared, chunk):
    """``task(kept, chunk)`` on a Dask worker: ``kept`` a private copy of the
    scattered ``shared`` per worker thread (threads must not share a
    model's generated-code buffers), kept on the Worker object for the
    chunks of the work ``work`` (a newer work replaces it)."""
    from distributed import get_worker
    worker = get_worker()
    kept = worker.__dict__.setdefault("flexpkm_kept", {})
    thread = threading.get_ident()
    if kept.get(thread, (None,))[0] != work:
        kept[thread] = (work, pickle.loads(pickle.dumps(shared)))
    return task(kept[thread][1], chunk)


def connect(scheduler: str):
    """A ``dask.distributed.Client`` of the scheduler at ``scheduler``
    (``tcp://host:8786``); MissingDependencyError without the extra
    ``cluster``; a refused connection is :class:`InvalidArgumentError`
    naming the address."""
    from flexpkm.optional import require
    distributed = require("distributed", "--scheduler (a Dask cluster)")
    try:
        return distributed.Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as e:
        raise InvalidArgumentError(f"--scheduler {scheduler}: cannot connect ({e})") from None
