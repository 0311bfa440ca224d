"""Client process of the DDS smoke test: calls the service and the action, prints JSON lines."""
import json
import sys
import time

import rclpy
from rclpy.action import ActionClient

from mnemo_common import names
from mnemo_interfaces.action import RetrieveObject
from mnemo_interfaces.srv import Detect


def wait(node, future, timeout=20.0):
    rclpy.spin_until_future_complete(node, future, timeout_sec=timeout)
    if not future.done():
        raise TimeoutError("no answer")
    return future.result()


def main():
    rclpy.init()
    node = rclpy.create_node("echo_client")
    out = {}
    try:
        client = node.create_client(Detect, names.SKILL_DETECT)
        if not client.wait_for_service(timeout_sec=20.0):
            raise TimeoutError("service never appeared")
        good = wait(node, client.call_async(Detect.Request(query="red mug")))
        bad = wait(node, client.call_async(Detect.Request(query="  ")))
        out["detect"] = [d.label for d in good.detections]
        out["bad_detect"] = [bad.error_code, bad.error_msg]

        action = ActionClient(node, RetrieveObject, names.RETRIEVE_OBJECT)
        if not action.wait_for_server(timeout_sec=20.0):
            raise TimeoutError("action server never appeared")
        feedback = []
        handle = wait(node, action.send_goal_async(RetrieveObject.Goal(instruction="find mug", budget=3),
                                                   feedback_callback=lambda f: feedback.append(
                                                       f.feedback.remaining_budget)))
        result = wait(node, handle.get_result_async()).result
        out["done"] = {"success": result.success, "steps": result.steps_used, "feedback": feedback}

        feedback2 = []
        handle = wait(node, action.send_goal_async(RetrieveObject.Goal(instruction="slow", budget=50),
                                                   feedback_callback=lambda f: feedback2.append(1)))
        deadline = time.time() + 10
        while len(feedback2) < 2 and time.time() < deadline:
            rclpy.spin_once(node, timeout_sec=0.1)
        wait(node, handle.cancel_goal_async())
        wrapped = wait(node, handle.get_result_async())
        out["canceled"] = {"status": wrapped.status, "steps": wrapped.result.steps_used,
                           "code": wrapped.result.error_code}
    finally:
        print(json.dumps(out), flush=True)
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
