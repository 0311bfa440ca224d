"""A request continues the one before when it opens with a connective of sequence or addition; a slip in
a longer connective word is forgiven, never a word of the language that merely resembles one."""
from __future__ import annotations

import pytest

from mnemo_planner.dialogue import continues


@pytest.mark.parametrize("text", ["After that, bring the dax.", "Next, the gizmo", "and then the plinth one",
                                  "One more thnig: the quorvo.", "Also the snorkum, please",
                                  "Great, thanks! Now the blicket.", "Okay, while you're at it, the dax",
                                  "You might also grab the dax.", "Right, the gizmo next.", "The blick too, please."])
def test_a_connective_continues_the_request_before(text):
    assert continues(text)


@pytest.mark.parametrize("text", ["The one I want is the dax.", "Them over there", "Bring me the gizmo.",
                                  "Andromeda's gizmo", "Nextdoor's dax", "Bring the gizmo next to the plinth.",
                                  "The dax is too heavy, bring the blick."])
def test_other_openings_start_afresh(text):
    assert not continues(text)
