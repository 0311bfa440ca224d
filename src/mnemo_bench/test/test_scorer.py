"""The scorer on hand-made cases, through the simulator's TaskRunner (what the benchmark calls):
a number in the report means what it says."""
from mnemo_sim.tasks import TaskRunner


def _pick(runner, fixture, instance):
    assert runner.robot.navigate(target=fixture).success
    result = runner.robot.pick(instance)
    assert result.success, result.message
    return result


def test_wrong_instance_picked_fails(tiny):
    runner = TaskRunner(tiny, 0)
    runner.start_task("red_mug")
    _pick(runner, "counter_1", "mug_2")  # the blue mug: right class, wrong instance
    score = runner.score("red_mug")
    assert not score.success
    assert "wrong instance" in score.detail
    assert score.physical_actions == 2 and score.optimal_actions == 2


def test_right_instance_picked_succeeds_and_leaves_the_world(tiny):
    runner = TaskRunner(tiny, 0)
    runner.start_task("red_mug")
    _pick(runner, "table_1", "mug_1")
    score = runner.score("red_mug")
    assert score.success, score.detail
    assert runner.world.truth_location("mug_1") is None  # handed to the user


def test_nothing_picked_fails(tiny):
    runner = TaskRunner(tiny, 0)
    runner.start_task("remote")
    assert not runner.score("remote").success


def test_reach_task_scores_when_ending_at_a_listed_fixture(tiny):
    runner = TaskRunner(tiny, 0)
    runner.start_task("go_ketchup")
    runner.robot.navigate(target="cabinet_1")
    assert not runner.score("go_ketchup").success
    runner.start_task("go_ketchup")
    runner.robot.navigate(target="cabinet_2")
    score = runner.score("go_ketchup")
    assert score.success, score.detail


def test_answer_task_is_case_insensitive_and_needs_a_listed_string(tiny):
    runner = TaskRunner(tiny, 0)
    runner.start_task("recall_remote")
    assert runner.score("recall_remote", answer="On the SOFA in the living room.").success  # listed as 'Sofa'
    assert not runner.score("recall_remote", answer="On the coffee table.").success
    assert not runner.score("recall_remote", answer="").success
