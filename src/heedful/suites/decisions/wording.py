"""The decisions suite's word choices, each split into training wording and held-out wording.

Every `Pool` is `(train, held_out)`. With the hold-out on (the default), train and val instructions draw
only from the first tuple and test instructions only from the second, so a model fitted on the training
split meets unseen verbs, nouns, rank and order phrases, polarity and relation words at test time.
`generate --set held_out_wording=false` draws every split from both tuples instead.
"""

from __future__ import annotations

Pool = tuple[tuple[str, ...], tuple[str, ...]]

COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}

# verb -> (gerund, past participle)
OBJECT_VERBS: dict[str, tuple[str, str]] = {
    "pick up": ("picking up", "picked up"),
    "grab": ("grabbing", "grabbed"),
    "take": ("taking", "taken"),
    "collect": ("collecting", "collected"),
    "fetch": ("fetching", "fetched"),
    "select": ("selecting", "selected"),
}
ACTION_VERBS: dict[str, tuple[str, str]] = {
    "carry out": ("carrying out", "carried out"),
    "perform": ("performing", "performed"),
    "execute": ("executing", "executed"),
    "do": ("doing", "done"),
    "complete": ("completing", "completed"),
}
DO_OBJECT: Pool = (("pick up", "grab", "take"), ("collect", "fetch", "select"))
DO_ACTION: Pool = (("carry out", "perform", "execute"), ("do", "complete"))

SIZE_WORDS: dict[str, Pool] = {"small": (("small",), ("little",)), "large": (("large",), ("big",))}
OBJECT_NOUNS: Pool = (("objects", "items"), ("things", "pieces"))
ACTION_NOUNS: Pool = (("actions", "listed actions"), ("options", "available actions"))
EVERYTHING_OBJECT: Pool = (("all the objects", "every object"), ("all the things", "each piece"))
EVERYTHING_ACTION: Pool = (("all the listed actions", "every listed action"), ("each available action",))

# verb -> pool of (imperative, gerund); {o} is the object, {t} the target, {d} the direction phrase
ACTION_FORMS: dict[str, tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]] = {
    "pick": (
        (("pick up {o}", "picking up {o}"), ("grab {o}", "grabbing {o}")),
        (("lift {o}", "lifting {o}"), ("raise {o}", "raising {o}")),
    ),
    "place_in": (
        (("put {o} in {t}", "putting {o} in {t}"), ("place {o} into {t}", "placing {o} into {t}")),
        (("drop {o} into {t}", "dropping {o} into {t}"),),
    ),
    "stack_on": (
        (("stack {o} on {t}", "stacking {o} on {t}"), ("put {o} on top of {t}", "putting {o} on top of {t}")),
        (("set {o} on top of {t}", "setting {o} on top of {t}"),),
    ),
    "push": (
        (("push {o} {d}", "pushing {o} {d}"),),
        (("slide {o} {d}", "sliding {o} {d}"), ("nudge {o} {d}", "nudging {o} {d}")),
    ),
    "rotate": (
        (("rotate {o} by 90 degrees", "rotating {o} by 90 degrees"),),
        (("give {o} a quarter turn", "giving {o} a quarter turn"),),
    ),
}
DIRECTIONS: dict[str, Pool] = {
    "left": (("10 cm to the left",), ("over to the left by 10 cm",)),
    "right": (("10 cm to the right",), ("over to the right by 10 cm",)),
    "forward": (("10 cm away from you",), ("forward by 10 cm",)),
    "backward": (("10 cm toward you",), ("toward the robot by 10 cm",)),
}
# verb group names (plural noun phrases) and predicates ("that ...", plural / singular agreement)
VERB_GROUPS: dict[str, Pool] = {
    "pick": (("pick-up actions", "actions that pick something up"), ("lifting actions",)),
    "place_in": (("actions that put something in a bowl",), ("actions that drop something into a bowl",)),
    "stack_on": (("stacking actions", "actions that stack one object on another"), ("actions that build a stack",)),
    "push": (("pushing actions", "actions that push something"), ("sliding actions",)),
    "rotate": (("rotation actions", "actions that rotate something"), ("turning actions",)),
}
VERB_PREDICATES: dict[str, tuple[str, str]] = {  # (plural, singular) verb phrase, negatable with do/does not
    "pick": ("pick something up", "picks something up"),
    "place_in": ("put something in a bowl", "puts something in a bowl"),
    "stack_on": ("stack one object on another", "stacks one object on another"),
    "push": ("push something", "pushes something"),
    "rotate": ("rotate something", "rotates something"),
}
MOVING: Pool = (("actions that move {a}",), ("actions moving {a}",))

# Rankings and orders. The held-out phrases share no word with the training ones (a reader fitted on the
# training wording finds no cue in them): training says "farthest to the left", "closest to you", "from left to
# right", "largest", "tiniest"; held out says "leftmost", "nearest the robot", "furthest back", "leftmost first",
# "biggest", "smallest".
#
# (key, descending) -> phrase completing "the ones that are ..." (superlative; training wording) and
# "the one that is ..." (comparative, between two; training wording)
RANKS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("x", False): ("farthest to the left",),
    ("x", True): ("farthest to the right",),
    ("y", False): ("closest to you",),
    ("y", True): ("farthest from you",),
    ("size", True): ("largest",),  # rankings by size: cardinality only
    ("size", False): ("tiniest",),
}
LANDMARK_RANKS: Pool = (("closest to {l}",), ("nearest {l}",))  # farthest from it: LANDMARK_AWAY
LANDMARK_AWAY: Pool = (("farthest from {l}",), ("furthest from {l}",))
COMPARATIVES: dict[tuple[str, bool], tuple[str, ...]] = {
    ("x", False): ("farther to the left",),
    ("x", True): ("farther to the right",),
    ("y", False): ("closer to you",),
    ("y", True): ("farther from you",),
}
# held-out superlatives, whole noun phrases: {head} "two" / "one" / "ones", {k} "two " or "", {one} "one(s)",
# {objects} "object(s)" (action anchors rank the objects they move, never their targets)
HELD_OUT_RANKS: dict[tuple[str, bool], tuple[str, str]] = {  # (object anchors, action anchors)
    ("x", False): ("the {k}leftmost {one}", "the {head} moving the leftmost {objects}"),
    ("x", True): ("the {k}rightmost {one}", "the {head} moving the rightmost {objects}"),
    ("y", False): ("the {head} nearest the robot", "the {head} moving the {objects} nearest the robot"),
    ("y", True): ("the {head} furthest back", "the {head} moving the {objects} furthest back"),
    ("size", True): ("the {k}biggest {one}", "the {head} moving the biggest {objects}"),
    ("size", False): ("the {k}smallest {one}", "the {head} moving the smallest {objects}"),
}
HELD_OUT_LANDMARK = ("the {head} nearest {l}", "the {head} moving the {objects} nearest {l}")
HELD_OUT_LANDMARK_AWAY = ("the {head} furthest from {l}", "the {head} moving the {objects} furthest from {l}")
# held-out comparatives between two named candidates ("whichever isn't ..."); an action's says where its object
# is ("whose object is further back"): "the one moving the object further back" also reads as a push backward
HELD_OUT_COMPARATIVES: dict[tuple[str, bool], tuple[str, str]] = {
    ("x", False): ("the leftmost of the two", "the one moving the leftmost of the two objects"),
    ("x", True): ("the rightmost of the two", "the one moving the rightmost of the two objects"),
    ("y", False): ("the one nearer the robot", "the one whose object is nearer the robot"),
    ("y", True): ("the one further back", "the one whose object is further back"),
}
ORDERS: dict[tuple[str, bool], Pool] = {
    ("x", False): (("from left to right",), ("leftmost first",)),
    ("x", True): (("from right to left",), ("rightmost first",)),
    ("y", False): (("from closest to farthest",), ("nearest the robot first",)),
    ("y", True): (("from farthest to closest",), ("furthest back first",)),
}
HELD_OUT_ACTION_ORDERS: dict[tuple[str, bool], str] = {
    ("x", False): "leftmost object first",
    ("x", True): "rightmost object first",
    ("y", False): "object nearest the robot first",
    ("y", True): "object furthest back first",
}
# position references to one object among its peers: (key, descending) -> "the ... {n}" forms
POSITION_REFS: dict[tuple[str, bool], Pool] = {
    ("x", False): (("the {n} farthest to the left",), ("the leftmost {n}",)),
    ("x", True): (("the {n} farthest to the right",), ("the rightmost {n}",)),
    ("y", False): (("the {n} closest to you",), ("the {n} nearest the robot",)),
    ("y", True): (("the {n} farthest from you",), ("the {n} furthest back",)),
}
RELATION_REFS: Pool = (("the {n} closest to {l}",), ("the {n} next to {l}",))

# polarity words for the set category: retention keeps the named group, exclusion keeps the rest
# ("nothing except" / "everything except" differ in one word, so "except" alone says nothing)
RETAIN: Pool = (("only", "just", "nothing except"), ("nothing but", "nothing other than"))
EXCLUDE: Pool = (("everything except", "all but"), ("everything but", "everything other than"))

# temporal relation words: prepositions (with a gerund) and comparatives (with a clause)
RELATION_WORDS: dict[str, Pool] = {"before": (("before",), ("prior to",)), "after": (("after",), ("once you're done",))}


def choose(pool: Pool, held_out: bool | None) -> tuple[str, ...]:
    """The variants a split may use: training wording, held-out wording, or (None) both."""
    if held_out is None:
        return pool[0] + pool[1]
    return pool[1] if held_out else pool[0]


# inhibition clauses over a group of two (selections may say "not" too, so the word alone says nothing):
# {vp}/{ger} do the named candidate, {np} names it (objects),
# {p}/{n} are the positive and negated predicates of the attribute that splits the pair
SELECT_OBJECT: Pool = (
    ("{vp}", "{vp} and no other", "{vp}, not the other one"),
    ("{vp} and leave the other", "just {vp}"),
)
AVOID_OBJECT: Pool = (
    ("do not {vp}; {do} the other one", "{do} the one that is not {np}"),
    ("leave {np} and {do} the other one", "{do} the one that isn't {np}"),
)
SELECT_ACTION: Pool = (
    ("{vp}", "{vp} and nothing else", "{vp}, not the other one"),
    ("{vp} and skip the other", "just {vp}"),
)
AVOID_ACTION: Pool = (
    ("do not {vp}; {do} the other one", "{do} the one other than {ger}"),
    ("skip {ger} and {do} the other one", "don't {vp}; {do} the other one instead"),
)
SELECT_ATTRIBUTE: Pool = (
    ("{do} the one that {p}", "{do} the one that {p}, not the other"),
    ("{do} whichever one {p}",),
)
AVOID_ATTRIBUTE: Pool = (
    ("{do} the one that {n}", "do not {do} the one that {p}; {do} the other one"),
    ("{do} whichever one {n}", "leave the one that {p} and {do} the other"),
)
# set category, whole-clause form: {g} is the group
SPLIT_RETAIN: Pool = (("{do} the {g} and leave the rest",), ())
SPLIT_EXCLUDE: Pool = (("leave the {g} and {do} the rest",), ())
