"""The chunk runner's ``shared`` object (flexpkm.analysis.execution): sent
once to each worker and kept there with what the chunks store on it, in
this process, in local worker processes and on Dask workers; the results
in the chunks' order whatever ran them."""
import os
import threading

import numpy as np
import pytest

from flexpkm.analysis.execution import run_chunks


class Counter:
    """A stand-in for a model: what a chunk builds on it stays for the next."""

    def __init__(self, offset):
        self.offset, self.built = offset, None


def count_on(kept, chunk):
    """Chunk ``chunk``'s result and how many chunks the kept object served
    before it in this process (and thread)."""
    if kept.built is None:
        kept.built = [os.getpid(), threading.get_ident(), 0]
    kept.built[2] += 1
    return {"value": np.array([chunk + kept.offset]), "served": np.array([kept.built[2] - 1]),
            "where": np.array(kept.built[:2])}


def _check(parts, n, offset=10):
    assert [int(p["value"][0]) for p in parts] == [k + offset for k in range(n)]
    by_place = {}
    for p in parts:
        by_place.setdefault(tuple(p["where"]), []).append(int(p["served"][0]))
    for served in by_place.values():        # kept: each place counts its chunks 0, 1, 2...
        assert sorted(served) == list(range(len(served)))
    return by_place


def test_shared_is_kept_in_this_process_and_in_each_worker_process():
    one = _check(run_chunks(count_on, list(range(6)), None, workers=1, shared=Counter(10)), 6)
    assert list(one) == [(os.getpid(), threading.get_ident())]
    places = _check(run_chunks(count_on, list(range(8)), None, workers=2, shared=Counter(10)), 8)
    assert 1 <= len(places) <= 2 and os.getpid() not in {p for p, _ in places}
    assert sum(len(v) for v in places.values()) == 8 and max(map(len, places.values())) >= 2


def test_shared_is_kept_per_thread_on_dask_workers():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        _check(run_chunks(count_on, list(range(10)), None, client=client, shared=Counter(10)),
               10)
        # a new work gets a new copy: its offset, its counts from 0
        _check(run_chunks(count_on, list(range(5)), None, client=client, shared=Counter(20)),
               5, offset=20)
