"""Interaction analyzer (MessyMem 3.2): what an action revealed, written into the scene graph."""
