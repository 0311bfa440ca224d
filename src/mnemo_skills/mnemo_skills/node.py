"""skills_node: the simulator's skill services on a real robot (Tiago, TidyBot++, or their
Gazebo / Isaac simulations), over nav2, the arm's controllers and pre-recorded motions.

Serves names.SKILL_* (Navigate, Detect, Open, Close, Peek, Pick, Place), the operator gate
names.OPERATOR_CONFIRM (ConfirmAction) plus a std_msgs/Bool decision topic, a std_srvs/Trigger
cancel service, and publishes names.INTERACTIONS and the pending action (std_msgs/String, latched).
"""
from __future__ import annotations

from dataclasses import dataclass

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node

from mnemo_common import names
from mnemo_common.ros import (
    declare_config, fill_skill_response, guarded, latched_qos, pose2d_from_msg, raise_for_failure, run_node,
)
from mnemo_common.types import MnemoError

from mnemo_skills.adapters import build_ports
from mnemo_skills.context import SkillSettings
from mnemo_skills.gate import OperatorGate
from mnemo_skills.profile import ProfileError, load_profile
from mnemo_skills.server import SkillServer

NODE_NAME = names.SKILLS_NODE
SKILL_CANCEL = "/mnemo/skills/cancel"  # std_srvs/Trigger
OPERATOR_PENDING = "/mnemo/skills/pending"  # std_msgs/String, latched: what waits for approval


@dataclass(frozen=True)
class SkillsConfig:
    profile_file: str = ""
    map_frame: str = "map"
    base_frame: str = "base_footprint"
    robot_pose_topic: str = names.ROBOT_POSE
    joint_states_topic: str = "/joint_states"
    nav_action: str = "/navigate_to_pose"
    operator_gate: bool = True
    operator_topic: str = "/mnemo/skills/operator_decision"
    operator_timeout: float = 60.0
    gated_skills: tuple = ("navigate", "open", "close", "peek", "pick", "place")
    navigate_timeout: float = 120.0
    skill_timeout: float = 90.0
    step_timeout: float = 30.0
    service_timeout: float = 5.0
    approach_standoff: float = 0.55
    obstacle_clearance: float = 0.25
    reach: float = 0.9


CONFIG_TYPE = SkillsConfig

DESCRIPTIONS = {
    "profile_file": "robot profile YAML (controllers, gripper, per-primitive motions); see mnemo_skills/profiles",
    "map_frame": "fixed frame of navigation goals and of the scene graph",
    "base_frame": "robot base frame (base_footprint on Tiago, base_link on TidyBot++)",
    "robot_pose_topic": "geometry_msgs/PoseStamped base pose, used when TF is not available",
    "joint_states_topic": "sensor_msgs/JointState topic with the gripper joints' position and effort",
    "nav_action": "nav2 NavigateToPose action name",
    "operator_gate": "when true each gated primitive waits for the operator's approval before it moves",
    "operator_topic": "std_msgs/Bool topic: true approves, false rejects the pending action ('' disables it)",
    "operator_timeout": "seconds to wait for the operator; no answer rejects the action",
    "gated_skills": "skills that wait for the operator when operator_gate is true",
    "navigate_timeout": "seconds a Navigate may take when the request gives no timeout",
    "skill_timeout": "seconds a manipulation primitive may take in all",
    "step_timeout": "seconds one controller or motion goal may take",
    "service_timeout": "seconds to wait for perception, scene-graph and action servers",
    "approach_standoff": "metres between a fixture's face and the base's approach pose",
    "obstacle_clearance": "metres kept between an approach pose and other fixtures",
    "reach": "metres from the base within which the arm acts on a fixture's footprint or an object "
             "(farther: NOT_AT_FIXTURE / OUT_OF_REACH); approach_standoff plus nav2's goal tolerance",
}


def settings_from(config: SkillsConfig) -> SkillSettings:
    return SkillSettings(map_frame=config.map_frame, navigate_timeout=config.navigate_timeout,
                         skill_timeout=config.skill_timeout, step_timeout=config.step_timeout,
                         service_timeout=config.service_timeout, operator_timeout=config.operator_timeout,
                         gated_skills=tuple(config.gated_skills), approach_standoff=config.approach_standoff,
                         obstacle_clearance=config.obstacle_clearance, reach=config.reach)


class SkillsNode(Node):
    def __init__(self, **node_kwargs):
        super().__init__(NODE_NAME, **node_kwargs)
        from mnemo_interfaces.srv import Close, ConfirmAction, Detect, Navigate, Open, Peek, Pick, Place
        from std_msgs.msg import Bool, String
        from std_srvs.srv import Trigger

        self.config = declare_config(self, CONFIG_TYPE, DESCRIPTIONS)
        if not self.config.profile_file:
            raise ProfileError("parameter profile_file is empty: give the robot profile YAML "
                               "(e.g. share/mnemo_skills/profiles/tiago.yaml)")
        profile = load_profile(self.config.profile_file)
        skills_group = MutuallyExclusiveCallbackGroup()  # one skill at a time, queued by the executor
        control_group = ReentrantCallbackGroup()  # confirm / cancel while a skill runs
        clients_group = ReentrantCallbackGroup()
        self.gate = OperatorGate(enabled=self.config.operator_gate)
        self.server = SkillServer(build_ports(self, self.config, profile, clients_group), profile,
                                  settings_from(self.config), self.gate)
        self._pending_pub = self.create_publisher(String, OPERATOR_PENDING, latched_qos())
        self.gate.on_pending = lambda p: self._pending_pub.publish(
            String(data=f"{p.action_id}: {p.description}" if p else ""))

        def skill(srv_type, name, run):
            def handler(request, response):
                result = run(request)
                fill_skill_response(response, result)
                raise_for_failure(result)  # guarded() turns it into error_code/error_msg; the fields stay filled
                return response

            self.create_service(srv_type, name, guarded(self, handler), callback_group=skills_group)

        s = self.server
        skill(Navigate, names.SKILL_NAVIGATE,
              lambda r: s.navigate(r.target, None if r.target else pose2d_from_msg(r.pose), float(r.timeout)))
        skill(Detect, names.SKILL_DETECT, lambda r: s.detect(r.query))
        skill(Open, names.SKILL_OPEN, lambda r: s.open(r.target))
        skill(Close, names.SKILL_CLOSE, lambda r: s.close(r.target))
        skill(Peek, names.SKILL_PEEK, lambda r: s.peek(r.target))
        skill(Pick, names.SKILL_PICK, lambda r: s.pick(r.target))
        skill(Place, names.SKILL_PLACE, lambda r: s.place(r.target))
        self.create_service(ConfirmAction, names.OPERATOR_CONFIRM, guarded(self, self._on_confirm),
                            callback_group=control_group)
        self.create_service(Trigger, SKILL_CANCEL, self._on_cancel, callback_group=control_group)
        if self.config.operator_topic:
            self.create_subscription(Bool, self.config.operator_topic, self._on_decision, 10,
                                     callback_group=control_group)
        gate = "on" if self.config.operator_gate else "off"
        self.get_logger().info(f"skills for {profile.robot} ready (operator gate {gate})")

    def _on_confirm(self, request, response):
        response.pending = self.gate.confirm(request.action_id, request.approve).action_id
        return response

    def _on_decision(self, msg) -> None:
        try:
            self.gate.confirm("", bool(msg.data))
        except MnemoError as exc:
            self.get_logger().warning(f"operator decision ignored: {exc.message}")

    def _on_cancel(self, request, response):
        running = self.server.cancel("canceled by request")
        response.success = bool(running)
        response.message = f"canceling {running}" if running else "no skill is running"
        return response

    def close(self) -> None:
        self.server.cancel("node shutting down")


def main(args=None) -> None:
    run_node(SkillsNode, args)


if __name__ == "__main__":
    main()

