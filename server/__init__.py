"""deadmail's turn server: the Flask app, models, services, the ``deadmail`` command."""
