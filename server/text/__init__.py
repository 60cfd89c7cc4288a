"""Words in English, Italian and Polish: the glossary of names (keyed on ``engine.data``), the sentences told to
players, the reply grammar, translated refusals, and the gettext/Jinja set-up (``i18n``)."""
