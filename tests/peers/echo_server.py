"""A minimal node serving one mnemo service and the RetrieveObject action, for the DDS smoke test.

Detect answers one detection per query word; RetrieveObject sends one feedback per budget step
every 0.1 s and honours cancel. Empty queries and zero budgets are rejected with error codes.
"""
import time

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from mnemo_common import names
from mnemo_common.ros import guarded, run_node
from mnemo_common.types import invalid
from mnemo_interfaces.action import RetrieveObject
from mnemo_interfaces.msg import Detection, PlannerStep, Status
from mnemo_interfaces.srv import Detect


class EchoServer(Node):
    def __init__(self):
        super().__init__("echo_server")
        group = ReentrantCallbackGroup()
        self.create_service(Detect, names.SKILL_DETECT, guarded(self, self._detect), callback_group=group)
        self._action = ActionServer(self, RetrieveObject, names.RETRIEVE_OBJECT, self._execute,
                                    goal_callback=lambda goal: GoalResponse.ACCEPT,
                                    cancel_callback=lambda handle: CancelResponse.ACCEPT, callback_group=group)

    def _detect(self, request, response):
        if not request.query.strip():
            raise invalid("query must not be empty")
        response.detections = [Detection(label=w, score=1.0) for w in request.query.split()]
        return response

    def _execute(self, handle):
        result = RetrieveObject.Result()
        if handle.request.budget == 0 or not handle.request.instruction:
            handle.abort()
            result.error_code, result.error_msg = Status.INVALID_ARGUMENT, "budget and instruction are required"
            return result
        for i in range(handle.request.budget):
            if handle.is_cancel_requested:
                handle.canceled()
                result.error_code, result.error_msg, result.steps_used = Status.CANCELED, "canceled", i
                return result
            step = PlannerStep(index=i, tool="detect", ok=True, outcome=f"step {i}",
                               remaining_budget=handle.request.budget - i - 1)
            result.trace.append(step)
            handle.publish_feedback(RetrieveObject.Feedback(step=step, remaining_budget=step.remaining_budget))
            time.sleep(0.1)
        handle.succeed()
        result.success, result.steps_used, result.answer = True, handle.request.budget, handle.request.instruction
        return result


def main(args=None):
    run_node(EchoServer, args)


if __name__ == "__main__":
    main()
