extension CheckInBatch {
    /// Reads a batch written exactly as `json(_:)` writes it (keys in that order, no whitespace),
    /// or returns nil for anything else, which the caller then hands to `APICoding.decode`.
    ///
    /// For the reference server: a general JSON decoder was 59 % of its CPU time while a 100,000-row backlog
    /// arrived (BENCHMARKS.md). Whatever this accepts, `APICoding.decode` reads as the same batch (the
    /// tests hold the two together, mutated bodies included); what it is unsure of it refuses.
    public static func decodeCanonical(_ bytes: [UInt8]) -> CheckInBatch? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = CanonicalReader(bytes: buffer)
            return reader.batch()
        }
    }
}

/// A cursor over the exact layout `CheckInBatch.json(_:)` writes; every method returns nil on the
/// first byte that does not fit it.
private struct CanonicalReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    mutating func batch() -> CheckInBatch? {
        guard literal(#"{"checkIns":["#) else { return nil }
        var checkIns: [UploadedCheckIn] = []
        if !literal("]") {
            repeat {
                guard let item = checkIn() else { return nil }
                checkIns.append(item)
            } while literal(",")
            guard literal("]") else { return nil }
        }
        guard literal("}"), position == bytes.count else { return nil }
        return CheckInBatch(checkIns: checkIns)
    }

    private mutating func checkIn() -> UploadedCheckIn? {
        guard literal(#"{"bootId":"#), let bootID = string(),
              literal(#","id":"#), let id = string(),
              literal(#","source":"#), let source = string(),
              literal(#","uptimeMicroseconds":"#), let uptime = integer(),
              literal(#","wallClockSynchronized":"#), let synchronized = boolean(),
              literal(#","wallTime":"#), let wallTime = string(),
              literal("}")
        else { return nil }
        return UploadedCheckIn(id: id, wallTime: wallTime, wallClockSynchronized: synchronized,
                               uptimeMicroseconds: uptime, bootId: bootID, source: source)
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] {
            return false
        }
        position += count
        return true
    }

    /// A string with the escapes `json(_:)` writes; a `\u` escape above U+001F, invalid UTF-8 or a raw
    /// control byte is refused (`APICoding.decode` decides those).
    private mutating func string() -> String? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        position += 1
        var utf8: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escaped = bytes[position]
                position += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard bytes.count - position >= 4, bytes[position] == UInt8(ascii: "0"),
                          bytes[position + 1] == UInt8(ascii: "0"),
                          let high = Self.hexValue(bytes[position + 2]), high < 2,
                          let low = Self.hexValue(bytes[position + 3])
                    else { return nil }
                    utf8.append(high << 4 | low)
                    position += 4
                default:
                    return nil
                }
            case 0x00..<0x20:
                return nil
            default:
                utf8.append(byte)
            }
        }
        return nil
    }

    /// An integer without sign or leading zeros that fits Int64 (anything else: `APICoding.decode` decides).
    private mutating func integer() -> Int64? {
        let start = position
        var value: Int64 = 0
        while position < bytes.count {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            position += 1
        }
        let length = position - start
        guard length > 0, length == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        return value
    }

    private mutating func boolean() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
