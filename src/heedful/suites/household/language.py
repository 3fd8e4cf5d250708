"""Templated language of the protocol (Tables 3, 4 and A.2) and which rooms a phrase fits.

A *place phrase* says where the human is or will be, in one of Table 4's forms:

- `next_to`:       "next to the bathtub"                 -> rooms with a bathtub
- `next_to_three`: "next to the bed, shelves and chair"  -> rooms with all three
- `in_room`:       "in the bedroom"                      -> rooms of that function
- `in_room_with`:  "in the bedroom with the shelves"     -> rooms of that function with that piece ([WithObjects])
- `in_room_colour`:"in the bedroom with the yellow walls"-> the room of that function and wall colour (grounding)
- `doing`:         "washing my face"                     -> rooms of the activity's function (Table A.2)

`rooms_fitting` answers from room facts (functions, furniture, colours). The generator labels a task
ambiguous when the true facts leave more than one room; the commonsense agent uses the same function
with room functions it guesses from the furniture it saw.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from heedful.sims.household.vocab import ACTIVITIES, FURNITURE, ROOM_FUNCTIONS

PhraseKind = Literal["next_to", "next_to_three", "in_room", "in_room_with", "in_room_colour", "doing"]
PHRASE_KINDS: tuple[PhraseKind, ...] = (
    "next_to",
    "next_to_three",
    "in_room",
    "in_room_with",
    "in_room_colour",
    "doing",
)


@dataclass(frozen=True)
class RoomFacts:
    """What a phrase can refer to in one room."""

    function: str
    receptacles: frozenset[str]
    colour: str


@dataclass(frozen=True)
class Place:
    """A place phrase: its kind and arguments (function, receptacles, colour or activity)."""

    kind: PhraseKind
    function: str | None = None
    receptacles: tuple[str, ...] = ()
    colour: str | None = None
    activity: str | None = None

    def text(self) -> str:
        if self.kind == "next_to":
            return f"next to the {self.receptacles[0]}"
        if self.kind == "next_to_three":
            a, b, c = self.receptacles
            return f"next to the {a}, {b} and {c}"
        if self.kind == "in_room":
            return f"in the {self.function}"
        if self.kind == "in_room_with":
            return f"in the {self.function} with the {self.receptacles[0]}"
        if self.kind == "in_room_colour":
            return f"in the {self.function} with the {self.colour} walls"
        return str(self.activity)

    def fits(self, facts: RoomFacts) -> bool:
        if self.kind in ("next_to", "next_to_three"):
            return set(self.receptacles) <= facts.receptacles
        if self.function != facts.function:
            return False
        if self.kind == "in_room_with":
            return self.receptacles[0] in facts.receptacles
        if self.kind == "in_room_colour":
            return self.colour == facts.colour
        return True


def rooms_fitting(place: Place, rooms: Mapping[int, RoomFacts]) -> tuple[int, ...]:
    """Indices of the rooms the phrase fits, sorted."""
    return tuple(sorted(index for index, facts in rooms.items() if place.fits(facts)))


def moved_statement(category: str, place: Place) -> str:
    """What the human says after moving an object (Table 4, "I moved the object with me; I am ...")."""
    return f"I took a {category} and moved it with me. I am {place.text()}."


def will_be_statement(place: Place) -> str:
    """Where the human will be (S_hum; Table 4 with "I am" replaced by "I will be")."""
    return f"I will be {place.text()}."


def put_on_instruction(category: str, receptacle: str) -> str:
    return f"Put a {category} on the {receptacle}."


def put_in_instruction(category: str, function: str) -> str:
    return f"Put a {category} in the {function}."


def bring_instruction(category: str) -> str:
    return f"Bring a {category} to me."


def guess_function(receptacles: Sequence[str] | frozenset[str]) -> str:
    """The most likely room function given the furniture seen in a room (priors of `FURNITURE`).

    Pieces a function never holds count against it; ties go to the earlier function of Table A.1.
    """
    present = set(receptacles)
    best, best_score = ROOM_FUNCTIONS[0], -math.inf
    for function in ROOM_FUNCTIONS:
        priors = dict(FURNITURE[function])
        score = 0.0
        for category in {*present, *priors}:
            p = min(max(priors.get(category, 0.0), 0.02), 0.98)
            score += math.log(p) if category in present else math.log(1.0 - p)
        if score > best_score + 1e-12:
            best, best_score = function, score
    return best


def parse_place(text: str) -> Place | None:
    """Read a place phrase back (the inverse of `Place.text`); None when it is not one."""
    from heedful.sims.household.vocab import RECEPTACLES, WALL_COLOURS

    text = text.strip().rstrip(".").strip()
    if text.startswith("next to the "):
        names = [n.strip() for n in text[len("next to the ") :].replace(" and ", ", ").split(",")]
        if all(n in RECEPTACLES for n in names) and len(names) in (1, 3):
            return Place("next_to" if len(names) == 1 else "next_to_three", receptacles=tuple(names))
        return None
    if text.startswith("in the "):
        rest = text[len("in the ") :]
        for function in sorted(ROOM_FUNCTIONS, key=len, reverse=True):
            if rest == function:
                return Place("in_room", function=function)
            if rest.startswith(function + " with the "):
                detail = rest[len(function + " with the ") :]
                if detail.endswith(" walls") and detail[: -len(" walls")] in WALL_COLOURS:
                    return Place("in_room_colour", function=function, colour=detail[: -len(" walls")])
                if detail in RECEPTACLES:
                    return Place("in_room_with", function=function, receptacles=(detail,))
        return None
    for function, activities in ACTIVITIES.items():
        if text in activities:
            return Place("doing", function=function, activity=text)
    return None


@dataclass(frozen=True)
class Command:
    """What a reader of the words alone takes from the command."""

    category: str
    goal_kind: str
    receptacle: str | None = None
    function: str | None = None
    human_place: Place | None = None


def parse_command(text: str) -> Command | None:
    """Read a Table 3 instruction (with an S_hum "I will be ..." sentence); None when it is not one."""
    import re

    m = re.match(r"^Put a (\w+) on the (\w+)\.$", text.strip())
    if m:
        return Command(m.group(1), "receptacle", receptacle=m.group(2))
    m = re.match(r"^Put a (\w+) in the ([\w ]+)\.$", text.strip())
    if m:
        return Command(m.group(1), "room", function=m.group(2))
    m = re.match(r"^Bring a (\w+) to me\.(?: I will be (.+))?$", text.strip())
    if m:
        return Command(m.group(1), "human", human_place=parse_place(m.group(2) or ""))
    return None


def moved_object_place(statements: Sequence[str], category: str) -> Place | None:
    """Where the human said it took the last object of `category`, if it said so."""
    prefix = f"I took a {category} and moved it with me. I am "
    found = None
    for statement in statements:
        if statement.startswith(prefix):
            found = parse_place(statement[len(prefix) :])
    return found
