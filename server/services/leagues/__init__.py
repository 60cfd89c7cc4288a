"""Leagues: leagues, seasons and sign-ups (``seasons``), seating a round (``seating``), starting rounds, a league
game's result, places, points and ratings, the seasons' schedule, and the API's bodies and answers (``api``)."""
