/// A model could not be written to or read from its stored record.
///
/// The message names the entity, the record and the property, and the place inside the value:
/// `Recipe(12).ingredients[3].amount: expected Double, found the string "a lot"`.
public struct ModelCodingError: Error, CustomStringConvertible, Sendable {
    /// The entity of the model.
    public let entityName: String
    /// The record's identifier, when it has one.
    public let identifier: PersistentIdentifier?
    /// The property at fault.
    public let property: String
    /// The path inside the property's value, such as `[3].amount`; empty for the value itself.
    public let valuePath: String
    /// What is wrong.
    public let reason: String

    public var description: String {
        let owner = identifier.map(\.description) ?? entityName
        return "\(owner).\(property)\(valuePath): \(reason)"
    }

    init(entityName: String, identifier: PersistentIdentifier?, property: String, error: any Error) {
        self.entityName = entityName
        self.identifier = identifier
        self.property = property
        switch error {
        case let decoding as DecodingError:
            switch decoding {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                valuePath = ModelCodingError.path(context.codingPath)
                reason = context.debugDescription
            case .keyNotFound(let key, let context):
                valuePath = ModelCodingError.path(context.codingPath + [key])
                reason = context.debugDescription
            @unknown default:
                valuePath = ""
                reason = "\(decoding)"
            }
        case let encoding as EncodingError:
            switch encoding {
            case .invalidValue(_, let context):
                valuePath = ModelCodingError.path(context.codingPath)
                reason = context.debugDescription
            @unknown default:
                valuePath = ""
                reason = "\(encoding)"
            }
        default:
            valuePath = ""
            reason = "\(error)"
        }
    }

    init(entityName: String, identifier: PersistentIdentifier?, property: String, reason: String) {
        self.entityName = entityName
        self.identifier = identifier
        self.property = property
        self.valuePath = ""
        self.reason = reason
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
    }
}
