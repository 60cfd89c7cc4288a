"""deadmail's turn server, in layers that import only downward (docs/ARCHITECTURE.md, checked by ``lint-imports``):
``run`` (the command and processes) > ``web`` (pages, API) > ``mail`` (mails and replies) > ``present`` (what a
reader is shown) > ``text`` (words in three languages) > ``services`` (the operations) > ``models``, ``db``,
``config``."""
