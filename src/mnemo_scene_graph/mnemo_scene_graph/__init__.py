"""Persistent 3D scene graph of objects and fixtures with a typed, append-only history.

Core API in mnemo_scene_graph.graph (SceneGraph, GraphConfig, GraphNode, GraphEvent, Location),
persistence in mnemo_scene_graph.persistence (GraphStore), the ROS node in mnemo_scene_graph.node.
"""
