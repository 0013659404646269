/// The deterministic Trip generator of `../shared/bench/README.md`, bit for bit the same as
/// `sqlite/tripgen.h`: counter-based splitmix64, draw j of record i is mix(SEED + (i*8 + j + 1) * GAMMA).

/// One generated record, as plain values (the C harness's `Trip` struct).
struct TripRecord {
    var id: String  // uppercase UUID string
    var name: String  // 12 lowercase letters
    var destination: String  // "City0" ... "City199"
    var startDate: Double  // seconds since 1970
    var price: Double  // 0.00 ... 5000.00
    var mapRaw: String  // "I" + 16 lowercase hex digits
}

enum TripGenerator {
    static let seed: UInt64 = 0x5EED_C0FF_EE12_3457
    static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always)
    static func draw(_ i: UInt64, _ j: UInt64) -> UInt64 {
        mix(seed &+ (i &* 8 &+ j &+ 1) &* gamma)
    }

    private static let upperHex = Array("0123456789ABCDEF".utf8)
    private static let lowerHex = Array("0123456789abcdef".utf8)

    /// Appends `digits` hex digits of `value` (most significant first).
    @inline(__always)
    private static func appendHex(_ bytes: inout [UInt8], _ value: UInt64, digits: Int, table: [UInt8]) {
        var shift = (digits - 1) * 4
        while shift >= 0 {
            bytes.append(table[Int((value >> UInt64(shift)) & 0xF)])
            shift -= 4
        }
    }

    static func record(_ index: Int) -> TripRecord {
        let i = UInt64(index)
        var hi = draw(i, 0)
        var lo = draw(i, 1)
        hi = (hi & 0xFFFF_FFFF_FFFF_0FFF) | 0x4000
        lo = (lo & 0x3FFF_FFFF_FFFF_FFFF) | (1 << 63)
        var idBytes: [UInt8] = []
        idBytes.reserveCapacity(36)
        appendHex(&idBytes, hi >> 32, digits: 8, table: upperHex)
        idBytes.append(UInt8(ascii: "-"))
        appendHex(&idBytes, (hi >> 16) & 0xFFFF, digits: 4, table: upperHex)
        idBytes.append(UInt8(ascii: "-"))
        appendHex(&idBytes, hi & 0xFFFF, digits: 4, table: upperHex)
        idBytes.append(UInt8(ascii: "-"))
        appendHex(&idBytes, lo >> 48, digits: 4, table: upperHex)
        idBytes.append(UInt8(ascii: "-"))
        appendHex(&idBytes, lo & 0xFFFF_FFFF_FFFF, digits: 12, table: upperHex)

        var r = draw(i, 2)
        var nameBytes: [UInt8] = []
        nameBytes.reserveCapacity(12)
        for _ in 0..<12 {
            nameBytes.append(UInt8(ascii: "a") + UInt8(r % 26))
            r /= 26
        }

        var mapBytes: [UInt8] = [UInt8(ascii: "I")]
        mapBytes.reserveCapacity(17)
        appendHex(&mapBytes, draw(i, 6), digits: 16, table: lowerHex)

        return TripRecord(
            id: String(decoding: idBytes, as: UTF8.self),
            name: String(decoding: nameBytes, as: UTF8.self),
            destination: "City" + String(draw(i, 3) % 200),
            startDate: 1_600_000_000.0 + Double(draw(i, 4) % 100_000_000_000) / 1000.0,
            price: Double(draw(i, 5) % 500_001) / 100.0,
            mapRaw: String(decoding: mapBytes, as: UTF8.self))
    }

    /// FNV-1a 64 over the UTF-8 bytes of `text`.
    @inline(__always)
    static func fnv(_ hash: UInt64, _ text: String) -> UInt64 {
        var h = hash
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x100_0000_01B3
        }
        return h
    }
}
