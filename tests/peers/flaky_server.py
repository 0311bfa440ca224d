"""A stand-in memory query service, navigate skill and RetrieveObject action that can be made to
hang: a request whose text, target or instruction is "hang" sleeps for a minute while the file
named by $MNEMO_HANG_ONCE exists (the file is removed first, so the node's next incarnation
answers at once)."""
import os
import time
from pathlib import Path

from rclpy.action import ActionServer
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from mnemo_common import names
from mnemo_common.ros import guarded, run_node
from mnemo_interfaces.action import RetrieveObject
from mnemo_interfaces.srv import Navigate, SearchMemoryByText


class FlakyServer(Node):
    def __init__(self):
        super().__init__("flaky_server")
        group = ReentrantCallbackGroup()
        self.create_service(SearchMemoryByText, names.MEMORY_SEARCH_TEXT, guarded(self, self._search),
                            callback_group=group)
        self.create_service(Navigate, names.SKILL_NAVIGATE, guarded(self, self._navigate), callback_group=group)
        self._action = ActionServer(self, RetrieveObject, names.RETRIEVE_OBJECT, self._retrieve,
                                    callback_group=group)
        self.get_logger().info("flaky server ready")

    @staticmethod
    def _maybe_hang(word: str) -> None:
        marker = Path(os.environ.get("MNEMO_HANG_ONCE", "/nonexistent"))
        if word == "hang" and marker.exists():
            marker.unlink()
            time.sleep(60.0)

    def _search(self, request, response):
        self._maybe_hang(request.text)
        return response

    def _navigate(self, request, response):
        self._maybe_hang(request.target)
        response.at_fixture = request.target
        return response


    def _retrieve(self, goal_handle):
        self._maybe_hang(goal_handle.request.instruction)
        goal_handle.succeed()
        return RetrieveObject.Result(success=True)


def main(args=None):
    run_node(FlakyServer, args)


if __name__ == "__main__":
    main()
