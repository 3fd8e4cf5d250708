"""One grammar for group names: every suite's report names its groups through heedful.metrics.groups."""

from __future__ import annotations

import pytest

from heedful.agents.registry import make_agent
from heedful.conformance import _agent_sample, _rollouts
from heedful.metrics.groups import ALL, SEPARATOR, group_name, group_parts, keyed
from heedful.suites.registry import get_suite


def test_names_and_parts_round_trip() -> None:
    assert group_name() == ALL and group_parts(ALL) == []
    assert group_name("val_seen", "PnP") == "val_seen / PnP" and group_parts("val_seen / PnP") == ["val_seen", "PnP"]
    assert group_name(keyed("category", "set")) == "category:set"


@pytest.mark.parametrize("suite", ["decisions", "household", "tabletop"])
def test_every_group_a_report_names_follows_the_grammar(suite: str) -> None:
    chosen = get_suite(suite)
    sample = _agent_sample(chosen)
    records = _rollouts(sample, lambda: make_agent("oracle", {}, suite), sample.run_episodes[:3])
    options = {"resamples": 20, "cluster": chosen.report_clusters[0], "seed": 0}
    groups = {row.group for row in chosen.report(records, options)}
    assert ALL in groups and len(groups) > 2
    for group in groups - {ALL, "status", "usage"}:
        name = group.removeprefix("chance ")  # tabletop's exact chance rows carry a prefix
        parts = group_parts(name)
        assert all(part and SEPARATOR.strip() not in part for part in parts), group
        assert group_name(*parts) == name, group
