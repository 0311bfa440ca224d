"""`mnemo run`'s options: honest perception unless oracle is asked for, and a wrong value is refused."""
import pytest

from mnemo_planner.main_job import parse_args


def test_perception_mode_is_an_option_with_honest_as_default():
    assert parse_args([]).perception == "honest"
    assert parse_args(["--perception", "oracle"]).perception == "oracle"
    with pytest.raises(SystemExit):
        parse_args(["--perception", "psychic"])
