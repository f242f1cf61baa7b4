#!/usr/bin/env python3
"""An agent that does what real agents do with Work Graph, written with the Python client.

It turns a plan into steps (decompose), works on each step while the runtime renews its
lease, asks a human before anything risky and goes on with the answer, and sums up the plan
once its steps are done. Ctrl-C (or SIGTERM) stops it cleanly. What an item is comes from
its ``metadata.kind``:

- ``plan``: decompose into ``metadata.steps``, each waiting for the one before; when claimed
  again with every step done, complete with their results;
- ``approval``: ask a human (``metadata.question``); when claimed again with the answer,
  complete with it;
- anything else: work for ``metadata.seconds`` (default 3) seconds, then complete.

Run it against the quick start's service (from a checkout it finds the client by itself)::

    python3 examples/python/example_agent.py --seed

The same agent in Java: examples/src/main/java/dev/workgraph/examples/ExampleAgent.java.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any

try:
    import workgraph  # noqa: F401 - installed, or on PYTHONPATH
except ImportError:  # run from a checkout: use the client beside it
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python" / "src"))

from workgraph import LeaseContext, NewChild, WorkGraphClient, WorkGraphError, Worker

STEPS: list[dict[str, Any]] = [
    {"title": "Build the release artifacts", "seconds": 4},
    {"title": "Approve the production deployment", "kind": "approval",
     "question": "The artifacts are built. May I deploy release 1.4 to production?"},
    {"title": "Deploy to production", "seconds": 3},
    {"title": "Write the release notes", "seconds": 2},
]


def say(text: str) -> None:
    logging.getLogger("example-agent").info(text)


def seed(client: WorkGraphClient, queue: str, *, step_seconds: float | None = None) -> str:
    """A demo plan: build, ask for approval, deploy, write notes, one after the other. Its id."""
    steps = [{**step, "seconds": step_seconds} if step_seconds is not None and "seconds" in step else step
             for step in STEPS]
    plan = client.create_item("Ship release 1.4", queue=queue, metadata={"kind": "plan", "steps": steps})
    return plan.id


def handle(lease: LeaseContext) -> Any:
    """The handler: what to do with an item depends on its kind."""
    kind = lease.item.metadata.get("kind", "task")
    if kind == "plan":
        return plan(lease)
    if kind == "approval":
        return approval(lease)
    return work(lease)


def plan(lease: LeaseContext) -> Any:
    """First claim: decompose into steps. Claimed again once they are all done: sum up."""
    item = lease.item
    if not item.children:
        steps = []
        for index, step in enumerate(item.metadata.get("steps", []), start=1):
            after = [f"step-{index - 1}"] if index > 1 else None
            steps.append(NewChild(f"step-{index}", step["title"], metadata=step, depends_on=after))
        lease.decompose(steps, f"planned {len(steps)} steps")
        say(f'planned "{item.title}" as {len(steps)} steps')
        return None
    say(f'"{item.title}" is done')
    return {"steps": {child.title: child.result for child in item.children}}


def approval(lease: LeaseContext) -> Any:
    """Ask first; once answered (the item is ready again), act on the answer."""
    item = lease.item
    if not item.answers:
        question = item.metadata.get("question", f"May I go ahead with: {item.title}?")
        lease.ask_human(question, {"item": item.title, "askedBy": lease.worker_id})
        say(f"asked a human: {question}")
        return None
    answer = item.answers[-1]
    say(f'{answer.resolved_by} answered "{answer.resolution}"')
    return {"approvedBy": answer.resolved_by, "answer": answer.resolution}


def work(lease: LeaseContext) -> Any:
    """Simulated work in steps of at most a second; ``lease.sleep`` ends at once if the lease is lost."""
    item = lease.item
    seconds = float(item.metadata.get("seconds", 3))
    say(f'working on "{item.title}" ({seconds:g} s, lease {lease.lease_id}, epoch {lease.epoch})')
    left = seconds
    while left > 0:
        lease.sleep(min(1.0, left))
        left -= 1.0
    say(f'completed "{item.title}"')
    return {"summary": f"{item.title}: done in {seconds:g} s", "by": lease.worker_id}


def make_worker(client: WorkGraphClient, worker_id: str, queue: str, concurrency: int = 2,
                lease_seconds: int = 30, shutdown_grace: float = 10.0) -> Worker:
    """The agent's worker: the handler above, on one queue."""
    return Worker(client, worker_id=worker_id, queues=[queue], concurrency=concurrency,
                  lease_seconds=lease_seconds, shutdown_grace=shutdown_grace)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The Work Graph example agent, in Python.")
    parser.add_argument("--url", default=os.environ.get("WORKGRAPH_URL", "http://localhost:8080"),
                        help="the service (default $WORKGRAPH_URL or http://localhost:8080)")
    parser.add_argument("--token", default=os.environ.get("WORKGRAPH_TOKEN"),
                        help="a worker token bound to --worker-id, when access control is on (default $WORKGRAPH_TOKEN)")
    parser.add_argument("--seed-token", default=os.environ.get("WG_ADMIN_TOKEN"),
                        help="an operator or admin token for --seed (default $WG_ADMIN_TOKEN)")
    parser.add_argument("--worker-id", default=f"example-agent@{socket.gethostname()}",
                        help="this agent's stable identity (default example-agent@<host>)")
    parser.add_argument("--queue", default="examples", help="the queue to work on (default examples)")
    parser.add_argument("--concurrency", type=int, default=2, help="items worked on at once (default 2)")
    parser.add_argument("--lease-seconds", type=int, default=30,
                        help="lease length, renewed every third of it (default 30)")
    parser.add_argument("--seed", action="store_true", help="first create a demo plan to work on")
    options = parser.parse_args(argv)
    logging.basicConfig(format="%(asctime)s  %(message)s", datefmt="%H:%M:%S", level=logging.INFO)

    client = WorkGraphClient(options.url, token=options.token)
    if options.seed:
        try:
            plan_id = seed(WorkGraphClient(options.url, token=options.seed_token or options.token), options.queue)
        except WorkGraphError as failure:
            print(f"Could not seed the plan at {options.url}: {failure}", file=sys.stderr)
            return 1
        say(f'seeded plan {plan_id}: "Ship release 1.4"')
    say(f'{options.worker_id} working on queue "{options.queue}" at {options.url}; Ctrl-C to stop')
    worker = make_worker(client, options.worker_id, options.queue, options.concurrency, options.lease_seconds)
    try:
        worker.run(handle)
    except WorkGraphError as failure:
        print(f"The agent stopped: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
