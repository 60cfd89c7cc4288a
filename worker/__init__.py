"""deadmail's Celery worker: thin tasks over ``server.services``."""
