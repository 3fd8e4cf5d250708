"""Instruction templates of the decisions suite, per category (and subtype).

Base and change instances of a family share one template (a minimal pair: only the changed constraint's
words differ); preserve and change_preserve share another template of the same category, so rewrites
differ in clause structure as well as in word choice. Slots other than the frame words (`do`,
`everything`, `items`) are task-critical and are masked in the masking control.
"""

from __future__ import annotations

from heedful.language.realize import Template

FRAME_SLOTS = frozenset({"do", "everything", "items"})


def _t(template_id: str, text: str) -> Template:
    from string import Formatter

    slots = {field for _, field, _, _ in Formatter().parse(text) if field}
    return Template(id=template_id, text=text, critical=frozenset(slots - FRAME_SLOTS))


TEMPLATES: dict[str, tuple[Template, ...]] = {
    "inhibition": (
        _t("inh-a", "{do} one of the {group}, but do not {not_vp}."),
        _t("inh-b", "Without {not_ger}, {do} one of the {group}."),
        _t("inh-c", "You must not {not_vp}; apart from that, {do} any one of the {group}."),
        _t("inh-d", "{not_ger} is not allowed here, so {do} one of the {group} instead."),
    ),
    "set/exclusion": (
        _t("exc-a", "{do} {everything} except the {group}."),
        _t("exc-b", "Leave out the {group} and {do} everything else."),
        _t("exc-c", "Apart from the {group}, {do} {everything}."),
        _t("exc-d", "Skip the {group}; {do} all of the rest."),
    ),
    "set/retention": (
        _t("ret-a", "{do} only the {group}."),
        _t("ret-b", "{do} the {group} and nothing else."),
        _t("ret-c", "The {group} are the only ones to {do}."),
        _t("ret-d", "Of all the {items}, {do} just the {group}."),
    ),
    "cardinality": (
        _t("card-a", "{do} exactly {k} of the {group}: {ones_ranked}."),
        _t("card-b", "Of the {group}, {do} {k_ranked}."),
        _t("card-c", "Look at the {group} and {do} {k_ranked}; leave the rest."),
    ),
    "temporal/explicit": (
        _t("tmp-a", "First {first_vp}, then {then_vp}."),
        _t("tmp-b", "Before you {then_vp}, {first_vp}."),
        _t("tmp-c", "{then_vp} only after {first_ger}."),
        _t("tmp-d", "{first_vp}, and once that is done, {then_vp}."),
    ),
    "temporal/rule": (
        _t("ord-a", "{do} all the {group} one at a time, {order}."),
        _t("ord-b", "Going {order}, {do} each of the {group} in turn."),
        _t("ord-c", "One by one and {order}, {do} every one of the {group}."),
    ),
    "multi": (
        _t("mul-a", "{do} exactly {k} of the {group}, {ones_ranked}, but do not {not_vp}."),
        _t("mul-b", "Never {not_vp}. Otherwise, {do} exactly {k} of the {group}: {ones_ranked}."),
        _t("mul-c", "Without {not_ger}, look at the {group} and {do} {k_ranked}."),
    ),
}


def template_key(category: str, subtype: str) -> str:
    """The TEMPLATES key for a family's category and subtype."""
    return f"{category}/{subtype}" if f"{category}/{subtype}" in TEMPLATES else category


def all_template_ids() -> set[str]:
    return {t.id for group in TEMPLATES.values() for t in group}
