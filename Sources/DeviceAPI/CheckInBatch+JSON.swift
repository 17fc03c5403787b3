public import CheckInModels
import JSONCoding

extension CheckInBatch {
    /// The batch as the JSON body of `POST /v1/check-ins`, written directly from the stored records.
    ///
    /// Byte for byte what `APICoding.encode(CheckInBatch(checkIns: records.map(UploadedCheckIn.init)))`
    /// writes (keys sorted, strings escaped by `JSONText`), without the intermediate values: a general
    /// encoder was an eighth of the daemon's CPU time while it uploaded a large backlog
    /// (BENCHMARKS.md). The tests hold the two to the same bytes.
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
