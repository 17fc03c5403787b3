import CheckInModels
import DeviceAPI
import TestSupport
import XCTest

/// The hand-written parts of the upload's wire format (docs/device-api.yaml): the check-in batch's
/// JSON, written and read directly. They were written by hand for speed (BENCHMARKS.md, backlog),
/// so they are held here to what `JSONEncoder`/`JSONDecoder` make of the same values. (The ids' and
/// times' string forms are CheckInModels': CheckInIDTests, WallTimeTests.)
final class WireFormatTests: XCTestCase {
    /// Every ASCII byte (controls, quote, backslash, slash, DEL) and multi-byte UTF-8 in the one
    /// free-text field, the boot id; times before 1970, at the epoch and near year 9999.
    private func awkwardRecords() -> [CheckInRecord] {
        var generator = SeededRandom(state: 0xA3C_0001)
        let awkwardBootIDs = [
            String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self),
            #"a"b\c/d"#, "é ü € 𝄞 🙂", "\u{2028}\u{2029}", "", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
        ]
        let walls: [Int64] = [-1, 0, 1, 1_795_000_000_123_456, 253_402_300_799_999_999, -62_135_596_800_000_000]
        var records: [CheckInRecord] = []
        for (index, bootID) in awkwardBootIDs.enumerated() {
            for (wallIndex, wall) in walls.enumerated() {
                records.append(CheckInRecord(NewCheckIn(
                    id: .random(using: &generator),
                    at: DeviceInstant(wall: WallTime(microsecondsSinceEpoch: wall),
                                      uptime: .microseconds(Int64(index * 1_000_003 + wallIndex) * (wallIndex == 5 ? 1 << 40 : 1)),
                                      bootID: bootID, wallClockSynchronized: wallIndex % 2 == 0),
                    source: index % 2 == 0 ? .button : .cli)))
            }
        }
        return records
    }

    func testCheckInBatchJSONIsByteForByteWhatJSONEncoderWritesAndDecodesToTheSameCheckIns() throws {
        let records = awkwardRecords()
        for batch in [[], Array(records.prefix(1)), records] {
            let expected = APICoding.encode(CheckInBatch(checkIns: batch.map(UploadedCheckIn.init)))
            let written = CheckInBatch.json(batch)
            XCTAssertEqual(String(decoding: written, as: UTF8.self), String(decoding: expected, as: UTF8.self))
            let decoded = try APICoding.decode(CheckInBatch.self, from: written).get()
            XCTAssertEqual(decoded.checkIns, batch.map(UploadedCheckIn.init))
            XCTAssertEqual(decoded.checkIns.map(\.bootId), batch.map(\.at.bootID))
        }
    }

    func testTheServersDirectReaderReadsWhatTheDeviceWritesAsJSONDecoderDoes() throws {
        let records = awkwardRecords()
        for batch in [[], Array(records.prefix(1)), records] {
            let body = CheckInBatch.json(batch)
            let direct = try XCTUnwrap(CheckInBatch.decodeCanonical(body))
            XCTAssertEqual(direct, try APICoding.decode(CheckInBatch.self, from: body).get())
            XCTAssertEqual(direct.checkIns, batch.map(UploadedCheckIn.init))
        }
        // Another layout (whitespace, other key order) is left to JSONDecoder.
        let pretty = Array(#"{ "checkIns": [] }"#.utf8)
        XCTAssertNil(CheckInBatch.decodeCanonical(pretty))
        XCTAssertNoThrow(try APICoding.decode(CheckInBatch.self, from: pretty).get())
    }

    /// Changed, removed and inserted bytes anywhere in a body: whatever the direct reader still
    /// accepts, JSONDecoder must read as the same batch (and refuse nothing of it).
    func testTheServersDirectReaderNeverDisagreesWithJSONDecoderOnDamagedBodies() {
        var generator = SeededRandom(state: 0xDA3A_6ED)
        let body = CheckInBatch.json(Array(awkwardRecords().suffix(8)))
        let interesting = Array(#"{}[]",:\/"0123456789-+.eEtfnrubx "#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        var acceptedDamaged = 0
        for _ in 0..<3000 {
            var damaged = body
            let index = Int.random(in: 0..<damaged.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: damaged[index] = interesting.randomElement(using: &generator)!
            case 1: damaged.remove(at: index)
            default: damaged.insert(interesting.randomElement(using: &generator)!, at: index)
            }
            guard let direct = CheckInBatch.decodeCanonical(damaged) else { continue }
            acceptedDamaged += damaged == body ? 0 : 1
            XCTAssertEqual(direct, try? APICoding.decode(CheckInBatch.self, from: damaged).get(),
                           String(decoding: damaged, as: UTF8.self))
        }
        XCTAssertGreaterThan(acceptedDamaged, 0, "no damaged body was read directly: the check checked nothing")
    }
}
