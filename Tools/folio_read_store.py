#!/usr/bin/env python3
"""Rebuild a Folio store's state from its files, with the Python standard library only.

Usage: folio_read_store.py STORE_DIRECTORY

Prints one JSON object: {"lastSequence": N, "nextID": N, "schema": ..., "records": {"Entity": [{"id": N,
"values": {...}}, ...]}} with records in identifier order. Follows docs/file-format.md; exits with
status 1 and a message naming file and line when a file is damaged. A store git merged from two
compacted copies (manifest "reconcile": true) is mended as the engine mends it.
"""
import json
import os
import sys
import zlib

SUPPORTED_VERSION = 1
LINE_MEMBERS = {"seq", "id", "time", "nextID", "author", "migrate", "inserted", "updated", "deleted", "schema",
                "conflicts", "clearsConflicts", "compacted", "folded", "foldedBy", "foldedMigrations", "historyFrom", "mergedBase"}


class StoreError(Exception):
    pass


def no_duplicates(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise ValueError("duplicate key %r" % key)
        result[key] = value
    return result


def decode_line(raw, path, number):
    """Check a framed line's CRC-32 and return its members without "$crc"."""
    line = raw[:-1] if raw.endswith(b"\r") else raw
    if line[:7] in (b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||"):
        raise StoreError("%s:%d: git merge-conflict marker" % (path, number))
    if not (line.startswith(b'{"$crc":"') and len(line) >= 19 and line[17:18] == b'"'):
        raise StoreError("%s:%d: line does not start with its checksum" % (path, number))
    body = b"{}" if line[18:19] == b"}" else b"{" + line[19:]
    if "%08x" % zlib.crc32(body) != line[9:17].decode("ascii", "replace"):
        raise StoreError("%s:%d: checksum mismatch" % (path, number))
    members = json.loads(line.decode("utf-8"), object_pairs_hook=no_duplicates)
    del members["$crc"]
    return members


def lines(path):
    """Complete lines (split on byte 0x0A only) with their numbers; an unterminated tail is ignored."""
    with open(path, "rb") as handle:
        number = 0
        pending = b""
        while True:
            chunk = handle.read(1 << 20)
            if not chunk:
                break
            pending += chunk
            parts = pending.split(b"\n")
            pending = parts.pop()
            for part in parts:
                number += 1
                yield number, part


def migrated(values, migration):
    """A record's values after a "migrate" element: "remove" names dropped, then "rename" applied all at
    once; a renamed member replaces a kept member of the same name."""
    removed = set(migration.get("remove", []))
    renames = {old: new for old, new in migration.get("rename", {}).items() if old != new}
    kept, renamed = {}, {}
    for name in sorted(values):
        if name in removed:
            continue
        if name in renames:
            renamed.setdefault(renames[name], values[name])
        else:
            kept[name] = values[name]
    kept.update(renamed)
    return kept


def is_id(value):
    return isinstance(value, int) and not isinstance(value, bool)


def id_list(value):
    if isinstance(value, list) and all(is_id(item) for item in value):
        return value
    return None


class MergeSchema:
    """What the reconciliation needs of a schema description: relationships and uniqueness."""

    def __init__(self, description):
        entities = description.get("entities") if isinstance(description, dict) else None
        self.valid = isinstance(entities, dict)
        self.parents, self.relations, self.unique = {}, {}, {}
        for name, entity in (entities or {}).items():
            if not isinstance(entity, dict):
                continue
            if isinstance(entity.get("superentity"), str):
                self.parents[name] = entity["superentity"]
            relations = {}
            for prop, spec in (entity.get("properties") or {}).items():
                if isinstance(spec, dict) and spec.get("kind") == "relationship":
                    inverse = spec.get("inverse")
                    relations[prop] = (spec.get("toMany") is True, inverse if isinstance(inverse, str) else None)
            self.relations[name] = relations
            groups = []
            for group in entity.get("uniqueness") or []:
                names = [item for item in group if isinstance(item, str)] if isinstance(group, list) else []
                if names and names not in groups:
                    groups.append(names)
            self.unique[name] = groups

    def lineage(self, entity):
        result = []
        while entity is not None and entity not in result:
            result.append(entity)
            entity = self.parents.get(entity)
        return result

    def relationships(self, entity):
        """[(name, (to_many, inverse))] of the entity, inherited ones too, sorted by name."""
        names = sorted({name for owner in self.lineage(entity) for name in self.relations.get(owner, {})})
        return [(name, self.relationship(name, entity)) for name in names]

    def relationship(self, name, entity):
        for owner in self.lineage(entity):
            if name in self.relations.get(owner, {}):
                return self.relations[owner][name]
        return None

    def uniqueness(self, entity):
        result = []
        for owner in reversed(self.lineage(entity)):
            for group in self.unique.get(owner, []):
                if all(group != members for _, members in result):
                    result.append((owner, group))
        return result


def reconcile(records, description):
    """Mends what a git merge of two compacted copies left across snapshot files, as the engine does
    for a manifest with "reconcile": true (docs/file-format.md, "Reconciling a merge")."""
    schema = MergeSchema(description)
    if not schema.valid:
        return
    entity_of = {i: entity for entity, table in records.items() for i in table}
    overlay, removed, into = {}, set(), {}

    def value(i, member):
        if member in overlay.get(i, {}):
            return overlay[i][member]
        return records[entity_of[i]][i].get(member)

    def has(i, member):
        return member in overlay.get(i, {}) or member in records[entity_of[i]][i]

    def exists(i):
        return i in entity_of and i not in removed

    def put(i, member, new):
        overlay.setdefault(i, {})[member] = new

    def live():
        return [(i, entity_of[i]) for i in sorted(entity_of) if i not in removed]

    # 1. Equal unique values: the later record (larger id) becomes an update of the earlier.
    holders = {}
    for i, entity in live():
        for owner, members in schema.uniqueness(entity):
            values = [value(i, m) if has(i, m) else None for m in members]
            if any(v is None for v in values):
                continue
            key = (owner, ",".join(members), json.dumps(values, sort_keys=True, separators=(",", ":")))
            if key not in holders:
                holders[key] = (i, entity)
                continue
            holder, holder_entity = holders[key]
            if holder_entity != entity:
                continue
            survivor = into.get(holder, holder)
            to_many = {name for name, (many, _) in schema.relationships(entity) if many}
            for member in records[entity][i]:
                incoming, existing = value(i, member), value(survivor, member) if has(survivor, member) else None
                mine, theirs = id_list(existing), id_list(incoming)
                if member in to_many and mine is not None and theirs is not None:
                    union = mine + [t for t in theirs if t not in mine]
                    if union != mine:
                        put(survivor, member, union)
                elif not has(survivor, member) or existing != incoming:
                    put(survivor, member, incoming)
            into[i] = survivor
            removed.add(i)
            break

    # 2. References to records that do not exist.
    for i, entity in live():
        for name, (many, _) in schema.relationships(entity):
            current = value(i, name) if has(i, name) else None
            if current is None:
                continue
            if many:
                targets = id_list(current)
                if targets is None:
                    continue
                kept = []
                for target in targets:
                    resolved = into.get(target, target)
                    if exists(resolved) and resolved not in kept:
                        kept.append(resolved)
                if kept != targets:
                    put(i, name, kept)
            elif is_id(current):
                resolved = into.get(current, current)
                if not exists(resolved):
                    put(i, name, None)
                elif resolved != current:
                    put(i, name, resolved)

    # 3. Inverses.
    drops, additions, clears = {}, {}, set()
    for owner, entity in live():
        for name, (many, inverse) in schema.relationships(entity):
            current = value(owner, name) if has(owner, name) else None
            if inverse is None or current is None:
                continue
            targets = id_list(current) if many else ([current] if is_id(current) else None)
            for target in targets or []:
                if not exists(target):
                    continue
                back = schema.relationship(inverse, entity_of[target])
                if back is None or not has(target, inverse):
                    continue
                reverse = value(target, inverse)
                if many and not back[0]:
                    if not (is_id(reverse) and reverse == owner):
                        drops.setdefault((owner, name), set()).add(target)
                elif back[0]:
                    listed = id_list(reverse)
                    if listed is not None and owner not in listed:
                        additions.setdefault((target, inverse), []).append(owner)
                elif is_id(reverse) and reverse != owner and exists(reverse) and has(reverse, name) \
                        and value(reverse, name) == target and is_id(value(reverse, name)):
                    clears.add((owner, name))
    for key in sorted(set(drops) | set(additions)):
        listed = id_list(value(*key)) if has(*key) else None
        if listed is None:
            continue
        kept = [t for t in listed if t not in drops.get(key, set())]
        for added in additions.get(key, []):
            if added not in kept:
                kept.append(added)
        if kept != listed:
            put(key[0], key[1], kept)
    for key in sorted(clears):
        put(key[0], key[1], None)

    for i in removed:
        del records[entity_of[i]][i]
    for i, changes in overlay.items():
        if i not in removed:
            records[entity_of[i]][i].update(changes)


def merged_members(was, kept, other):
    """A to-many relationship both sides changed, merged as a set (as the snapshot merge does)."""
    def ids(value):
        return [] if value is None else id_list(value)

    base, first, second = ids(was), ids(kept), ids(other)
    if base is None or first is None or second is None:
        return None
    base, first_set, second_set = set(base), set(first), set(second)
    merged, seen = [], set()
    for member in first + second:
        stays = (member in first_set and member in second_set) or member not in base
        if stays and member not in seen:
            seen.add(member)
            merged.append(member)
    return merged


def replay_base_journal(records, folded, journal_txs, merged_base, description):
    """Replays the merge base's journal that both compacted sides folded (journal member "mergedBase"
    of the compaction mark; docs/file-format.md, "Replaying the merge base's journal")."""
    schema = MergeSchema(description)
    by_id = {}
    for tx in folded:
        by_id.setdefault(tx["id"], tx)
    base_ids = merged_base["transactions"]
    missing = [i for i in base_ids if i not in by_id]
    if missing:
        raise StoreError("history.jsonl does not hold transaction %s of the merge base's journal" % missing[0])
    written, deleted_by_base = {}, set()
    for i in base_ids:
        tx = by_id[i]
        for item in tx.get("inserted", []) + tx.get("updated", []):
            entry = written.setdefault(item["id"], (item["entity"], {}))
            entry[1].update(item["values"])
        for item in tx.get("deleted", []):
            deleted_by_base.add(item["id"])
    base_set = set(base_ids)
    side_writes, side_delete = [{}, {}], {}
    for position, tx in enumerate(folded):
        if tx["id"] in base_set or tx.get("foldedBy") not in merged_base["sides"]:
            continue
        side = merged_base["sides"].index(tx["foldedBy"])
        for item in tx.get("inserted", []) + tx.get("updated", []):
            if item["id"] in written:
                for member, value in item["values"].items():
                    side_writes[side].setdefault(item["id"], {})[member] = (position, value)
        for item in tx.get("deleted", []):
            if item["id"] in written and item["id"] not in side_delete:
                side_delete[item["id"]] = side
    journal_writes, deleted_by_journal = {}, set()
    for tx in journal_txs:
        for item in tx.get("inserted", []) + tx.get("updated", []):
            if item["id"] in written:
                journal_writes.setdefault(item["id"], set()).update(item["values"])
        for item in tx.get("deleted", []):
            deleted_by_journal.add(item["id"])
    entity_of = {i: entity for entity, table in records.items() for i in table}
    for i in sorted(written):
        if i in deleted_by_base or i in deleted_by_journal or i not in entity_of:
            continue
        entity = entity_of[i]
        if i in side_delete:
            del records[entity][i]
            continue
        values = records[entity][i]
        for member, was in sorted(written[i][1].items()):
            if member in journal_writes.get(i, set()):
                continue
            ours, theirs = side_writes[0].get(i, {}).get(member), side_writes[1].get(i, {}).get(member)
            target = was
            if ours is not None and theirs is not None:
                later, earlier = (ours, theirs) if ours[0] > theirs[0] else (theirs, ours)
                target = later[1]
                relationship = schema.relationship(member, entity)
                if later[1] != earlier[1] and relationship is not None and relationship[0]:
                    merged = merged_members(was, later[1], earlier[1])
                    if merged is not None:
                        target = merged
            elif ours is not None or theirs is not None:
                target = (ours or theirs)[1]
            values[member] = target


def read_store(directory):
    manifest_path = os.path.join(directory, "manifest.json")
    with open(manifest_path, "rb") as handle:
        raw = handle.read().rstrip(b"\n")
    if json.loads(raw.decode("utf-8")).get("version", 0) > SUPPORTED_VERSION:
        raise StoreError("%s: newer format version" % manifest_path)
    manifest = decode_line(raw, manifest_path, 1)
    base = manifest["sequence"]
    state = {
        "lastSequence": base,
        "nextID": manifest["nextID"],
        "schema": manifest.get("schema", {}).get("value"),
    }
    records = {}  # entity -> {id: values}
    bases = {}
    snapshots = os.path.join(directory, "snapshots")
    if os.path.isdir(snapshots):
        for name in sorted(os.listdir(snapshots)):
            if not name.endswith(".jsonl") or ".tmp-" in name:
                continue
            entity = name[: -len(".jsonl")]
            path = os.path.join(snapshots, name)
            table = {}
            for number, line in lines(path):
                members = decode_line(line, path, number)
                if number == 1:
                    bases[entity] = members["sequence"]
                else:
                    table[members["id"]] = members["values"]
                    state["nextID"] = max(state["nextID"], members["id"] + 1)
            records[entity] = table
    journal = os.path.join(directory, "journal.jsonl")
    merged_base, journal_txs = None, []
    if os.path.exists(journal):
        for number, line in lines(journal):
            tx = decode_line(line, journal, number)
            unknown = sorted(set(tx) - LINE_MEMBERS)
            if unknown:
                raise StoreError("%s:%d: unknown member %r (written by a newer Folio?)" % (journal, number, unknown[0]))
            if tx.get("compacted") is True:
                merged_base = tx.get("mergedBase")
                continue
            journal_txs.append(tx)
            seq = tx["seq"]
            if seq > state["lastSequence"] + 1:
                raise StoreError("%s:%d: missing sequence %d" % (journal, number, state["lastSequence"] + 1))

            def applies(entity):
                return seq > bases.get(entity, base)

            for migration in tx.get("migrate", []):
                entity = migration["entity"]
                if not applies(entity) or entity not in records:
                    continue
                if migration.get("removeEntity"):
                    records[entity] = {}
                else:
                    table = records[entity]
                    for i in table:
                        table[i] = migrated(table[i], migration)
            for item in tx.get("deleted", []):
                if applies(item["entity"]):
                    records.get(item["entity"], {}).pop(item["id"], None)
            for item in tx.get("inserted", []):
                if applies(item["entity"]):
                    records.setdefault(item["entity"], {})[item["id"]] = item["values"]
                    state["nextID"] = max(state["nextID"], item["id"] + 1)
            # A merged line written without seeing the other side's folded transactions may change a
            # record they deleted: the delete stands.
            unseeing = tx.get("folded", {}).get("seen") is False
            for item in tx.get("updated", []):
                if applies(item["entity"]):
                    table = records.get(item["entity"], {})
                    if unseeing and item["id"] not in table:
                        continue
                    table[item["id"]].update(item["values"])
            if seq > base:
                state["nextID"] = max(state["nextID"], tx["nextID"])
                if "schema" in tx:
                    state["schema"] = tx["schema"]["value"]
            state["lastSequence"] = max(state["lastSequence"], seq)
    if manifest.get("reconcile") is True:
        if merged_base is not None:
            history = os.path.join(directory, "history.jsonl")
            folded = [decode_line(line, history, number) for number, line in lines(history)] if os.path.exists(history) else []
            replay_base_journal(records, [tx for tx in folded if tx["seq"] <= base], journal_txs, merged_base, state["schema"])
        reconcile(records, state["schema"])
    state["records"] = {
        entity: [{"id": i, "values": table[i]} for i in sorted(table)]
        for entity, table in sorted(records.items())
        if table
    }
    return state


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        state = read_store(sys.argv[1])
    except (StoreError, ValueError, KeyError, OSError) as error:
        sys.stderr.write("folio_read_store: %s\n" % error)
        return 1
    sys.stdout.write(json.dumps(state, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
