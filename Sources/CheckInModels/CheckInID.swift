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

    /// Parses the canonical 8-4-4-4-12 hexadecimal form, any case.
    public init?(_ text: some StringProtocol) {
        let hex = String(text.filter { $0 != "-" })
        guard text.count == 36, hex.count == 32,
              [8, 13, 18, 23].allSatisfy({ text[text.index(text.startIndex, offsetBy: $0)] == "-" }),
              let high = UInt64(hex.prefix(16), radix: 16),
              let low = UInt64(hex.suffix(16), radix: 16)
        else { return nil }
        self.init(high: high, low: low)
    }

    public var description: String {
        let hex = hexDigits(high, width: 16) + hexDigits(low, width: 16)
        let chars = Array(hex)
        return String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-" + String(chars[12..<16])
            + "-" + String(chars[16..<20]) + "-" + String(chars[20..<32])
    }

    public static func < (lhs: CheckInID, rhs: CheckInID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

private func hexDigits(_ value: UInt64, width: Int) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: width - digits.count) + digits
}
