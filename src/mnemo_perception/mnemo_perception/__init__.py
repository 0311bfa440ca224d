"""mnemo perception: RGB-D frames -> 3D detections in the map frame (pure core; the ROS node is node.py)."""
