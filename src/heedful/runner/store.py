"""The record store of a run: one SQLite file, one committed row per episode.

SQLite in WAL mode makes every commit durable against a killed process: a SIGKILL at any moment loses at
most the records not yet committed and never leaves a half-written or duplicated row (the episode id is
the primary key). `synchronous=NORMAL` trades durability against power loss (not against a killed
process) for speed; the database stays consistent either way.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

from heedful.errors import RunError, TamperedError
from heedful.records import PROMPT, Record, Status, check_record_schemas, unreadable_schema
from heedful.runner.manifest import RunManifest, read_manifest

RECORDS_NAME = "records.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    episode_id TEXT PRIMARY KEY,
    idx INTEGER NOT NULL,
    status TEXT NOT NULL,
    body TEXT NOT NULL,
    producer TEXT,
    digest TEXT
)
"""
_PROMPTS = """
CREATE TABLE IF NOT EXISTS prompts (
    sha256 TEXT PRIMARY KEY,
    text TEXT NOT NULL
)
"""
_INSERT_PROMPT = "INSERT OR IGNORE INTO prompts (sha256, text) VALUES (?, ?)"
PRODUCER_COLUMN = "ALTER TABLE records ADD COLUMN producer TEXT"  # stores made before records named their run
DIGEST_COLUMN = "ALTER TABLE records ADD COLUMN digest TEXT"  # stores made before records carried their digest


def body_digest(body: str) -> str:
    """The sha256 of a record's stored body: stored beside it, so an edited body is found on reading."""
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


class RunStore:
    """The records of one run directory, kept in `RUN/records.sqlite`.

    Only one process writes to a store; readers (a report on a running run) may open it at any time.
    """

    def __init__(self, run_dir: Path) -> None:
        self.path = Path(run_dir) / RECORDS_NAME
        try:
            self._conn = sqlite3.connect(self.path, timeout=30.0)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            with self._conn:
                self._conn.execute(_SCHEMA)
                self._conn.execute(_PROMPTS)
                columns = {row[1] for row in self._conn.execute("PRAGMA table_info(records)")}
                if "producer" not in columns:
                    self._conn.execute(PRODUCER_COLUMN)
                if "digest" not in columns:
                    self._conn.execute(DIGEST_COLUMN)
        except sqlite3.Error as err:
            raise RunError(f"cannot open the record store {self.path}: {err}") from err

    def put(self, record: Record, producer: str | None = None) -> None:
        """Store `record` and commit, replacing any earlier record of the same episode."""
        self.put_many([record], producer)

    def put_many(self, records: Iterable[Record], producer: str | None = None) -> None:
        """Store `records` in one transaction (all or none survive a crash), each marked with the run identity
        of the run that produced it (`RunManifest.run_identity`)."""
        prompts: dict[str, str] = {}
        stored = [_without_prompt_text(r, prompts) for r in records]
        bodies = [(r, r.model_dump_json()) for r in stored]
        rows = [(r.episode_id, r.index, r.status.value, body, producer, body_digest(body)) for r, body in bodies]
        try:
            with self._conn:
                self._conn.executemany(_INSERT_PROMPT, prompts.items())
                self._conn.executemany(
                    "INSERT OR REPLACE INTO records (episode_id, idx, status, body, producer, digest) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    rows,
                )
        except sqlite3.Error as err:  # disk full, a read-only or damaged file: the committed records are kept
            raise RunError(
                f"cannot store records in {self.path}: {err}; free disk space or fix the file, then --resume "
                "(every record committed so far is kept)"
            ) from err

    def put_prompts(self, prompts: dict[str, str]) -> None:
        """Store prompt texts by sha256 (each once)."""
        with self._conn:
            self._conn.executemany(_INSERT_PROMPT, prompts.items())

    def prompt_text(self, sha256: str) -> str | None:
        """The exact prompt a record's `inputs["prompt"]["sha256"]` names, or None (not stored)."""
        row = self._conn.execute("SELECT text FROM prompts WHERE sha256 = ?", (sha256,)).fetchone()
        return None if row is None else str(row[0])

    def prompt_texts(self) -> dict[str, str]:
        """Every stored prompt, by sha256."""
        return {str(sha): str(text) for sha, text in self._conn.execute("SELECT sha256, text FROM prompts")}

    def producers(self) -> dict[str | None, int]:
        """How many stored records each run identity produced (None: a record stored before identities)."""
        rows = self._conn.execute("SELECT producer, COUNT(*) FROM records GROUP BY producer ORDER BY producer")
        return {producer: count for producer, count in rows}

    def check_producer(self, identity: str | None) -> None:
        """Raise RunError when a stored record was produced by a run other than `identity`."""
        if identity is None:
            return
        foreign = {p: n for p, n in self.producers().items() if p is not None and p != identity}
        if foreign:
            counts = ", ".join(f"{n} by run {p}" for p, n in foreign.items())
            raise RunError(
                f"{self.path.parent} mixes records of different runs ({counts}; its manifest is run {identity}): "
                "its numbers would describe no single agent; run again into a new --out"
            )

    def digest(self) -> str:
        """One digest of every stored record (its episode id, status and body digest), for the manifest at finish."""
        total = hashlib.sha256()
        for episode_id, status, body, digest in self._conn.execute(
            "SELECT episode_id, status, body, digest FROM records ORDER BY episode_id"
        ):
            total.update(f"{episode_id}\t{status}\t{digest or body_digest(body)}\n".encode("utf-8", "surrogatepass"))
        return "sha256:" + total.hexdigest()

    def edited_ids(self) -> list[str]:
        """Episodes whose stored body no longer matches the digest stored with it but still reads as a record (edited
        after it was written). A body that no longer reads at all is damaged, not edited: `unreadable_ids`, which a
        resume runs again.

        Raises:
            SchemaVersionError: a record of a schema this heedful does not read (checked first: its digest may be
                computed otherwise).
        """
        rows = self._conn.execute("SELECT episode_id, body, digest FROM records WHERE digest IS NOT NULL")
        edited = []
        newer: dict[str, str] = {}
        for episode_id, body, digest in rows:
            schema = unreadable_schema(body)
            if schema is not None:
                newer[str(episode_id)] = schema
            elif body_digest(body) != digest and _reads(body):
                edited.append(str(episode_id))
        check_record_schemas(newer, str(self.path))
        return sorted(edited)

    def verify(self, manifest: RunManifest) -> None:
        """Refuse a store whose records were changed after they were written.

        Each record's body must match its stored digest, and (for a run that is not running) the records must be
        those the manifest's `records_digest` was computed from when the run last stopped. A guard against
        accidents and casual edits (a hand-edited score, deleted rows), not against a forger who recomputes them.

        Raises:
            TamperedError: naming the edited records, or how the records differ from the manifest's.
        """
        run_dir = self.path.parent
        edited = self.edited_ids()
        if edited:
            shown = ", ".join(repr(e) for e in edited[:5]) + (" ..." if len(edited) > 5 else "")
            raise TamperedError(
                f"{len(edited)} records of {run_dir} were changed after they were written ({shown}): their bodies no "
                "longer match their digests; heedful will not read an edited run (run it again into a new --out)"
            )
        if manifest.state == "running" or manifest.records_digest is None:
            return  # a live (or killed) run: its records move on from the last digest
        if self.digest() != manifest.records_digest:
            held = self.count_by_status()
            raise TamperedError(
                f"the records of {run_dir} are not those its manifest recorded when the run stopped (manifest: "
                f"{_counts(manifest.counts)}; store: {_counts(held)}): records were deleted, added or replaced "
                "after the fact; heedful will not read an edited run (run it again into a new --out)"
            )

    def records(self, *, strict: bool = True) -> list[Record]:
        """Every stored record, sorted by episode index.

        Raises:
            RunError: (with `strict`) some stored rows cannot be read back as records, naming their episodes;
                `--resume` runs exactly those again. Without `strict` they are left out.
        """
        readable, unreadable = self._read_all()
        if strict and unreadable:
            shown = ", ".join(repr(e) for e in unreadable[:5]) + (" ..." if len(unreadable) > 5 else "")
            raise RunError(
                f"{len(unreadable)} records of {self.path.parent} cannot be read ({shown}): the store was damaged; "
                "resume the run (`heedful run ... --resume`) to run exactly those episodes again"
            )
        return readable

    def unreadable_ids(self) -> set[str]:
        """Episodes whose stored row cannot be read back as a record (they count as not done)."""
        return set(self._read_all()[1])

    def _read_all(self) -> tuple[list[Record], list[str]]:
        try:
            rows = self._conn.execute("SELECT episode_id, body FROM records ORDER BY idx, episode_id").fetchall()
        except sqlite3.Error as err:
            raise RunError(f"cannot read the record store {self.path}: {err}") from err
        readable: list[Record] = []
        unreadable: list[str] = []
        newer: dict[str, str] = {}
        for episode_id, body in rows:
            schema = unreadable_schema(body)
            if schema is not None:  # never read as another version's record, nor run again as a damaged one
                newer[str(episode_id)] = schema
                continue
            try:
                readable.append(Record.model_validate_json(body))
            except ValueError:  # pydantic's ValidationError (bad JSON, bad fields) is a ValueError
                unreadable.append(str(episode_id))
        check_record_schemas(newer, str(self.path))
        return readable, unreadable

    def done_ids(self, statuses: Iterable[Status]) -> set[str]:
        """Ids of the episodes whose stored record has one of `statuses`."""
        wanted = sorted({Status(s).value for s in statuses})
        if not wanted:
            return set()
        marks = ", ".join("?" * len(wanted))
        rows = self._conn.execute(f"SELECT episode_id FROM records WHERE status IN ({marks})", wanted)
        return {episode_id for (episode_id,) in rows}

    def count_by_status(self) -> dict[str, int]:
        """Number of stored records per status value (statuses with no record are left out)."""
        rows = self._conn.execute("SELECT status, COUNT(*) FROM records GROUP BY status ORDER BY status")
        return {status: count for status, count in rows}

    def error_counts(self) -> dict[str, int]:
        """How often each error text occurs among the records that were not scored."""
        failed = [s.value for s in Status if not s.scored]
        marks = ", ".join("?" * len(failed))
        rows = self._conn.execute(
            f"SELECT json_extract(body, '$.error'), COUNT(*) FROM records WHERE status IN ({marks}) GROUP BY 1",
            failed,
        )
        return {str(error): int(n) for error, n in rows}

    def __len__(self) -> int:
        (count,) = self._conn.execute("SELECT COUNT(*) FROM records").fetchone()
        return int(count)

    def close(self) -> None:
        """Close the database (checkpointing the write-ahead log)."""
        self._conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _reads(body: str) -> bool:
    try:
        Record.model_validate_json(body)
    except ValueError:
        return False
    return True


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{status} {n}" for status, n in sorted(counts.items())) or "no records"


def _without_prompt_text(record: Record, prompts: dict[str, str]) -> Record:
    """The record with its prompt's text moved into `prompts` (sha256 -> text): each distinct prompt is stored once."""
    prompt = record.inputs.get(PROMPT)
    if not isinstance(prompt, dict) or "text" not in prompt or "sha256" not in prompt:
        return record
    prompts[str(prompt["sha256"])] = str(prompt["text"])
    inputs = {**record.inputs, PROMPT: {"sha256": prompt["sha256"]}}
    return record.model_copy(update={"inputs": inputs})


def stored_records(run_dir: Path) -> int:
    """How many records `run_dir` holds, read without creating or changing anything (0 without a store; a store
    that cannot be read counts as holding records, so that nothing is written over it)."""
    path = Path(run_dir) / RECORDS_NAME
    if not path.is_file() or path.stat().st_size == 0:
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
            tables = conn.execute("SELECT name FROM sqlite_master WHERE name = 'records'").fetchall()
            return int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0]) if tables else 0
    except sqlite3.Error:
        return 1


def load_run(run_dir: Path) -> tuple[RunManifest, list[Record]]:
    """Read a run directory: its manifest and its records sorted by index.

    Raises:
        RunError: `run_dir` holds no (valid) manifest, or records another run produced.
        TamperedError: records or manifest were changed after they were written.
    """
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    if not (run_dir / RECORDS_NAME).is_file():
        if manifest.state != "running" and manifest.counts:
            raise TamperedError(
                f"{run_dir} has no {RECORDS_NAME} but its manifest records {_counts(manifest.counts)}: the record "
                "store was deleted or moved; heedful will not read it as an empty run"
            )
        return manifest, []
    with RunStore(run_dir) as store:
        store.check_producer(manifest.run_identity)
        store.verify(manifest)
        return manifest, store.records()
