"""Instruction templates of the decisions suite, per category (and subtype).

Base and change instances of a family share one template (a minimal pair: only the changed constraint's
words differ); preserve and change_preserve share another template of the same key, so rewrites differ
in clause structure as well as in word choice. Templates marked held out are used only in the test split
(unless the generation config turns the hold-out off). Slots other than the frame words are
task-critical and are masked in the masking control.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Formatter

from heedful.language.realize import Template

FRAME_SLOTS = frozenset({"do", "everything", "items", "done"})


@dataclass(frozen=True)
class Wording:
    """A template and whether it belongs to the held-out (test-only) wording."""

    template: Template
    held_out: bool


def _t(template_id: str, text: str, held_out: bool = False) -> Wording:
    slots = {field for _, field, _, _ in Formatter().parse(text) if field}
    return Wording(Template(id=template_id, text=text, critical=frozenset(slots - FRAME_SLOTS)), held_out)


TEMPLATES: dict[str, tuple[Wording, ...]] = {
    "inhibition/polarity": (
        _t("inh-a", "Of the {group}, {sel}."),
        _t("inh-b", "Look at the two {group} and {sel}."),
        _t("inh-c", "There are two {group}: {sel}."),
        _t("inh-d", "Among the {group}, {sel}.", held_out=True),
        _t("inh-e", "Between the two {group}, {sel}.", held_out=True),
    ),
    "inhibition/choice": (
        _t("ch-a", "{opt_vp}, but not {rel_one}."),
        _t("ch-b", "{opt_vp}; of the two, leave out {rel_one}."),
        _t("ch-c", "Either {opt_vp}, just not {rel_one}.", held_out=True),
        _t("ch-d", "{opt_vp}, whichever isn't {rel_one}.", held_out=True),
    ),
    "set": (
        _t("set-a", "{do} {pol} the {group}."),
        _t("set-b", "Of all the {items}, {do} {pol} the {group}."),
        _t("set-c", "{do} every one of the {items} that {pred}."),
        _t("set-d", "{split_clause}."),
        _t("set-e", "Go through the {items} and {do} each one that {pred1}.", held_out=True),
        _t("set-f", "Please {do} {pol} the {group}.", held_out=True),
        _t("set-g", "{do} whichever {items} {pred}.", held_out=True),
    ),
    "cardinality": (
        _t("card-a", "{do} exactly {k} of the {group}: {ones_ranked}."),
        _t("card-b", "Of the {group}, {do} {k_ranked}."),
        _t("card-c", "Look at the {group} and {do} {k_ranked}; leave the rest."),
        _t("card-f", "{do} all the {group} except {all_but}."),
        _t("card-d", "I need {k} of the {group} {done}: {ones_ranked}.", held_out=True),
        _t("card-e", "From the {group}, {do} {k_ranked}.", held_out=True),
        _t("card-g", "{do} all of the {group} but {all_but}.", held_out=True),
    ),
    "temporal/explicit": (
        _t("tmp-a", "{x_vp} {rel} {y_ger}."),
        _t("tmp-b", "{rel} {y_ger}, make sure to {x_vp}."),
        _t("tmp-c", "{x_ger} has to come {rel} {y_ger}."),
        _t("tmp-d", "{x_vp} {rel} {y_ger}.", held_out=True),
        _t("tmp-e", "{rel} {y_ger}, {x_vp}.", held_out=True),
    ),
    "temporal/rule": (
        _t("ord-a", "{do} all the {group} one at a time, {order}."),
        _t("ord-b", "Working {order}, {do} each of the {group} in turn."),
        _t("ord-c", "{do} every one of the {group}, going {order}."),
        _t("ord-d", "{do} the {group} one by one, {order}.", held_out=True),
        _t("ord-e", "{do} each of the {group}, {order}.", held_out=True),
    ),
    "multi": (
        _t("mul-a", "Do not {not_vp}. Of the remaining {group}, {do} {k_ranked}."),
        _t("mul-b", "Without {not_ger}, {do} {k_ranked} among the remaining {group}."),
        _t("mul-c", "You may not {not_vp}; from the rest of the {group}, {do} exactly {k}: {ones_ranked}."),
        _t("mul-d", "Don't {not_vp}. From the rest of the {group}, {do} {k_ranked}.", held_out=True),
        _t("mul-e", "Skip {not_ger}; of the remaining {group}, {do} {k_ranked}.", held_out=True),
    ),
}


def template_key(category: str, subtype: str) -> str:
    """The TEMPLATES key for a family's category and subtype."""
    if category == "inhibition":
        return "inhibition/choice" if subtype == "choice" else "inhibition/polarity"
    return f"{category}/{subtype}" if f"{category}/{subtype}" in TEMPLATES else category


def templates_for(key: str, held_out: bool | None) -> tuple[Template, ...]:
    """The templates a split may use: training ones (False), held-out ones (True) or all (None)."""
    return tuple(w.template for w in TEMPLATES[key] if held_out is None or w.held_out == held_out)


def all_template_ids(held_out: bool | None = None) -> set[str]:
    return {t.id for key in TEMPLATES for t in templates_for(key, held_out)}
