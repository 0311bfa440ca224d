"""The LLM policy against a fake OpenAI-compatible server on 127.0.0.1."""
import json

import pytest

from mnemo_common.fake_openai import FakeOpenAI
from mnemo_common.llm import LlmConfig
from mnemo_planner.llm_policy import LlmPolicy
from mnemo_planner.loop import run_task
from mnemo_planner.tools import ToolOutcome


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


def policy(fake, vision=False):
    return LlmPolicy(LlmConfig(base_url=fake.base_url, model="fake-model", timeout=5.0, vision=vision))


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


def test_unknown_tool_bad_arguments_and_non_json_cost_a_step_each(fake):
    fake.push(call("teleport", {"to": "kitchen"}), call("pick", {"object": "mug"}),
              {"tool_calls": [{"name": "pick", "arguments": "{not json"}]}, "I think the mug is in the kitchen.",
              500, call("answer", {"text": "on the sink"}))
    box = Box()
    result = run_task("Where is the mug?", 10, policy(fake), box, lambda: 0.0)
    outcomes = [(s.tool, s.ok, s.outcome) for s in result.trace]
    assert [o[1] for o in outcomes] == [False, False, False, False, False, True]
    assert "unknown tool" in outcomes[0][2]
    assert "unknown argument" in outcomes[1][2]
    assert "__invalid_json__" in outcomes[2][2] or "unknown argument" in outcomes[2][2]
    assert outcomes[3][0] == "no_tool_call" and outcomes[4][0] == "model_error"
    assert result.success and result.answer == "on the sink" and result.steps_used == 6
    assert box.calls == []  # nothing invalid reached the robot
    # each error was shown to the model in the next prompt
    assert "FAILED" in fake.requests[1]["body"]["messages"][1]["content"]


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
