"""The referee: locks the method, compares the contestants, summarises, verifies.

It never recomputes a leaderboard cell itself.
"""
