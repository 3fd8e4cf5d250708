"""Vocabulary of the household protocol: Table A.1 (objects, receptacles, room functions) and Table A.2.

Receptacle priors per room function say which furniture a room of that function holds (probability of
each piece; 1.0 marks the pieces that identify the function). `fridge` and `cabinet` are not in Table A.1
but appear in the paper's prompts; they hold objects and show in maps, and instructions never name them.
"""

from __future__ import annotations

OBJECT_CATEGORIES: tuple[str, ...] = ("basket", "book", "bowl", "cup", "hat", "plate", "shoe", "stuffed_toy")
"""Graspable object categories ([ObjectCat] of Table A.1)."""

INSTRUCTION_RECEPTACLES: tuple[str, ...] = (
    "chair",
    "shelves",
    "bed",
    "toilet",
    "bench",
    "bathtub",
    "couch",
    "counter",
    "table",
)
"""Receptacles instructions may name ([Recep] of Table A.1)."""

RECEPTACLES: tuple[str, ...] = (*INSTRUCTION_RECEPTACLES, "fridge", "cabinet")

ROOM_FUNCTIONS: tuple[str, ...] = (
    "living room",
    "bedroom",
    "kitchen",
    "dining room",
    "bathroom",
    "garage",
    "empty room",
    "dressing room",
    "study room",
)

ACTIVITIES: dict[str, tuple[str, ...]] = {
    "living room": ("watching TV", "hanging out near the couch", "vacuuming the living room"),
    "bedroom": ("preparing to sleep", "organizing my bed", "reading on my bed"),
    "kitchen": ("washing vegetables", "preparing my meal", "sorting groceries"),
    "dining room": ("setting up the table", "eating dinner"),
    "bathroom": ("washing my face", "washing my hands", "taking a bath", "brushing my teeth", "shaving"),
    "garage": ("washing my car", "fixing my car"),
    "empty room": ("meditating in the empty room", "stretching in the exercise room"),
    "dressing room": ("choosing my outfit", "trying on clothes", "organizing my clothes"),
    "study room": ("studying", "cleaning my desk"),
}
"""[RoomFunctionActivity] by room function (Table A.2; the paper's spelling slips are corrected)."""

FURNITURE: dict[str, tuple[tuple[str, float], ...]] = {
    "living room": (("couch", 1.0), ("table", 0.7), ("chair", 0.5), ("shelves", 0.5), ("cabinet", 0.2)),
    "bedroom": (("bed", 1.0), ("cabinet", 0.5), ("shelves", 0.4), ("chair", 0.4), ("table", 0.3)),
    "kitchen": (("counter", 1.0), ("fridge", 1.0), ("cabinet", 0.6), ("table", 0.4), ("chair", 0.3)),
    "dining room": (("table", 1.0), ("chair", 1.0), ("cabinet", 0.5)),
    "bathroom": (("toilet", 1.0), ("bathtub", 0.6), ("counter", 0.6), ("cabinet", 0.3)),
    "garage": (("shelves", 1.0), ("bench", 1.0), ("cabinet", 0.3)),
    "empty room": (("bench", 1.0),),
    "dressing room": (("shelves", 1.0), ("cabinet", 1.0), ("chair", 0.4)),
    "study room": (("table", 1.0), ("chair", 1.0), ("shelves", 1.0)),
}
"""Receptacle priors: (receptacle, probability that a room of this function holds one).

The required pieces (1.0) tell every function apart, whatever optional pieces a room also gets (a dressing
room has shelves and a cabinet, a garage shelves and a bench, a study room a table, chairs and shelves, a
dining room no shelves): the paper's PnP is solvable by common sense, so a room's furniture must name its
function, and ambiguity comes only from repeated functions."""

SIZES: dict[str, tuple[float, float]] = {
    "bed": (2.0, 1.5),
    "couch": (1.9, 0.85),
    "table": (1.2, 0.8),
    "chair": (0.5, 0.5),
    "shelves": (1.0, 0.4),
    "bench": (1.2, 0.4),
    "toilet": (0.45, 0.65),
    "bathtub": (1.6, 0.75),
    "counter": (1.6, 0.6),
    "fridge": (0.75, 0.7),
    "cabinet": (0.9, 0.45),
}
"""Footprint (length along the wall, depth) of each receptacle in meters."""

FREESTANDING: frozenset[str] = frozenset({"table"})
"""Receptacles placed away from walls; every other piece stands against a wall."""

SIZE_RANK: dict[str, int] = {
    "garage": 0,
    "living room": 1,
    "kitchen": 2,
    "dining room": 3,
    "bedroom": 4,
    "study room": 5,
    "dressing room": 6,
    "empty room": 7,
    "bathroom": 8,
}
"""Larger functions get larger rooms (0 = largest)."""

WALL_COLOURS: tuple[str, ...] = (
    "yellow",
    "blue",
    "green",
    "white",
    "grey",
    "red",
    "beige",
    "pink",
    "orange",
    "purple",
    "brown",
    "teal",
    "cream",
    "lilac",
)
"""Grounding details: the wall colour of each room (distinct within a house)."""

COLOUR_RGB: dict[str, tuple[int, int, int]] = {
    "yellow": (250, 240, 180),
    "blue": (190, 210, 245),
    "green": (195, 235, 195),
    "white": (245, 245, 245),
    "grey": (215, 215, 215),
    "red": (245, 195, 190),
    "beige": (235, 225, 200),
    "pink": (250, 210, 230),
    "orange": (250, 215, 170),
    "purple": (220, 205, 240),
    "brown": (215, 195, 170),
    "teal": (180, 230, 225),
    "cream": (250, 245, 225),
    "lilac": (225, 215, 245),
}
