"""Task runner: fresh starts vs sequences, patrols, scoring and hand-over."""
from __future__ import annotations

import pytest

from mnemo_sim.scenario import Success, Task, clock
from mnemo_sim.scoring import judge
from mnemo_sim.skills import SkillConfig
from mnemo_sim.tasks import TaskRunner


def runner(scenario):
    return TaskRunner(scenario, skills=SkillConfig(miss_rate=0.0))


def test_run_patrols_until_task_then_no_repeat(small):
    r = runner(small)
    observations = list(r.run_patrols("find_mug"))
    assert len(observations) == sum(p.observations for p in small.patrol)
    assert list(r.run_patrols("find_mug")) == []


def test_pick_task_success_hands_object_over(small):
    r = runner(small)
    info = r.start_task("find_mug")
    assert info.clock == clock(1, "18:00") and info.budget == 10 and not info.continued
    r.robot.navigate("desk_1")  # mug moved to the desk at day 0 12:00
    assert r.robot.pick("red mug").success
    score = r.score("find_mug")
    assert score.success and score.physical_actions == 2 and score.optimal_actions == 2
    assert r.world.truth_location("mug_1") is None
    r.start_task("find_mug")  # fresh from the timeline: the mug is back
    assert r.world.truth_location("mug_1") == "desk_1" and r.robot.physical_actions == 0


def test_wrong_pick_fails(small):
    r = runner(small)
    r.start_task("find_mug")
    r.robot.navigate("desk_1")
    r.robot.pick("book")
    score = r.score("find_mug")
    assert not score.success and "wrong instance book_1" in score.detail
    assert r.world.held() == "book_1"


def test_sequence_keeps_robot_changes_fresh_task_drops_them(small):
    r = runner(small)
    r.start_task("cab_a")
    r.robot.navigate("cabinet_1")
    assert not r.robot.open("cabinet_1").success  # locked
    r.robot.navigate("cabinet_2")
    assert r.robot.open("cabinet_2").success
    assert r.score("cab_a").success
    info = r.start_task("cab_b")
    assert info.continued and r.world.is_open("cabinet_2") and r.world.at_fixture == "cabinet_2"
    assert r.robot.physical_actions == 0
    assert r.robot.pick("ketchup").success
    assert r.score("cab_b").success
    r.start_task("where_keys")
    assert not r.world.is_open("cabinet_2") and r.world.truth_location("ketchup_1") == "cabinet_2"


def test_reach_and_answer_scoring(small):
    r = runner(small)
    r.start_task("where_keys")
    assert r.score("where_keys", answer="On the Dining Table.").success
    assert not r.score("where_keys", answer="on the desk").success
    r.start_task("cab_a")
    assert not r.score("cab_a").success  # at home, no fixture
    assert r.score("cab_a", final_fixture="cabinet_2").success


def test_score_needs_the_running_task(small):
    r = runner(small)
    with pytest.raises(ValueError):
        r.score("find_mug")
    with pytest.raises(KeyError):
        r.start_task("nope")


def test_judge_rules():
    task = Task("t", 0.0, 0, "00:00", "x", "visible", "class", Success("pick_any", ("a", "b")), 1, 5)
    assert judge(task, ["b"], "", "")[0]
    assert not judge(task, [], "", "")[0]
    assert not judge(task, ["a", "c"], "", "")[0]
