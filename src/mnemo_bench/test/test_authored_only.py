"""Tasks that hinge on an attribute pixels cannot give (``needs_authored_attribute``): the benchmark
counts them apart from the tasks honest perception can solve. Homes, classes and names are invented."""
import pytest
import yaml


def task(tid, instruction, success, sequence=None):
    kind = next(iter(success))
    t = {"id": tid, "at": {"day": 2, "time": "13:00"}, "instruction": instruction,
         "type": "recall" if kind == "answer_any" else "visible",
         "family": "memory_query" if kind == "answer_any" else "attribute", "success": success,
         "optimal_actions": 0 if kind == "answer_any" else 2, "budget": 12}
    return dict(t, sequence=sequence) if sequence else t


def flagged(tiny_path, tmp_path, objects, tasks):
    """Ids of the tasks flagged, in the tiny flat's rooms and fixtures with these objects and tasks."""
    from mnemo_sim.scenario import load_scenario

    from mnemo_bench.realistic import needs_authored_attribute

    doc = yaml.safe_load(tiny_path.read_text())
    doc.update(objects=[{"id": oid, "class": label, "attributes": attributes, "size": [0.1, 0.1, 0.1],
                         "at": "table_1"} for oid, label, attributes in objects], timeline=[], tasks=tasks)
    path = tmp_path / "home.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    scenario = load_scenario(path)
    return {t.id for t in scenario.tasks if needs_authored_attribute(scenario, t)}


@pytest.fixture
def daxes():
    """Three daxes told apart by brand or colour, and a blick alone of its class."""
    return [("dax_1", "dax", {"color": "red", "brand": "Zenthra"}),
            ("dax_2", "dax", {"color": "red", "brand": "Morlup"}),
            ("dax_3", "dax", {"color": "blue"}),
            ("blick_1", "blick", {"color": "green", "title": "Quorvo Tales"}),
            ("wug_1", "wug", {"color": "grey", "text": "Chin Up"})]


def test_tasks_naming_an_attribute_pixels_cannot_give_are_counted_apart(tiny_path, tmp_path):
    from mnemo_sim.scenario import load_scenario

    from mnemo_bench.realistic import needs_authored_attribute

    doc = yaml.safe_load(tiny_path.read_text())
    doc["objects"][0]["attributes"]["material"] = "ceramic"  # the red mug; a blue mug is its look-alike
    doc["objects"][2]["attributes"]["brand"] = "Zenix"  # the remote: no look-alike
    doc["tasks"] += [dict(doc["tasks"][0], id="ceramic", instruction="Bring me the ceramic mug."),
                     dict(doc["tasks"][0], id="ceramic_cup", instruction="Bring me the ceramic cup."),  # no class word
                     dict(doc["tasks"][1], id="ceramic_remote", instruction="Bring me the ceramic-free remote control."),
                     dict(doc["tasks"][1], id="brand_remote", instruction="Bring me the Zenix remote control."),
                     dict(doc["tasks"][3], id="brand_recall", instruction="What brand was the remote?",
                          success={"answer_any": ["Zenix"]})]
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    scenario = load_scenario(path)
    flagged = {t.id for t in scenario.tasks if needs_authored_attribute(scenario, t)}
    # "red mug": colour is measured; the remote has no look-alike (and the mug's material is not asked of it)
    assert flagged == {"ceramic", "ceramic_cup", "brand_recall"}


def test_a_look_alike_called_by_another_name_with_its_brand_is_counted_apart(tiny_path, tmp_path, daxes):
    """A question (or the object a fetch declines) that calls a dax a 'gizmo' and says its brand
    hinges on the brand, as one saying 'dax' does; without the brand, or with a colour, it does not."""
    tasks = [task("where_brand", "Where did you last see the Zenthra gizmo?", {"answer_any": ["Sofa"]}),
             task("where_class", "Where did you last see the Zenthra dax?", {"answer_any": ["Sofa"]}),
             task("where_plain", "Where did you last see the gizmo?", {"answer_any": ["Sofa"]}),
             task("where_colour", "Where did you last see the blue gizmo?", {"answer_any": ["Sofa"]}),
             task("not_brand", "Bring me the gizmo, not the Morlup one.", {"pick_any": ["dax_1"]})]
    assert flagged(tiny_path, tmp_path, daxes, tasks) == {"where_brand", "where_class", "not_brand"}


def test_a_name_said_alone_is_counted_apart_even_without_look_alikes(tiny_path, tmp_path, daxes):
    """A title said with no class word names the blick by itself, alone of its class as it is;
    the same words said in passing, not as the name is written, name nothing."""
    tasks = [task("fetch_title", "Bring me 'Quorvo Tales'.", {"pick_any": ["blick_1"]}),
             task("when_title", "When did you last see Quorvo Tales?", {"answer_any": ["day 1"]}),
             task("fetch_class", "Bring me the blick.", {"pick_any": ["blick_1"]}),
             task("in_passing", "Chin up: where did you last see the thingy?", {"answer_any": ["Sofa"]})]
    assert flagged(tiny_path, tmp_path, daxes, tasks) == {"fetch_title", "when_title"}


def test_a_follow_up_of_a_task_that_needs_a_brand_is_counted_apart(tiny_path, tmp_path, daxes):
    """'it' and 'the other one' are what an earlier task of the sequence picked out by brand; a
    follow-up that picks its own object out by class and colour, or follows a colour, is not."""
    tasks = [task("where_brand", "Where did you last see the Zenthra dax?", {"answer_any": ["Sofa"]}, "s1"),
             task("fetch_it", "Bring it to me.", {"pick_any": ["dax_1"]}, "s1"),
             task("fetch_brand", "Bring me the Morlup dax.", {"pick_any": ["dax_2"]}, "s2"),
             task("fetch_other", "Now the other red one.", {"pick_any": ["dax_1"]}, "s2"),
             task("fetch_other_class", "And the other red dax.", {"pick_any": ["dax_1"]}, "s2"),
             task("fetch_blue", "Now the blue dax.", {"pick_any": ["dax_3"]}, "s2"),
             task("where_blue", "Where did you last see the blue dax?", {"answer_any": ["Sofa"]}, "s3"),
             task("fetch_blue_it", "Bring it to me.", {"pick_any": ["dax_3"]}, "s3")]
    assert flagged(tiny_path, tmp_path, daxes, tasks) == {"where_brand", "fetch_it", "fetch_brand", "fetch_other",
                                                          "fetch_other_class"}
