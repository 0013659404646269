import Foundation
import Testing
@testable import FolioStorage

@Suite("Blob references in written records")
struct BlobReferenceTests {
    static let hashA = String(repeating: "0123456789abcdef", count: 4)
    static let hashB = String(repeating: "fedcba9876543210", count: 4)

    /// Values that are references, nearly references, or hold them deep inside.
    static func randomValue(_ generator: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        let nearMisses: [JSONValue] = [
            BlobStore.reference(hashA), BlobStore.reference(hashB),
            .object(["$blob": .string(hashA), "other": .int(1)]),  // two members
            .object(["!": .int(0), "$blob": .string(hashA)]),  // a member sorts before it
            .object(["$blob": .string(hashA.uppercased())]),  // not lowercase
            .object(["$blob": .string(String(hashA.dropLast()))]),  // 63 digits
            .object(["$blob": .string(hashA + "0")]),  // 65 digits
            .object(["$blob": .int(7)]),
            .object(["$blobs": .string(hashA)]),
            .string("{\"$blob\":\"\(hashA)\"}"),  // the text, inside a string
            .string("$$$ {$ \"$blob"), .string("price: $5"),
        ]
        let choice = Int.random(in: 0..<(depth < 3 ? 8 : 5), using: &generator)
        switch choice {
        case 0: return nearMisses[Int.random(in: 0..<nearMisses.count, using: &generator)]
        case 1: return .int(Int64.random(in: -1_000...1_000, using: &generator))
        case 2: return .string(["", "$", "{\"", hashA, "é\n"][Int.random(in: 0..<5, using: &generator)])
        case 3: return .null
        case 4: return .bool(Bool.random(using: &generator))
        case 5: return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomValue(&generator, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0..<4, using: &generator) {
                members[["$blob", "a", "$", "!", "zz"][Int.random(in: 0..<5, using: &generator)]] = randomValue(&generator, depth: depth + 1)
            }
            return .object(members)
        }
    }

    /// Searching a record's written bytes finds exactly the references that walking its values finds.
    @Test func theReferencesFoundInTheWrittenBytesAreTheOnesInTheValues() throws {
        var generator = SeededGenerator(seed: 0xB10B)
        var found = 0
        for round in 0..<3_000 {
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0..<5, using: &generator) {
                members[["$blob", "cover", "$", "a", "thumbs"][Int.random(in: 0..<5, using: &generator)]] = Self.randomValue(&generator)
            }
            let values = RecordValues(members)
            var expected = Set<String>()
            BlobStore.collectReferences(in: values, into: &expected)
            var bytes: [UInt8] = []
            try CanonicalJSONWriter().write(values, into: &bytes)
            var fromBytes = Set<String>()
            bytes.withUnsafeBufferPointer { written in
                BlobStore.collectReferences(inCanonicalMembers: UnsafeBufferPointer(rebasing: written.dropFirst()), into: &fromBytes)
            }
            #expect(fromBytes == expected, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            found += expected.count
        }
        #expect(found > 100)
    }

    /// A record whose only member is named `$blob` and holds a hash is not itself a reference.
    @Test func aRecordOfOneMemberNamedLikeAReferenceIsNotOne() throws {
        let store = Store.inMemory()
        try store.write { tx in try tx.insert(entity: "Odd", id: tx.allocateID(), values: ["$blob": .string(Self.hashA)]) }
        #expect(store.count(of: "Odd") == 1)
    }

    /// In a transaction large enough to be written on several threads, a reference to a missing blob in
    /// any record, inserted or updated, still refuses the whole transaction.
    @Test(arguments: [0, 2_999, 5_999])
    func aLargeTransactionReferringToAMissingBlobAnywhereIsRefused(position: Int) throws {
        let store = Store.inMemory()
        var stored = ""
        try store.write { tx in stored = try tx.putBlob(Data("cover".utf8)) }
        let error = try #require(throws: StorageError.self) {
            try store.write { tx in
                for index in 0..<6_000 {
                    let hash = index == position ? Self.hashB : stored
                    try tx.insert(
                        entity: "Book", id: tx.allocateID(),
                        values: ["title": .string("book \(index)"), "cover": .array([BlobStore.reference(hash)])])
                }
            }
        }
        #expect(error.code == .blobNotFound)
        #expect("\(error)".contains(Self.hashB))
        #expect(store.count(of: "Book") == 0)

        try store.write { tx in
            for _ in 0..<3_000 { try tx.insert(entity: "Book", id: tx.allocateID(), values: ["cover": BlobStore.reference(stored)]) }
        }
        #expect(throws: StorageError.self) {
            try store.write { tx in
                for id in Int64(2)...3_001 {
                    try tx.update(entity: "Book", id: id, values: ["cover": BlobStore.reference(id == 1_500 ? Self.hashB : stored)])
                }
            }
        }
        #expect(store.count(of: "Book") == 3_000)
    }
}
