"""A RosClient whose goal-accept reply is lost on the way (the future it waits on never completes):
the goal's feedback shows the server runs it, so the client asks for the result by the goal's id."""
import json

from rclpy.task import Future

from mnemo_common import names
from mnemo_common.ros_client import RosClient
from mnemo_common.ros import action_client
from mnemo_interfaces.action import RetrieveObject


def main() -> None:
    with RosClient("lost_reply_client") as client:
        action = client._clients[names.RETRIEVE_OBJECT] = action_client(client.node, RetrieveObject,
                                                                        names.RETRIEVE_OBJECT)
        send = action.send_goal_async

        def lose_the_reply(*args, **kwargs):
            send(*args, **kwargs)  # the goal goes out; the reply that accepts it never arrives here
            return Future()

        action.send_goal_async = lose_the_reply
        feedback = []
        status, result = client.send_goal(RetrieveObject, names.RETRIEVE_OBJECT,
                                          RetrieveObject.Goal(instruction="find the gizmo", budget=3),
                                          feedback=lambda f: feedback.append(f.remaining_budget),
                                          timeout=60.0, accept_timeout=3.0)
        print(json.dumps({"status": int(status), "success": bool(result.success), "steps": len(result.trace),
                          "feedback": feedback, "code": int(result.error_code)}))


if __name__ == "__main__":
    main()
