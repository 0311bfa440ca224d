#!/bin/bash
# Source ROS 2 and the mnemo workspace, then run the given command (default: the Tiago launch).
set -e
source /opt/ros/kilted/setup.bash
source /mnemo/install/setup.bash
exec "$@"
