"""Play: a game's life from creation to its end, window by window (games, turns, seats and their views, standing
answers, the organiser's operations, table talk, missed deadlines, reliability and tenures, the tempo estimate)."""
