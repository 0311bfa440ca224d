"""SerialWorker: jobs in order on a thread of its own, the oldest waiting one dropped when full."""
import threading

import pytest

from mnemo_scene_graph.serial_worker import SerialWorker


def test_runs_jobs_in_order_and_goes_on_after_a_failing_one():
    done, errors = [], []
    worker = SerialWorker("test", depth=100, on_error=errors.append)
    for i in range(20):
        worker.submit(lambda i=i: done.append(i))
    worker.submit(lambda: 1 / 0)
    worker.submit(lambda: done.append("after"))
    assert worker.wait_idle(timeout=10.0)
    assert done == [*range(20), "after"]
    assert [type(e) for e in errors] == [ZeroDivisionError]
    assert worker.close(timeout=10.0)


def test_a_full_queue_drops_its_oldest_waiting_job():
    started, release = threading.Event(), threading.Event()
    done, dropped = [], []

    def blocking():
        started.set()
        release.wait(timeout=30.0)
        done.append("first")

    worker = SerialWorker("test", depth=2, on_drop=dropped.append)
    worker.submit(blocking)
    assert started.wait(timeout=10.0)  # running, no longer waiting
    jobs = {name: (lambda name=name: done.append(name)) for name in ("a", "b", "c")}
    for job in jobs.values():
        worker.submit(job)
    assert dropped == [jobs["a"]] and worker.pending() == 3
    release.set()
    assert worker.close(timeout=10.0)
    assert done == ["first", "b", "c"]


def test_close_runs_what_waits_then_refuses_new_jobs():
    release = threading.Event()
    done = []
    worker = SerialWorker("test", depth=10)
    worker.submit(lambda: release.wait(timeout=30.0))
    worker.submit(lambda: done.append(1))
    closer = threading.Thread(target=worker.close)
    closer.start()
    release.set()
    closer.join(timeout=10.0)
    assert done == [1] and not closer.is_alive()
    assert worker.submit(lambda: done.append(2)) is False
    assert done == [1]


def test_depth_must_be_positive():
    with pytest.raises(ValueError):
        SerialWorker("test", depth=0)


def test_urgent_jobs_run_next_in_their_order_and_are_never_dropped():
    started, release = threading.Event(), threading.Event()
    done, dropped = [], []
    worker = SerialWorker("test", depth=1, on_drop=dropped.append)
    worker.submit(lambda: (started.set(), release.wait(timeout=30.0)))
    assert started.wait(timeout=10.0)
    worker.submit(lambda: done.append("frame"))
    for name in ("update 1", "update 2", "update 3"):
        worker.submit(lambda name=name: done.append(name), urgent=True)
    assert not dropped and worker.pending() == 5
    release.set()
    assert worker.close(timeout=10.0)
    assert done == ["update 1", "update 2", "update 3", "frame"]
