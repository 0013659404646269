import FolioStorage

/// Setting a stored property through a key path known only at run time.
protocol _AnyReferenceWritableKeyPath {
    func _set(_ value: Any?, on root: AnyObject) -> Bool
}

extension ReferenceWritableKeyPath: _AnyReferenceWritableKeyPath {
    func _set(_ value: Any?, on root: AnyObject) -> Bool {
        guard let typedRoot = root as? Root else { return false }
        if let value, let typed = value as? Value {
            typedRoot[keyPath: self] = typed
            return true
        }
        if value == nil, let none = (Value.self as? any _OptionalValue.Type)?._none as? Value {
            typedRoot[keyPath: self] = none
            return true
        }
        return false
    }
}

extension ModelContext {
    /// A related model, with the relationship that leads to it.
    struct Related {
        var model: any PersistentModel
        var relationship: Schema.Relationship
    }

    /// The models a model refers to through its relationships (resolving them if needed).
    func relatedModels(of model: any PersistentModel) -> [Related] {
        guard let entity = entity(of: model) else { return [] }
        var result: [Related] = []
        for relationship in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) {
            for object in currentRelated(of: model, relationship: relationship) {
                if let related = object as? any PersistentModel {
                    result.append(Related(model: related, relationship: relationship))
                }
            }
        }
        return result
    }

    /// The current value of a relationship, as the related objects.
    func currentRelated(of model: any PersistentModel, relationship: Schema.Relationship) -> [AnyObject] {
        guard let keyPath = relationship.keyPath, let value = model[keyPath: keyPath] else { return [] }
        // Before the optional check: an optional to-many relationship is a collection.
        if !relationship.isToOneRelationship {
            return ((value as? any _ModelCollection)?._elements ?? []).map { $0 as AnyObject }
        }
        if let optional = value as? any _OptionalValue {
            guard let wrapped = optional._wrappedValue else { return [] }
            return [wrapped as AnyObject]
        }
        if let collection = value as? any _ModelCollection {
            return collection._elements.map { $0 as AnyObject }
        }
        return [value as AnyObject]
    }

    /// Makes the inverses of an inserted model's relationships agree with it.
    func reconcileInverses(of model: any PersistentModel) {
        guard let entity = entity(of: model) else { return }
        for relationship in entity.relationshipsByName.values {
            let related = removingDuplicates(
                from: model, relationship: relationship,
                related: currentRelated(of: model, relationship: relationship))
            updateInverses(of: model, relationship: relationship, before: [], after: related)
        }
    }

    /// Makes a to-many relationship hold each model once, as SwiftData's does: a model appended again
    /// (say after setting its inverse already added it) is dropped, keeping the first. Returns the
    /// related models as they are now.
    func removingDuplicates(
        from model: any PersistentModel, relationship: Schema.Relationship,
        related: [AnyObject]
    ) -> [AnyObject] {
        guard !relationship.isToOneRelationship, related.count > 1 else { return related }
        var seen = Set<ObjectIdentifier>()
        let unique = related.filter { seen.insert(ObjectIdentifier($0)).inserted }
        guard unique.count < related.count, let keyPath = relationship.keyPath as? any _AnyReferenceWritableKeyPath,
            let collection = (relationship.valueType as? any _ModelCollection.Type)?._make(unique)
        else { return related }
        let wasMaintaining = isMaintainingInverses
        isMaintainingInverses = true
        defer { isMaintainingInverses = wasMaintaining }
        _ = keyPath._set(collection, on: model)
        return unique
    }

    /// After `model.relationship` changed from `before` to `after`, updates the inverse relationship on
    /// the models that were added or removed.
    func updateInverses(of model: any PersistentModel, relationship: Schema.Relationship, before: [AnyObject], after: [AnyObject]) {
        guard let inverseName = relationship.inverseName else { return }
        let beforeSet = Set(before.map(ObjectIdentifier.init))
        let afterSet = Set(after.map(ObjectIdentifier.init))
        let added = after.filter { !beforeSet.contains(ObjectIdentifier($0)) }
        let removed = before.filter { !afterSet.contains(ObjectIdentifier($0)) }
        let wasMaintaining = isMaintainingInverses
        isMaintainingInverses = true
        defer { isMaintainingInverses = wasMaintaining }
        for object in added {
            guard let related = object as? any PersistentModel, let relatedEntity = entity(of: related),
                let inverse = relatedEntity.relationshipsByName[inverseName]
            else { continue }
            link(related, inverse: inverse, to: model)
        }
        for object in removed {
            guard let related = object as? any PersistentModel, let relatedEntity = entity(of: related),
                let inverse = relatedEntity.relationshipsByName[inverseName]
            else { continue }
            unlink(related, inverse: inverse, from: model)
        }
    }

    /// Makes `related.inverse` include `model`.
    func link(_ related: any PersistentModel, inverse: Schema.Relationship, to model: any PersistentModel) {
        guard let keyPath = inverse.keyPath as? any _AnyReferenceWritableKeyPath else { return }
        let current = currentRelated(of: related, relationship: inverse)
        if current.contains(where: { $0 === model }) { return }
        if inverse.isToOneRelationship {
            _ = keyPath._set(model, on: related)
        } else if let collection = (inverse.valueType as? any _ModelCollection.Type)?._make(current + [model]) {
            _ = keyPath._set(collection, on: related)
        }
    }

    /// Makes `related.inverse` no longer include `model`.
    func unlink(_ related: any PersistentModel, inverse: Schema.Relationship, from model: any PersistentModel) {
        guard let keyPath = inverse.keyPath as? any _AnyReferenceWritableKeyPath else { return }
        let current = currentRelated(of: related, relationship: inverse)
        guard current.contains(where: { $0 === model }) else { return }
        if inverse.isToOneRelationship {
            if inverse.isOptional { _ = keyPath._set(nil, on: related) }
        } else if let collection = (inverse.valueType as? any _ModelCollection.Type)?._make(current.filter { $0 !== model }) {
            _ = keyPath._set(collection, on: related)
        }
    }

    // MARK: External storage

    /// Prepares stored values for decoding: a property renamed with `originalName:` reads the value
    /// stored under its old name, and `{"$blob": hash}` values of `.externalStorage` attributes become
    /// the stored bytes.
    func readExternalValues(_ values: RecordValues, entity: Schema.Entity) throws -> RecordValues {
        if entity.renamedProperties.isEmpty && entity.externalStorageAttributeNames.isEmpty { return values }
        var result = values
        for (name, originalName) in entity.renamedProperties where result[name] == nil {
            if let old = values[originalName] { result[name] = old }
        }
        for name in entity.externalStorageAttributeNames {
            guard case .object(let reference)? = result[name], case .string(let hash)? = reference["$blob"] else { continue }
            do {
                result[name] = .string(try container.store.blob(hash).base64EncodedString())
            } catch {
                throw FolioError(.storage, "\(entity.name).\(name) refers to a blob that cannot be read", underlying: error)
            }
        }
        return result
    }
}
