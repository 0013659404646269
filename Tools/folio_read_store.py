#!/usr/bin/env python3
"""Rebuild a Folio store's state from its files, with the Python standard library only.

Usage: folio_read_store.py STORE_DIRECTORY

Prints one JSON object: {"lastSequence": N, "nextID": N, "schema": ..., "records": {"Entity": [{"id": N,
"values": {...}}, ...]}} with records in identifier order. Follows docs/file-format.md; exits with
status 1 and a message naming file and line when a file is damaged.
"""
import json
import os
import sys
import zlib

SUPPORTED_VERSION = 1
LINE_MEMBERS = {"seq", "id", "time", "nextID", "author", "migrate", "inserted", "updated", "deleted", "schema",
                "conflicts", "clearsConflicts", "compacted", "folded", "foldedBy"}


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
    if os.path.exists(journal):
        for number, line in lines(journal):
            tx = decode_line(line, journal, number)
            unknown = sorted(set(tx) - LINE_MEMBERS)
            if unknown:
                raise StoreError("%s:%d: unknown member %r (written by a newer Folio?)" % (journal, number, unknown[0]))
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
