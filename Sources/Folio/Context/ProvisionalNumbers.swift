import FolioStorage

/// The record numbers a save's new models go by from when they are encoded until the store write
/// allocates theirs.
///
/// A save encodes every model before the write, and a model may refer to another that the same save
/// inserts, whose number only the write allocates. The `k`th new model (in insertion order, upserts left
/// out: the order the write allocates in) goes by ``base`` + `k`, above every number a store holds (the
/// store counts its numbers up from 1); the write replaces each by the number allocated. The allocated
/// numbers, like the provisional ones, rise in that order and lie above every stored number, so a `Set`
/// relationship's numbers, sorted when encoded, are still sorted once replaced.
struct ProvisionalNumbers: Sendable {
    /// The first provisional number.
    let base: Int64
    /// How many new models there are.
    let count: Int

    init(count: Int) {
        self.count = count
        self.base = Int64.max - Int64(count)
    }

    /// The provisional number of the `rank`th new model.
    func number(ofNew rank: Int) -> Int64 { base + Int64(rank) }

    /// Whether a stored record number falls among the provisional ones (which a store that counts up
    /// from 1 never reaches): a relationship to it could not be told from one to a new model.
    func collides(with stored: Int64) -> Bool { stored >= base }

    /// `values` with every provisional number in the relationship properties `relationships` replaced by
    /// the number the write allocated for that new model (`allocated[k]` for the `k`th).
    func resolved(_ values: RecordValues, relationships: [String], allocated: [Int64]) -> RecordValues {
        var values = values
        for name in relationships {
            switch values[name] {
            case .int(let number)?:
                if let real = resolved(number, allocated: allocated) { values[name] = .int(real) }
            case .array(let elements)?:
                guard elements.contains(where: { if case .int(let number) = $0 { number >= base } else { false } }) else { continue }
                values[name] = .array(
                    elements.map { element in
                        guard case .int(let number) = element, let real = resolved(number, allocated: allocated) else { return element }
                        return .int(real)
                    })
            default:
                continue
            }
        }
        return values
    }

    private func resolved(_ number: Int64, allocated: [Int64]) -> Int64? {
        guard number >= base else { return nil }
        let rank = Int(number - base)
        return rank < allocated.count ? allocated[rank] : nil
    }
}
