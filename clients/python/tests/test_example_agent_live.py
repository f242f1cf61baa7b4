"""The Python example agent against a live service: its whole demo plan, and its graceful stop on signals."""

import importlib.util
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import workgraph as wg

from .live import URL, LiveTest, eventually

AGENT = Path(__file__).resolve().parents[3] / "examples" / "python" / "example_agent.py"


def load_agent():
    spec = importlib.util.spec_from_file_location("example_agent", AGENT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ExampleAgentTests(LiveTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not AGENT.is_file():
            raise AssertionError(f"the example agent is missing: {AGENT}")

    def test_the_example_agent_carries_the_demo_plan_through_with_a_humans_approval(self):
        agent = load_agent()
        queue = self.unique("py-examples")
        worker_id = self.unique("py-example-agent")
        plan_id = agent.seed(self.admin, queue, step_seconds=0.2)
        self.worker(self.worker_client(worker_id), worker_id=worker_id, queues=[queue], concurrency=2,
                    lease_seconds=6).start(agent.handle)
        question = eventually(
            lambda: [request for request in self.admin.iter_attention_requests(status="open")
                     if self.admin.get_item(request.item_id).parent_id == plan_id],
            bool, 60, "the agent's question",
        )[0]
        self.assertIn("May I deploy release 1.4", question.question)
        self.assertEqual(question.worker_id, worker_id)
        self.admin.resolve_attention_request(question.id, "Yes, go ahead", "release-manager")
        done = self.await_status(plan_id, wg.ItemStatus.COMPLETED, 90)
        self.assertEqual(len(done.result["steps"]), 4)
        self.assertEqual(done.result["steps"]["Approve the production deployment"]["answer"], "Yes, go ahead")
        self.assertEqual({child.status for child in done.children}, {wg.ItemStatus.COMPLETED})
        self.assertEqual([lease.outcome for lease in self.admin.item_leases(plan_id)], ["decomposed", "completed"])
        approval = next(child for child in done.children if child.title.startswith("Approve"))
        self.assertEqual([lease.outcome for lease in self.admin.item_leases(approval.id)],
                         ["attention_requested", "completed"])

    def test_sigterm_lets_work_in_hand_finish_and_a_second_signal_releases_the_rest_at_once(self):
        queue = self.unique("py-signals")
        quick = self.admin.create_item("quick", queue=queue, metadata={"seconds": 1})
        long = self.admin.create_item("long", queue=queue, metadata={"seconds": 120})
        worker_id = self.unique("py-signalled")
        token = self.admin.create_token("python-tests signalled", "worker", worker_id).token
        agent = subprocess.Popen(
            [sys.executable, str(AGENT), "--url", URL, "--token", token, "--worker-id", worker_id,
             "--queue", queue, "--concurrency", "2"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        output = []
        both_working = threading.Event()

        def read():
            for line in agent.stdout:
                output.append(line)
                if sum('working on "' in seen for seen in output) == 2:
                    both_working.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()

        def end_agent():
            if agent.poll() is None:
                agent.kill()
            agent.wait(10)
            reader.join(5)
            agent.stdout.close()

        self.addCleanup(end_agent)
        self.assertTrue(both_working.wait(30), "".join(output))
        untouched = self.admin.create_item("untouched", queue=queue)

        agent.send_signal(signal.SIGTERM)
        self.await_status(quick.id, wg.ItemStatus.COMPLETED, 20)  # within the grace period
        self.assertIsNone(agent.poll(), "the agent waits for the long step, up to its grace period")
        agent.send_signal(signal.SIGINT)
        self.assertEqual(agent.wait(15), 0, "".join(output))

        self.assertEqual([(lease.outcome, lease.reason) for lease in self.admin.item_leases(long.id)],
                         [("released", "worker shutting down")])
        self.assertEqual(self.admin.get_item(long.id).status, wg.ItemStatus.READY)
        self.assertEqual(self.admin.get_item(untouched.id).epoch, 0, "nothing was claimed after SIGTERM")
