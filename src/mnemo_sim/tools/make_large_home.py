"""Generate scenarios/large_home.yaml: a six-room home over six days with daily object movements.

Deterministic (seeded). Tasks are chosen from the replayed timeline so they are honest: targets are
where the instruction says at task time. Run: python src/mnemo_sim/tools/make_large_home.py
"""
from __future__ import annotations

import random
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parent.parent / "scenarios" / "large_home.yaml"
H = 1.5708
P = 3.1416

ROOMS = [("kitchen", [0, 0, 6, 5]), ("dining_room", [6, 0, 11, 5]), ("living_room", [11, 0, 17, 5]),
         ("hallway", [6, 5, 11, 8]), ("bedroom", [0, 5, 6, 10]), ("study", [11, 5, 17, 10])]
DOORS = [("kitchen", "dining_room", [6, 2.5]), ("dining_room", "living_room", [11, 2.5]),
         ("dining_room", "hallway", [8.5, 5]), ("hallway", "bedroom", [6, 6.5]), ("hallway", "study", [11, 6.5])]
# id, class, room, pose, size, kind, extra
FIXTURES = [
    ("counter_1", "counter", "kitchen", [3.0, 0.3, H], [0.6, 2.4, 0.9], "surface", {}),
    ("sink_1", "sink", "kitchen", [1.0, 0.3, H], [0.6, 0.8, 0.9], "surface", {}),
    ("cabinet_1", "cabinet", "kitchen", [0.2, 1.8, 0], [0.4, 0.7, 0.9], "container", {"locked": True}),
    ("cabinet_2", "cabinet", "kitchen", [0.2, 2.6, 0], [0.4, 0.7, 0.9], "container", {}),
    ("cabinet_3", "cabinet", "kitchen", [0.2, 3.4, 0], [0.4, 0.7, 0.9], "container", {}),
    ("fridge_1", "fridge", "kitchen", [5.0, 4.6, -H], [0.8, 0.8, 1.8], "container", {}),
    ("dining_table_1", "dining table", "dining_room", [8.5, 2.5, 0], [1.0, 1.6, 0.75], "surface", {}),
    ("sideboard_1", "sideboard", "dining_room", [8.5, 0.25, H], [0.5, 1.6, 0.85], "surface", {}),
    ("sofa_1", "sofa", "living_room", [14.0, 4.5, -H], [0.9, 2.2, 0.45], "surface", {"attributes": {"color": "blue"}}),
    ("coffee_table_1", "coffee table", "living_room", [14.0, 2.8, -H], [0.6, 1.1, 0.45], "surface", {}),
    ("tv_cabinet_1", "tv cabinet", "living_room", [14.0, 0.25, H], [0.5, 1.8, 0.55], "container", {}),
    ("shoe_rack_1", "shoe rack", "hallway", [8.5, 7.75, -H], [0.5, 1.4, 0.6], "surface", {}),
    ("bed_1", "bed", "bedroom", [1.0, 8.0, 0], [2.0, 1.6, 0.5], "surface", {}),
    ("nightstand_1", "nightstand", "bedroom", [0.25, 9.5, 0], [0.5, 0.5, 0.6], "surface", {}),
    ("wardrobe_1", "wardrobe", "bedroom", [5.7, 8.0, P], [0.6, 1.5, 2.0], "container", {}),
    ("desk_1", "desk", "study", [14.0, 9.6, -H], [0.7, 1.6, 0.75], "surface", {}),
    ("bookshelf_1", "bookshelf", "study", [16.8, 7.5, P], [0.4, 1.4, 1.2], "surface", {}),
    ("desk_drawer_1", "drawer", "study", [12.0, 9.7, -H], [0.5, 0.5, 0.7], "container", {}),
]
MOVABLE_SURFACES = ["counter_1", "dining_table_1", "sideboard_1", "sofa_1", "coffee_table_1", "desk_1",
                    "nightstand_1", "bed_1", "shoe_rack_1", "bookshelf_1"]


def objects():
    out = []

    def add(oid, cls, attrs, size, at):
        out.append({"id": oid, "class": cls, "attributes": attrs, "size": size, "at": at})

    colors = ["red", "blue", "green", "white", "black", "yellow"]
    for i, c in enumerate(colors):
        add(f"mug_{i + 1}", "mug", {"color": c, "material": "ceramic"}, [0.08, 0.08, 0.1],
            ["sink_1", "counter_1", "dining_table_1", "desk_1", "coffee_table_1", "nightstand_1"][i])
    for i, (c, title) in enumerate([("green", "Dune"), ("red", "Emma"), ("blue", "Ulysses"), ("black", "Hamlet"),
                                    ("white", "Walden"), ("orange", "Beloved")]):
        add(f"book_{i + 1}", "book", {"color": c, "title": title}, [0.15, 0.22, 0.03],
            ["bookshelf_1", "bookshelf_1", "desk_1", "nightstand_1", "coffee_table_1", "bookshelf_1"][i])
    for i, c in enumerate(["black", "grey"]):
        add(f"remote_{i + 1}", "remote control", {"color": c}, [0.05, 0.18, 0.02], ["sofa_1", "coffee_table_1"][i])
    add("keys_1", "keys", {"color": "silver"}, [0.07, 0.04, 0.02], "shoe_rack_1")
    add("wallet_1", "wallet", {"color": "brown", "material": "leather"}, [0.11, 0.09, 0.02], "shoe_rack_1")
    add("phone_1", "phone", {"color": "black"}, [0.07, 0.15, 0.01], "desk_1")
    add("glasses_1", "glasses", {"color": "black", "kind": "reading"}, [0.14, 0.05, 0.04], "nightstand_1")
    add("laptop_1", "laptop", {"color": "silver"}, [0.32, 0.22, 0.02], "desk_1")
    add("headphones_1", "headphones", {"color": "white"}, [0.18, 0.16, 0.08], "desk_1")
    add("plant_1", "potted plant", {"color": "green"}, [0.15, 0.15, 0.3], "sideboard_1")
    add("vase_1", "vase", {"color": "white", "pattern": "floral"}, [0.12, 0.12, 0.3], "dining_table_1")
    add("fruit_bowl_1", "fruit bowl", {"color": "brown", "material": "wood"}, [0.28, 0.28, 0.1], "dining_table_1")
    add("newspaper_1", "newspaper", {"color": "grey"}, [0.3, 0.4, 0.01], "coffee_table_1")
    add("umbrella_1", "umbrella", {"color": "red"}, [0.08, 0.08, 0.9], "shoe_rack_1")
    add("scarf_1", "scarf", {"color": "purple", "pattern": "checked"}, [0.2, 0.3, 0.03], "bed_1")
    add("pillow_1", "pillow", {"color": "white"}, [0.5, 0.35, 0.12], "bed_1")
    add("water_bottle_1", "water bottle", {"color": "green", "material": "steel"}, [0.07, 0.07, 0.25], "desk_1")
    add("water_bottle_2", "water bottle", {"color": "green", "material": "plastic"}, [0.07, 0.07, 0.25], "counter_1")
    add("kettle_1", "kettle", {"color": "black"}, [0.2, 0.15, 0.25], "counter_1")
    add("toaster_1", "toaster", {"color": "silver"}, [0.28, 0.18, 0.2], "counter_1")
    add("cutting_board_1", "cutting board", {"color": "brown", "material": "wood"}, [0.3, 0.4, 0.02], "counter_1")
    # hidden in containers
    add("cereal_1", "cereal box", {"color": "yellow", "brand": "Corn Flakes"}, [0.08, 0.2, 0.3], "cabinet_2")
    add("pasta_1", "pasta", {"color": "blue", "brand": "Barilla"}, [0.06, 0.15, 0.25], "cabinet_2")
    add("rice_1", "rice bag", {"color": "white"}, [0.1, 0.15, 0.25], "cabinet_3")
    add("coffee_1", "coffee jar", {"color": "black"}, [0.1, 0.1, 0.15], "cabinet_3")
    add("milk_1", "milk carton", {"color": "white"}, [0.07, 0.07, 0.2], "fridge_1")
    add("eggs_1", "egg carton", {"color": "grey"}, [0.1, 0.3, 0.07], "fridge_1")
    add("cheese_1", "cheese", {"color": "yellow"}, [0.1, 0.1, 0.05], "fridge_1")
    add("dvd_1", "dvd", {"color": "black", "title": "Alien"}, [0.14, 0.19, 0.015], "tv_cabinet_1")
    add("batteries_1", "batteries", {"color": "silver"}, [0.05, 0.06, 0.02], "tv_cabinet_1")
    add("scissors_1", "scissors", {"color": "orange"}, [0.08, 0.2, 0.02], "desk_drawer_1")
    add("stapler_1", "stapler", {"color": "black"}, [0.05, 0.15, 0.06], "desk_drawer_1")
    add("coat_1", "coat", {"color": "navy"}, [0.5, 0.2, 0.9], "wardrobe_1")
    add("hat_1", "hat", {"color": "beige"}, [0.3, 0.3, 0.12], "wardrobe_1")
    add("parcel_1", "parcel", {"color": "brown", "text": "Amazon"}, [0.3, 0.2, 0.15], None)
    return out


DAYS = 6


def main() -> None:
    rng = random.Random(1234)
    objs = objects()
    locs = {o["id"]: o["at"] for o in objs}
    wanderers = ["mug_1", "mug_3", "mug_4", "book_3", "book_5", "remote_1", "keys_1", "wallet_1", "phone_1",
                 "glasses_1", "headphones_1", "newspaper_1", "water_bottle_1", "scarf_1", "laptop_1"]
    timeline = []
    # keys: usually on the shoe rack (home all day), evenings elsewhere; glasses: usually nightstand
    for day in range(DAYS):
        slots = sorted(rng.sample(range(7 * 60, 22 * 60, 10), 14))
        for minute in slots:
            oid = rng.choice(wanderers)
            if oid in ("keys_1", "glasses_1") and 9 * 60 <= minute < 17 * 60:
                continue  # they keep their usual place during patrol hours
            choices = [f for f in MOVABLE_SURFACES if f != locs[oid]]
            to = rng.choice(choices)
            locs[oid] = to
            timeline.append({"day": day, "time": f"{minute // 60:02d}:{minute % 60:02d}", "move": oid, "to": to})
        # evening: keys and glasses go back home before the next patrol
        for oid, home in (("keys_1", "shoe_rack_1"), ("glasses_1", "nightstand_1")):
            if locs[oid] != home:
                timeline.append({"day": day, "time": "22:30", "move": oid, "to": home})
                locs[oid] = home
    timeline.append({"day": 4, "time": "23:00", "add": "parcel_1", "to": "wardrobe_1"})
    # Final day: task-relevant moves after the last patrol (day 5 ends 17:00).
    timeline += [
        {"day": 5, "time": "18:00", "move": "keys_1", "to": "coffee_table_1"},
        {"day": 5, "time": "18:05", "move": "glasses_1", "to": "dining_table_1"},
    ]
    timeline.sort(key=lambda e: (e["day"], e["time"]))
    route = ["kitchen", "dining_room", "living_room", "dining_room", "hallway", "study", "hallway", "bedroom",
             "hallway", "dining_room"]
    patrol = [{"day": d, "start": "08:00", "end": "17:00", "observations": 1100, "route": route} for d in range(DAYS)]
    data = {
        "format": "household-scenario/1", "name": "large_home", "seed": 99,
        "rooms": [{"id": r, "rect": [float(v) for v in rect]} for r, rect in ROOMS],
        "doors": [{"between": [a, b], "at": [float(v) for v in at]} for a, b, at in DOORS],
        "fixtures": [{"id": i, "class": c, "room": r, "pose": p, "size": s, "kind": k, **x}
                     for i, c, r, p, s, k, x in FIXTURES],
        "objects": objs, "timeline": timeline, "patrol": patrol, "tasks": [],
    }
    # Tasks from the replayed state (checked again by `mnemo scenario check` and the tests).
    from mnemo_sim.scenario import parse_scenario
    from mnemo_sim.world import World
    sc = parse_scenario(data, "large_home")
    world = World(sc)
    from mnemo_sim.scenario import clock
    world.reset_to(clock(5, "19:00"))
    where = world.truth_location
    fixture_label = {f["id"]: f["class"] for f in data["fixtures"]}
    world.reset_to(clock(4, "12:00"))
    book_yesterday = where("book_5")
    world.reset_to(clock(5, "19:00"))

    def t(tid, instr, typ, fam, success, opt, budget=20, at=("19:00", 5), seq=None):
        task = {"id": tid, "at": {"day": at[1], "time": at[0]}, "instruction": instr, "type": typ, "family": fam,
                "success": success, "optimal_actions": opt, "budget": budget}
        if seq:
            task["sequence"] = seq
        data["tasks"].append(task)

    t("lh_class_laptop", "Please bring me a laptop.", "visible", "class", {"pick_any": ["laptop_1"]}, 2)
    t("lh_attr_purple_scarf", "Can you fetch the purple checked scarf?", "visible", "attribute",
      {"pick_any": ["scarf_1"]}, 2)
    t("lh_spatial_vase", f"Get the vase from the {fixture_label[where('vase_1')]}.", "visible", "spatial",
      {"pick_any": ["vase_1"]}, 2)
    t("lh_st_book", f"Bring me the book that was on the {fixture_label[book_yesterday]} yesterday at noon.",
      "visible", "spatial_temporal", {"pick_any": ["book_5"]}, 2)
    t("lh_sf_keys", "Bring me the keys that are usually on the shoe rack.", "visible", "spatial_frequentist",
      {"pick_any": ["keys_1"]}, 2)
    t("lh_sf_glasses", "I need my reading glasses, the ones that usually live on the nightstand.", "visible",
      "spatial_frequentist", {"pick_any": ["glasses_1"]}, 2)
    t("lh_cs_eggs", "I want to bake a cake. Get me the eggs.", "commonsense", "commonsense", {"pick_any": ["eggs_1"]}, 3)
    t("lh_cs_batteries", "The remote is dead; find me some batteries.", "commonsense", "commonsense",
      {"pick_any": ["batteries_1"]}, 3)
    t("lh_seq_pasta", "Look through the kitchen cabinets for the pasta.", "interactive", "locked",
      {"reach_any": ["cabinet_2"]}, 4, 12, ("19:30", 5), "kitchen_cabinets")
    t("lh_seq_coffee", "Now find the coffee.", "interactive", "locked", {"pick_any": ["coffee_1"]}, 3, 8,
      ("19:40", 5), "kitchen_cabinets")
    t("lh_match_bottle", "Bring me the steel water bottle, not the plastic one.", "visible", "matching",
      {"pick_any": ["water_bottle_1"]}, 2)
    t("lh_recall_umbrella", "What colour is the umbrella you saw in the hallway?", "recall", "memory_query",
      {"answer_any": ["red"]}, 0, 6)
    OUT.write_text("# Generated by tools/make_large_home.py: six rooms, six days, 1,100 observations a day.\n"
                   + yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=120))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
