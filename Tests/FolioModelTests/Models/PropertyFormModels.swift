import Folio

/// A nested Codable struct, stored as a composite value.
struct Address: Codable, Hashable {
    var street: String
    var city: String
    var postcode: String?
}

/// An enum with associated values, stored through its synthesized Codable form.
enum Availability: Codable, Hashable {
    case always
    case seasonal(from: Int, to: Int)
}

/// A raw-value enum.
enum Difficulty: Int, Codable, Hashable {
    case easy = 1, medium, hard
}

/// A value owned by another library, stored as an opaque value with `.codable`.
struct MapItemIdentifier: Codable, Hashable {
    var rawValue: String
}

/// Every property form Folio persists, and the forms it skips.
@Model
final class Specimen {
    // Plain values, with and without defaults.
    var text: String
    var count: Int = 0
    var ratio: Double = 0.5
    var flag = true
    var small: Int8 = -3
    var big: UInt64 = 18_446_744_073_709_551_615
    var precise: Decimal = Decimal(string: "12.345") ?? 0
    var single: Float = 1.25

    // Optionals.
    var note: String?
    var maybeCount: Int? = nil

    // Foundation values.
    var when: Date
    var identifier: UUID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()
    var link: URL? = URL(string: "https://example.com/a?b=c")
    var bytes: Data = Data([0, 1, 2, 254, 255])

    // Collections of Codable values.
    var tags: [String] = []
    var labels: Set<String> = []
    var scores: [String: Int] = [:]
    var matrix: [[Double]] = []
    var byNumber: [Int: String] = [:]

    // Nested Codable structs and enums, stored as composite values.
    var address: Address?
    var availability: Availability = .always
    var difficulty: Difficulty = .medium

    // Options.
    @Attribute(.codable) var mapItem: MapItemIdentifier?
    @Attribute(.externalStorage) var photo: Data?
    @Attribute(.preserveValueOnDeletion, originalName: "old_serial") var serial: String = ""
    @Attribute(.ephemeral, hashModifier: "v2") var scratch: String = ""
    @Attribute(
        .unique,
        originalName: "legacyCode"
    )
    var code: String = ""

    // Backticked and unicode names.
    var `default`: Int = 1
    var café: String = "crème"

    // Skipped: transient, computed, static, nested types, methods.
    @Transient var cache: [String: String] = [:]
    @Transient var lastViewed: Date?
    var summary: String { "\(text) ×\(count) {not a body}" }
    static let defaultText = "text with { braces } and \"quotes\""
    class var kind: String { "specimen" }
    struct Nested { var inner: Int }
    enum Mode { case a, b }
    func describe() -> String { "}{" }

    #if os(Linux)
        var platformNote: String = "linux"
    #else
        var platformNote: String = "other"
    #endif

    #if NEVER_DEFINED_FLAG
        var neverPersisted: Int = 0
    #endif

    init(text: String, when: Date) {
        self.text = text
        self.when = when
    }
}
