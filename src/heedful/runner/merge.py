"""`heedful merge`: join the N shard runs of one run (`heedful run ... --shard I/N`) into one run directory.

The shards of one run share its identity (the shard is not part of it), so their records are records of that
run: the merged directory holds all of them, the prompts they reference, and a manifest without a shard whose
plan is the sum of the shards'. It reports, compares, exports and resumes like a run made in one piece.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from heedful.errors import RunError
from heedful.records import Record
from heedful.runner.manifest import RunManifest, read_manifest, spec_differences, write_manifest
from heedful.runner.stateless import combined_audit
from heedful.runner.store import RunStore, load_run


def merge_runs(sources: Sequence[Path], out: Path, *, force: bool = False) -> RunManifest:
    """Merge the shard runs `sources` (all N shards of one run) into a new run directory `out`.

    Raises:
        RunError: a source is not a shard, the sources are shards of different runs, a shard is missing or
            given twice, or two shards hold the same episode.
        ConfigError: `out` is not empty (without `force`).
    """
    from heedful.staging import staged_directory

    manifests = [read_manifest(Path(s)) for s in sources]
    first = manifests[0]
    _check_shards(sources, manifests)
    records: list[Record] = []
    prompts: dict[str, str] = {}
    seen: dict[str, Path] = {}
    for source, manifest in zip(sources, manifests, strict=True):
        _, shard_records = load_run(Path(source))  # refuses mixed runs, edited records or manifests
        if manifest.state == "finished" and manifest.planned is not None and len(shard_records) != manifest.planned:
            raise RunError(
                f"shard {source} is finished but holds {len(shard_records)} records of the {manifest.planned} it "
                "planned; resume it (heedful run ... --resume) before merging"
            )
        for r in shard_records:
            if r.episode_id in seen:
                raise RunError(f"episode {r.episode_id!r} is in both {seen[r.episode_id]} and {source}")
            seen[r.episode_id] = Path(source)
        records += shard_records
        with RunStore(Path(source)) as store:
            prompts.update(store.prompt_texts())
    unfinished = [str(s) for s, m in zip(sources, manifests, strict=True) if m.state != "finished"]
    planned = [m.planned for m in manifests]
    drawn = [r for m in manifests for r in m.renderers or []]
    merged = first.model_copy(
        update={
            "spec": first.spec.model_copy(update={"shard": None}),
            "started_at": min(m.started_at for m in manifests),
            "finished_at": max((m.finished_at for m in manifests if m.finished_at), default=None),
            "state": "interrupted" if unfinished else "finished",
            "stop_reason": f"merged from unfinished shards: {', '.join(unfinished)}" if unfinished else None,
            "wall_time_s": sum(m.wall_time_s for m in manifests),
            "sessions": sum(m.sessions for m in manifests),
            "planned": None if None in planned else sum(p for p in planned if p is not None),
            "privileged": True if any(m.privileged for m in manifests) else first.privileged,
            "stateless_audit": combined_audit([m.stateless_audit for m in manifests]),
            # every shard's renderers (shards may run on other machines), each distinct entry once
            "renderers": [r for i, r in enumerate(drawn) if r not in drawn[:i]] or None,
        }
    )
    with staged_directory(Path(out), force=force) as staging:
        with RunStore(staging) as store:
            store.put_prompts(prompts)
            store.put_many(sorted(records, key=lambda r: (r.index, r.episode_id)), producer=first.run_identity)
            merged.counts = store.count_by_status()
            merged.records_digest = store.digest()
        write_manifest(staging, merged)
    return merged


def _check_shards(sources: Sequence[Path], manifests: Sequence[RunManifest]) -> None:
    first = manifests[0]
    for source, m in zip(sources, manifests, strict=True):
        if m.spec.shard is None:
            raise RunError(f"{source} is not a shard run (made without --shard); merge joins the shards of one run")
        differences = [d for d in spec_differences(first.spec, m.spec) if d != "shard"]
        differences += [d for d in ("limit", "order") if getattr(m.spec, d) != getattr(first.spec, d)]
        if m.run_identity != first.run_identity or differences:
            what = ", ".join(differences) or "identity"
            raise RunError(f"{source} and {sources[0]} are shards of different runs (they differ in {what})")
    parts = [m.spec.shard_parts for m in manifests if m.spec.shard_parts is not None]
    total = {count for _, count in parts}
    if len(total) != 1:
        raise RunError(f"the shards split the run into different numbers of parts: {sorted(total)}")
    n = total.pop()
    given = [index for index, _ in parts]
    twice = sorted({i for i in given if given.count(i) > 1})
    if twice:
        raise RunError(f"shard {twice[0]}/{n} is given twice")
    missing = sorted(set(range(1, n + 1)) - set(given))
    if missing:
        listed = ", ".join(f"{i}/{n}" for i in missing)
        raise RunError(f"shard {listed} missing: merge needs all {n} shards (run the missing ones first)")
