"""The client's exceptions: one root, a few subclasses named after the failure."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .journal import JournalEntry


class ToolLedgerError(Exception):
    """Root of the client's exceptions."""


class JournalError(ToolLedgerError):
    """The journal could not be read or written; nothing was sent."""


class ActionConflictError(ToolLedgerError):
    """The step is journaled with another tool or other parameters; nothing was sent.

    A different action is a new step.
    """

    def __init__(self, existing: "JournalEntry") -> None:
        a = existing.action
        super().__init__(
            f"step {a.step_id} of workflow {a.workflow_id} is journaled for tool {a.tool} with"
            " other parameters; a different action needs a new step"
        )
        self.existing = existing
