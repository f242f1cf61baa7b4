"""Back-off and the lease clock: the runtime's timing rules, without a service."""

import random
import unittest

from workgraph import Backoff
from workgraph.timing import LONGEST_RETRY_AFTER, LeaseClock


class BackoffTests(unittest.TestCase):
    def test_the_ceiling_doubles_from_the_initial_wait_up_to_the_maximum(self):
        backoff = Backoff(0.2, 3.0)
        self.assertEqual([backoff.ceiling(n) for n in range(1, 7)], [0.2, 0.4, 0.8, 1.6, 3.0, 3.0])
        self.assertEqual(backoff.ceiling(10_000), 3.0)

    def test_waits_are_spread_over_the_whole_range_below_the_ceiling(self):
        backoff = Backoff(0.5, 4.0)
        rng = random.Random(7)
        waits = [backoff.delay(3, None, rng) for _ in range(2000)]
        self.assertTrue(all(0 <= wait <= 2.0 for wait in waits))
        # Full jitter: as many below the middle as above it, give or take.
        below = sum(1 for wait in waits if wait < 1.0)
        self.assertTrue(800 < below < 1200, below)

    def test_the_service_asks_for_at_least_its_retry_after(self):
        backoff = Backoff(0.2, 30.0)
        rng = random.Random(1)
        waits = [backoff.delay(1, 2.0, rng) for _ in range(200)]
        self.assertTrue(all(2.0 <= wait <= 2.2 for wait in waits))
        self.assertLessEqual(backoff.delay(1, 86_400.0, rng), LONGEST_RETRY_AFTER + 0.2)

    def test_impossible_bounds_are_refused(self):
        for initial, maximum in ((0, 1), (-1, 1), (2, 1)):
            with self.subTest(initial=initial, maximum=maximum), self.assertRaises(ValueError):
                Backoff(initial, maximum)


class LeaseClockTests(unittest.TestCase):
    def test_renewal_is_due_a_third_of_the_length_after_the_send(self):
        clock = LeaseClock(100.0, 30.0)
        self.assertEqual(clock.renewal_due, 110.0)
        self.assertEqual(clock.deadline, 130.0)
        self.assertEqual(clock.remaining(125.0), 5.0)
        self.assertFalse(clock.expired(129.9))
        self.assertTrue(clock.expired(130.0))

    def test_a_renewal_counts_from_when_it_was_sent_not_answered(self):
        clock = LeaseClock(100.0, 30.0)
        clock.confirmed(sent_at=110.0, length=60.0)
        self.assertEqual(clock.deadline, 170.0)
        self.assertEqual(clock.renewal_due, 130.0)

    def test_a_late_answer_to_an_older_renewal_never_moves_the_deadline_back(self):
        clock = LeaseClock(100.0, 30.0)
        clock.confirmed(sent_at=120.0, length=30.0)
        clock.confirmed(sent_at=110.0, length=30.0)
        self.assertEqual(clock.deadline, 150.0)

    def test_a_lease_length_must_be_positive(self):
        with self.assertRaises(ValueError):
            LeaseClock(0.0, 0.0)
        clock = LeaseClock(0.0, 1.0)
        with self.assertRaises(ValueError):
            clock.confirmed(1.0, -5.0)


if __name__ == "__main__":
    unittest.main()
