"""The client's exceptions: one root, a few subclasses named after the failure.

A leaf module: it imports nothing of the client. ActionConflictError, which carries a journal
entry, lives in journal.py beside the entry it carries.
"""


class ToolLedgerError(Exception):
    """Root of the client's exceptions."""


class JournalError(ToolLedgerError):
    """The journal could not be read or written; nothing was sent."""
