"""How deadmail runs: the ``deadmail`` command, ``deadmail up`` with its supervised worker, the task queue and the
embedded broker, migrations, and the WSGI entry point."""
