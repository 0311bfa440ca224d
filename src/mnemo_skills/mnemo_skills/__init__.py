"""Skill server for real robots: the simulator's skill services over nav2 and the arm's controllers."""
