"""Notifications besides mail: a player's devices (Web Push subscriptions, chat apps) and the notifications to
them (``nudges``), written with the mail of the change they tell and sent by the worker (``server/mail/push.py``)."""
