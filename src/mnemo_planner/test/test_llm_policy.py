"""The LLM policy against a fake OpenAI-compatible server on 127.0.0.1: its prompt, what it makes of
unusable answers, and the fallback policy that continues a task when the endpoint fails."""
import json

import pytest

from mnemo_common.fake_openai import FakeOpenAI
from mnemo_common.llm import LlmConfig
from mnemo_common.skill_codes import SkillCode
from mnemo_planner.llm_policy import MODEL_ERROR, LlmPolicy
from mnemo_planner.loop import run_task
from mnemo_planner.tools import TOOLS, Action, ToolOutcome


class Box:
    def __init__(self):
        self.calls = []

    def execute(self, action):
        self.calls.append(action)
        if action.tool == "search_memory":
            return ToolOutcome(True, "1 records: [r1 day 1 09:00 kitchen] a red mug on the sink [sink_1]", {"records": []})
        if action.tool == "pick":
            return ToolOutcome(True, "picked mug [mug_1]", {"picked_id": "mug_1"})
        return ToolOutcome(True, "ok", {})


@pytest.fixture()
def fake():
    with FakeOpenAI() as server:
        yield server


class Fallback:
    """A fallback policy that records the working memory it was handed and ends the task."""

    def __init__(self):
        self.seen = []

    def decide(self, state):
        self.seen.append([e.action.tool for e in state.history])
        return Action("answer", {"text": "from the fallback"})


def policy(fake, vision=False, fallback=None):
    return LlmPolicy(LlmConfig(base_url=fake.base_url, model="fake-model", timeout=5.0, vision=vision),
                     fallback=fallback or Fallback())


def call(name, arguments):
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_valid_tool_calls_run_the_task(fake):
    fake.push(call("search_memory", {"text": "red mug", "k": 3}), call("navigate", {"target": "sink_1"}),
              call("pick", {"target": "mug_1"}))
    box = Box()
    result = run_task("Bring me the red mug", 10, policy(fake), box, lambda: 86400.0 + 9 * 3600)
    assert result.success and result.object_id == "mug_1" and result.steps_used == 3
    assert [a.tool for a in box.calls] == ["search_memory", "navigate", "pick"]
    # the prompt carries the budget, the working memory and the tool schemas
    body = fake.requests[-1]["body"]
    user = body["messages"][1]["content"]
    assert "Remaining budget: 8 of 10" in user and "search_memory" in user and "sink_1" in user
    assert {t["function"]["name"] for t in body["tools"]} >= {"search_memory", "navigate", "pick", "answer"}


def test_unusable_answers_cost_a_step_each_and_the_model_sees_why(fake):
    fake.push(call("teleport", {"to": "kitchen"}), call("pick", {"object": "mug"}),
              call("search_memory", {"text": "mug"}),
              {"tool_calls": [{"name": "pick", "arguments": "{not json"}]}, "I think the mug is in the kitchen.",
              call("answer", {"text": "on the sink"}))
    box = Box()
    result = run_task("Where is the mug?", 10, policy(fake), box, lambda: 0.0)
    outcomes = [(s.tool, s.ok, s.outcome) for s in result.trace]
    assert [o[1] for o in outcomes] == [False, False, True, False, False, True]
    assert "unknown tool" in outcomes[0][2]
    assert "unknown argument" in outcomes[1][2]
    assert "__invalid_json__" in outcomes[3][2] or "unknown argument" in outcomes[3][2]
    assert outcomes[4][0] == "no_tool_call"
    assert result.success and result.answer == "on the sink" and result.steps_used == 6
    assert [a.tool for a in box.calls] == ["search_memory"]  # nothing invalid reached the robot
    # each error was shown to the model in the next prompt
    assert "FAILED" in fake.requests[1]["body"]["messages"][1]["content"]


def test_the_prompt_gives_each_step_its_typed_outcome(fake):
    class Locked(Box):
        def execute(self, action):
            if action.tool == "open":
                return ToolOutcome(False, "open cabinet_1: the door did not move (learned locked=true)",
                                   {"outcome": int(SkillCode.NO_MOTION), "learned": {"locked": "true"}, "locked": True})
            if action.tool == "pick":
                return ToolOutcome(False, "pick mug: too far", {"outcome": int(SkillCode.OUT_OF_REACH),
                                                                 "reachable_from": "table_1"})
            return super().execute(action)

    fake.push(call("open", {"target": "cabinet_1"}), call("pick", {"target": "mug"}), call("done", {}))
    run_task("Bring me the mug", 5, policy(fake), Locked(), lambda: 0.0)
    user = fake.requests[-1]["body"]["messages"][1]["content"]
    assert '-> FAILED [NO_MOTION; learned locked=true]: "open cabinet_1' in user
    assert '-> FAILED [OUT_OF_REACH; reachable_from=table_1]: "pick mug' in user
    system = fake.requests[-1]["body"]["messages"][0]["content"]
    assert all(code.name in system for code in SkillCode)
    # the same tools the offline policies use, the answer tool among them
    assert [t["function"]["name"] for t in fake.requests[-1]["body"]["tools"]] == list(TOOLS)


def test_a_failing_endpoint_hands_the_task_to_the_fallback_and_the_trace_says_so(fake):
    fake.push(call("search_memory", {"text": "red mug"}), call("navigate", {"target": "sink_1"}), 500,
              call("pick", {"target": "mug_1"}))  # the endpoint would be back: the fallback keeps the task
    fallback = Fallback()
    result = run_task("Where is the red mug?", 10, policy(fake, fallback=fallback), Box(), lambda: 0.0)
    assert [s.tool for s in result.trace] == ["search_memory", "navigate", MODEL_ERROR, "answer"]
    switch = result.trace[2]
    assert not switch.ok and "500" in switch.arguments["error"]
    assert switch.arguments["fallback"] == "Fallback continues the task"
    assert result.success and result.answer == "from the fallback" and len(fake.requests) == 3
    assert fallback.seen == [["search_memory", "navigate", MODEL_ERROR]]  # it got the whole working memory


@pytest.mark.parametrize("garbage, why", [(b"<html>502 Bad Gateway</html>", "not JSON"),
                                          (b'{"error": "overloaded"}', "no chat completion"),
                                          (b'{"choices": [{"index": 0}]}', "without a message")])
def test_an_endpoint_answering_garbage_is_a_clear_error_and_the_fallback_continues(fake, garbage, why):
    fake.push(call("search_memory", {"text": "mug"}), garbage)
    result = run_task("Where is the mug?", 10, policy(fake), Box(), lambda: 0.0)
    assert [s.tool for s in result.trace] == ["search_memory", MODEL_ERROR, "answer"]
    assert why in result.trace[1].arguments["error"] and fake.base_url in result.trace[1].arguments["error"]
    assert result.answer == "from the fallback"


def test_a_model_that_keeps_answering_unusable_calls_hands_over_after_max_unusable(fake):
    fake.push("no idea", call("teleport", {}), call("pick", {}), call("answer", {"text": "too late"}))
    result = run_task("Where is the mug?", 10, policy(fake), Box(), lambda: 0.0)
    assert [s.tool for s in result.trace] == ["no_tool_call", "teleport", MODEL_ERROR, "answer"]
    assert "3 unusable answers in a row" in result.trace[2].arguments["error"]
    assert result.answer == "from the fallback"


def test_each_task_starts_with_the_model_again(fake):
    llm = policy(fake)
    fake.push(500)
    first = run_task("Where is the mug?", 5, llm, Box(), lambda: 0.0)
    fake.push(call("answer", {"text": "on the sink"}))
    second = run_task("Where is the cup?", 5, llm, Box(), lambda: 10.0)
    assert [s.tool for s in first.trace] == [MODEL_ERROR, "answer"] and second.answer == "on the sink"


def test_keyframes_are_attached_as_images_when_vision_is_on(fake, tmp_path):
    from PIL import Image

    img = tmp_path / "kf.png"
    Image.new("RGB", (8, 8), (255, 0, 0)).save(img)

    class KfBox(Box):
        def execute(self, action):
            if action.tool == "retrieve_keyframes":
                return ToolOutcome(True, "1 keyframes", {"keyframes": [{"id": "k1", "image_path": str(img)}]})
            return super().execute(action)

    fake.push(call("retrieve_keyframes", {"task": "red mug"}), call("done", {"success": False}))
    run_task("Bring me the red mug", 5, policy(fake, vision=True), KfBox(), lambda: 0.0)
    content = fake.requests[1]["body"]["messages"][1]["content"]
    assert isinstance(content, list) and any(p.get("type") == "image_url" for p in content)
    assert json.dumps(content).count("data:image/png;base64") == 1


def test_the_node_gives_the_llm_policy_the_offline_policy_and_the_conversation_as_fallback():
    pytest.importorskip("rclpy")
    from mnemo_planner.dialogue import DialogueContext
    from mnemo_planner.node import PlannerConfig, make_policy
    from mnemo_planner.policy import GeneralPolicy

    context = DialogueContext()
    llm = make_policy(PlannerConfig(policy="llm", llm_base_url="http://127.0.0.1:9/v1"), context)
    assert isinstance(llm, LlmPolicy) and isinstance(llm.fallback, GeneralPolicy)
    assert llm.fallback.context is context
    offline = make_policy(PlannerConfig(policy="offline"), context)
    assert isinstance(offline, GeneralPolicy) and offline.context is context

