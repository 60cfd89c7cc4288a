"""Attendance: a player's absences, substitutes for a seat, and a player's preferences (language, zone, play
hours, standing answers)."""
