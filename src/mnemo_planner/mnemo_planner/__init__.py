"""The mnemo retrieval planner: tools, the decision loop, offline and LLM policies, toolboxes."""
