"""The web: the Flask app, its blueprints (seat pages, organiser pages, preferences, table talk, replay, mailbox,
JSON API, mail webhook) and one access module (links, logins, limits, security headers). Views are thin: they
read the request, call a service, and render what ``present`` built."""
