"""Keyframes linked to the scene graph (MessyMem 3.3): ring buffer, filters, store, retrieval."""
