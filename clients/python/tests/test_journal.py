import os
import re
import stat
import tempfile
import unittest

import _support  # noqa: F401

from toolledger import COMPLETED, PENDING, UNKNOWN, Action, ActionConflictError, ActionJournal


class JournalTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.n = 0

    def path(self):
        self.n += 1
        return os.path.join(self.dir, f"journal-{self.n}.db")

    def test_a_key_is_minted_before_sending_and_the_same_step_keeps_it_across_a_reopen(self):
        path = self.path()
        with ActionJournal(path) as journal:
            entry, new = journal.record(Action("run-1", "step-1", "create-note", {"title": "a"}))
            self.assertTrue(new)
            self.assertRegex(entry.key, r"^[A-Za-z0-9_-]{32}$")
            self.assertEqual(journal.find("run-1", "step-1").status, PENDING)
        with ActionJournal(path) as journal:
            again, new = journal.record(Action("run-1", "step-1", "create-note", {"title": "a"}))
            self.assertFalse(new)
            self.assertEqual(again.key, entry.key)
            self.assertEqual(journal.workflows_with_unfinished_actions(), ["run-1"])
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)

    def test_the_same_step_with_other_parameters_is_refused_key_order_and_1_0_are_no_change(self):
        with ActionJournal(self.path()) as journal:
            journal.record(Action("run", "s", "create-note", {"title": "a", "n": 1}))
            self.assertFalse(journal.record(Action("run", "s", "create-note", {"n": 1.0, "title": "a"}))[1])
            with self.assertRaises(ActionConflictError):
                journal.record(Action("run", "s", "create-note", {"title": "b", "n": 1}))
            with self.assertRaises(ActionConflictError):
                journal.record(Action("run", "s", "other", {"title": "a", "n": 1}))

    def test_the_step_helper_names_a_run_s_nth_action_new_runs_and_next_steps_get_new_keys(self):
        step = ActionJournal.step("run-7", 3)
        self.assertEqual((step.workflow_id, step.step_id), ("run-7", "step-3"))
        with ActionJournal(self.path()) as journal:
            keys = {
                journal.record(Action(s.workflow_id, s.step_id, "t", {"title": "same"}))[0].key
                for s in (ActionJournal.step("r1", 0), ActionJournal.step("r1", 1), ActionJournal.step("r2", 0))
            }
            self.assertEqual(len(keys), 3)
            again = ActionJournal.step("r1", 0)
            self.assertIn(journal.record(Action(again.workflow_id, again.step_id, "t", {"title": "same"}))[0].key, keys)
        with self.assertRaises(ValueError):
            ActionJournal.step("r", -1)

    def test_final_statuses_are_never_overwritten_and_unfinished_keeps_recording_order(self):
        with ActionJournal(self.path()) as journal:
            a = journal.record(Action("w", "1", "t", {}))[0].key
            b = journal.record(Action("w", "2", "t", {}))[0].key
            c = journal.record(Action("w", "3", "t", {}))[0].key
            journal.mark_completed(a, 201, '{"id":1}')
            journal.mark_unknown(b)
            journal.mark_rejected(c, {"type": "about:blank", "status": 400})
            journal.mark_unknown(a)  # ignored: COMPLETED is final
            self.assertEqual(journal.find_key(a).status, COMPLETED)
            self.assertEqual(journal.find_key(a).response_body, '{"id":1}')
            self.assertEqual([e.key for e in journal.unfinished("w")], [b])
            self.assertEqual(journal.find_key(b).status, UNKNOWN)
            self.assertNotIn("title", repr(journal.find_key(a)))

    def test_a_file_written_by_one_journal_is_read_by_another_on_the_same_schema(self):
        path = self.path()
        with ActionJournal(path) as one, ActionJournal(path) as two:
            k = one.record(Action("w", "s", "t", {"x": 1}))[0].key
            self.assertEqual(two.record(Action("w", "s", "t", {"x": 1}))[0].key, k)
        import sqlite3

        c = sqlite3.connect(path)
        self.assertEqual(c.execute("PRAGMA user_version").fetchone()[0], 1)
        self.assertTrue(re.match(r"CREATE TABLE tl_journal", c.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'tl_journal'").fetchone()[0]))
        c.close()
