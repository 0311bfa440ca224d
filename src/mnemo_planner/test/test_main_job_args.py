"""`mnemo run`'s options: the perception mode reaches the launch file, and a wrong value is refused."""
import pytest

from mnemo_planner.main_job import parse_args


def test_perception_mode_is_an_option_with_oracle_as_default():
    assert parse_args([]).perception == "oracle"
    assert parse_args(["--perception", "honest"]).perception == "honest"
    with pytest.raises(SystemExit):
        parse_args(["--perception", "psychic"])
