public import CheckInModels

extension CheckInBatch {
    /// The batch as the JSON body of `POST /v1/check-ins`, written directly from the stored records.
    ///
    /// Byte for byte what `APICoding.encode(CheckInBatch(checkIns: records.map(UploadedCheckIn.init)))`
    /// writes (keys sorted, strings escaped as `JSONEncoder` escapes them), without the intermediate
    /// values and without `JSONEncoder`, which was an eighth of the daemon's CPU time while it
    /// uploaded a large backlog (BENCHMARKS.md). The tests hold the two to the same bytes.
    public static func json(_ records: [CheckInRecord]) -> [UInt8] {
        var out: [UInt8] = []
        // ~200 bytes a check-in with a 36-byte boot id; one allocation for a whole batch.
        out.reserveCapacity(16 + records.count * 224)
        out.append(contentsOf: #"{"checkIns":["#.utf8)
        for (index, record) in records.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"bootId":"#.utf8)
            JSONText.appendString(record.at.bootID, to: &out)
            out.append(contentsOf: #","id":""#.utf8)
            out.append(contentsOf: record.id.description.utf8)
            out.append(contentsOf: #"","source":"#.utf8)
            JSONText.appendString(record.source.rawValue, to: &out)
            out.append(contentsOf: #","uptimeMicroseconds":"#.utf8)
            out.append(contentsOf: String(record.at.uptime.wholeMicroseconds).utf8)
            out.append(contentsOf: #","wallClockSynchronized":"#.utf8)
            out.append(contentsOf: (record.at.wallClockSynchronized ? "true" : "false").utf8)
            out.append(contentsOf: #","wallTime":"#.utf8)
            JSONText.appendString(record.at.wall.rfc3339Microseconds, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}

/// JSON string literals, escaped exactly as FoundationEssentials' `JSONEncoder` escapes them
/// (with its default of escaping `/`).
enum JSONText {
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "/"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "/")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            default: out.append(byte)  // UTF-8 passes through as it is, multi-byte sequences included
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
