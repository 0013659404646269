@_spi(FolioEngine) import FolioStorage

/// A fetch that a new process answers before it reads the store's records: what a command-line tool, a
/// server worker or an app at launch asks first.
///
/// A predicate that requires an `#Index`ed attribute to equal a string (`$0.destination == "City0"`,
/// alone or `&&` other conditions on the model's own attributes) is answered from the store's snapshot
/// cache and journal (``Store/recordsWithoutLoading(of:member:mayEqual:)``): only the record lines
/// that hold the value are read. The whole predicate is then evaluated on each of those records, as
/// the index path does, so the models are the ones a fetch after loading returns, in the same order.
/// Anything else, or a store without a usable cache, reads the records first, as always.
extension ModelContext {
    /// The models `descriptor` fetches, answered without reading the store's records; nil when it
    /// cannot be answered that way.
    func fetchWithoutLoading<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T]? {
        guard !hasChanges, descriptor.predicate != nil, descriptor.sortBy.isEmpty, (descriptor.fetchOffset ?? 0) == 0,
            descriptor.propertiesToFetch.isEmpty, !container.configuration.isStoredInMemoryOnly,
            let entity = schema(knowing: T.self).entitiesByName[T._folioEntityName], entity.selfAndDescendants.count == 1,
            !entity.loadsCompletelyWhenFetched, !(container.store.configuration.cachedMembers[entity.name] ?? []).isEmpty
        else { return nil }
        // Once the records are read (after the first fetch, mostly), this costs one look at a flag.
        guard try !container.lock.withLock(refusingReentry: "ModelContext.fetch(_:)", { $0.isIndexLoaded }) else { return nil }
        let query = try LogicalQuery.compile(descriptor, schema: schema)
        guard let filter = query.filter, filter.readsOnlyOwnAttributes,
            let (member, key) = Self.indexedStringEquality(in: filter, cached: container.store.configuration.cachedMembers[entity.name] ?? [])
        else { return nil }
        let limit = descriptor.fetchLimit.flatMap { $0 >= 0 ? $0 : nil }  // a negative limit is none, as in every fetch
        return try withContainerLock(refusingReentry: "ModelContext.fetch(_:)") { state -> [T]? in
            guard !state.isIndexLoaded else { return nil }
            let found: [Store.UnloadedRecord]?
            do {
                found = try container.store.recordsWithoutLoading(of: entity.name, member: member, mayEqual: .string(key))
            } catch {
                throw FolioError(.storage, "The store at \(container.configuration.url.path) could not be read", underlying: error)
            }
            guard let found else { return nil }
            let evaluator = QueryEvaluator(record: { _ in nil }, defaults: container.currentIndex(in: &state).storedDefaults)
            var slots: [QueryValue] = []
            var models: [AnyObject] = []
            prepareToRegister(found.count)
            for record in found {
                if let limit, models.count >= limit { break }
                let matches: Bool
                do {
                    matches = try evaluator.truth(filter, id: record.id, entity: entity.name, values: record.values, &slots)
                } catch let error as QueryEvaluationError {
                    throw FolioError(.invalidFetchDescriptor, "The predicate could not be evaluated: \(error)")
                }
                guard matches else { continue }
                if let model = registered[record.id]?.model as? T {
                    if record.version > model.persistentBackingData.loadedVersion {
                        // Saved by another process since this context made the model: its values now.
                        model.persistentBackingData.loadedVersion = record.version
                        model.persistentBackingData.faultValues = try readExternalValues(record.values, entity: entity)
                    }
                    models.append(model)
                } else if let model = try materialize(record.id, entity: entity.name, values: record.values, version: record.version) as? T {
                    models.append(model)
                }
            }
            return Self.array(models, of: T.self)
        }
    }

    /// The first conjunct of `filter` that requires one of the `cached` members to equal a string.
    static func indexedStringEquality(in filter: QueryNode, cached: [String]) -> (member: String, key: String)? {
        for conjunct in filter.conjuncts {
            guard case .equal(let lhs, let rhs) = conjunct else { continue }
            for (field, constant) in [(lhs, rhs), (rhs, lhs)] {
                if case .field(.variable(0), let name, .plain) = field, case .constant(.string(let key)) = constant,
                    cached.contains(name)
                {
                    return (name, key)
                }
            }
        }
        return nil
    }
}

extension QueryNode {
    /// Whether the node reads no record but the one tested (no relationship is followed), so that it
    /// can be evaluated on a record read alone.
    var readsOnlyOwnAttributes: Bool {
        switch self {
        case .variable, .constant:
            return true
        case .field(let base, _, let conversion):
            guard case .variable(0) = base else { return false }
            switch conversion {
            case .toOne, .toMany: return false
            default: return true
            }
        case .count(let node), .isEmpty(let node), .not(let node), .negate(let node), .forceUnwrap(let node),
            .typeCheck(let node, _), .conditionalCast(let node, _):
            return node.readsOnlyOwnAttributes
        case .equal(let a, let b), .notEqual(let a, let b), .compare(let a, _, let b), .and(let a, let b), .or(let a, let b),
            .arithmetic(let a, _, let b), .nilCoalesce(let a, let b), .stringContains(let a, let b), .startsWith(let a, let b),
            .localizedStandardContains(let a, let b), .caseInsensitiveCompare(let a, let b), .sequenceContains(let a, let b):
            return a.readsOnlyOwnAttributes && b.readsOnlyOwnAttributes
        case .conditional(let a, let b, let c):
            return a.readsOnlyOwnAttributes && b.readsOnlyOwnAttributes && c.readsOnlyOwnAttributes
        case .flatMap, .containsWhere, .allSatisfy:
            // They bind other slots: evaluated on their own they may reach other records.
            return false
        }
    }
}
