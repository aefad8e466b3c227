"""A leaderboard arm (cells v1, docs/contract.md): its prereg, lock and census."""
