/// A check-in's identity: a random (version 4) UUID, created before the durable write so that the
/// same id can later serve as the upload's idempotency key.
public struct CheckInID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A fresh random id from the system's cryptographic generator (getrandom on Linux).
    public static func random() -> CheckInID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    public static func random(using generator: inout some RandomNumberGenerator) -> CheckInID {
        // RFC 9562 §5.4: version 4 in the top nibble of byte 6, variant 0b10 in byte 8.
        let high = (generator.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (generator.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return CheckInID(high: high, low: low)
    }

    /// Parses the canonical 8-4-4-4-12 hexadecimal form, any case: 36 ASCII bytes, hyphens at
    /// offsets 8, 13, 18 and 23, hexadecimal digits everywhere else.
    ///
    /// Byte by byte, with no intermediate strings: the uploader and the reference server parse
    /// every id of every batch, and the string-based version was a quarter of their CPU time while
    /// uploading a backlog (BENCHMARKS.md).
    public init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8(Self.parse) else { return nil }
        self = parsed
    }

    /// The same for a substring or any other string type.
    public init?(_ text: some StringProtocol) {
        self.init(String(text))
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> CheckInID? {
        guard bytes.count == 36 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for (offset, byte) in bytes.enumerated() {
            if isHyphenOffset(offset) {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let nibble = hexValue(byte) else { return nil }
            // The first 16 digits (offsets 0…18, three hyphens among them) are the high half.
            if offset < 19 { high = high << 4 | nibble } else { low = low << 4 | nibble }
        }
        return CheckInID(high: high, low: low)
    }

    /// Lowercase 8-4-4-4-12, written straight into the string's storage.
    public var description: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var offset = 0
            for digit in 0..<32 {
                if Self.isHyphenOffset(offset) {
                    buffer[offset] = UInt8(ascii: "-")
                    offset += 1
                }
                let half = digit < 16 ? high : low
                let nibble = UInt8(truncatingIfNeeded: half >> UInt64(60 - 4 * (digit % 16))) & 0xF
                buffer[offset] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                offset += 1
            }
            return offset
        }
    }

    private static func isHyphenOffset(_ offset: Int) -> Bool {
        offset == 8 || offset == 13 || offset == 18 || offset == 23
    }

    private static func hexValue(_ byte: UInt8) -> UInt64? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt64(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt64(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt64(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    public static func < (lhs: CheckInID, rhs: CheckInID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}
