"""Reading a ``text/event-stream``: the rules a browser's EventSource follows."""

import unittest

from workgraph.changes import Change, ServerSentEvent, parse_events


class ParseEventsTests(unittest.TestCase):
    def test_events_are_dispatched_at_blank_lines_with_their_id_type_and_data(self):
        lines = ["retry: 2000\n", ": stream from seq 7\n", "\n", "id: 8\n", "event: item.created\n",
                 'data: {"seq":8}\n', "\n", ": keep-alive\n", "\n", "id: 9\r\n", "data:first\r\n",
                 "data: second\r\n", "\r\n"]
        self.assertEqual(list(parse_events(lines)), [
            ServerSentEvent(None, "", "", 2000),
            ServerSentEvent("8", "item.created", '{"seq":8}'),
            ServerSentEvent("9", "message", "first\nsecond"),
        ])

    def test_an_event_cut_off_before_its_blank_line_is_not_dispatched(self):
        self.assertEqual(list(parse_events(["id: 3\n", 'data: {"seq":3}\n'])), [])

    def test_unknown_fields_and_a_bad_retry_are_ignored(self):
        lines = ["foo: bar\n", "retry: soon\n", "data: x\n", "\n"]
        self.assertEqual(list(parse_events(lines)), [ServerSentEvent(None, "message", "x")])

    def test_a_change_reads_its_common_fields_and_keeps_its_own_in_data(self):
        change = Change.from_json({"seq": 4, "type": "lease.ended", "itemId": "i", "leaseId": "l", "epoch": 2,
                                   "queue": "q", "at": "2026-12-06T10:00:00Z", "data": {"outcome": "released"}})
        self.assertEqual((change.seq, change.type, change.epoch, change.data["outcome"]), (4, "lease.ended", 2, "released"))
        self.assertEqual(change.at.year, 2026)


if __name__ == "__main__":
    unittest.main()
