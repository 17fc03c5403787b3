import CheckInModels
import DeviceAPI
import XCTest

/// The hand-written parts of the upload's wire format (docs/device-api.yaml): the check-in batch's
/// JSON, the ids and the times. They were written by hand for speed (BENCHMARKS.md, backlog), so
/// they are held here to what `JSONEncoder`/`JSONDecoder` and the string forms make of the same values.
final class WireFormatTests: XCTestCase {
    /// Every ASCII byte (controls, quote, backslash, slash, DEL) and multi-byte UTF-8 in the one
    /// free-text field, the boot id; times before 1970, at the epoch and near year 9999.
    private func awkwardRecords() -> [CheckInRecord] {
        var generator = SystemRandomNumberGenerator()
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
        var generator = SystemRandomNumberGenerator()
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

    func testCheckInIDParsesTheCanonicalFormInAnyCaseAndPrintsItLowercase() throws {
        let id = try XCTUnwrap(CheckInID("123e4567-e89b-42d3-a456-426614174000"))
        XCTAssertEqual(id, CheckInID(high: 0x123E_4567_E89B_42D3, low: 0xA456_4266_1417_4000))
        XCTAssertEqual(CheckInID("123E4567-E89B-42D3-A456-426614174000"), id)
        XCTAssertEqual(id.description, "123e4567-e89b-42d3-a456-426614174000")
        XCTAssertEqual(CheckInID(high: 0, low: 0).description, "00000000-0000-0000-0000-000000000000")
        XCTAssertEqual(CheckInID(high: .max, low: .max).description, "ffffffff-ffff-ffff-ffff-ffffffffffff")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let random = CheckInID.random(using: &generator)
            XCTAssertEqual(CheckInID(random.description), random)
            XCTAssertEqual(CheckInID(Substring(random.description.uppercased())), random)
        }
    }

    func testCheckInIDRefusesAnythingButTheCanonicalForm() {
        for text in [
            "", "123e4567-e89b-42d3-a456-42661417400", "123e4567-e89b-42d3-a456-4266141740000",
            "123e4567e89b-42d3-a456-4266141740000", "123e4567-e89b-42d3-a456_426614174000",
            "123e4567-e89b-42d3-a456-42661417400g", "+23e4567-e89b-42d3-a456-426614174000",
            "123e4567-e89b-42d3-+456-426614174000", "123e4567-e89b-42d3-a456-42661417400é",
            "123e4567-e89b-42d3-a456-426614174000 ", "{123e4567-e89b-42d3-a456-426614174000}",
            "123e4567--e89b-42d3-a456-42661417400", "123e4567-e89b-42d3-a45-6426614174000",
        ] {
            XCTAssertNil(CheckInID(text), text)
        }
    }

    func testWallTimeFormatsToTheMicrosecondAndParsesBack() {
        let cases: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00.000000Z"),
            (1_795_000_000_123_456, "2026-11-18T11:06:40.123456Z"),
            (-1, "1969-12-31T23:59:59.999999Z"),
            (951_868_799_999_999, "2000-02-29T23:59:59.999999Z"),
            (253_402_300_799_999_999, "9999-12-31T23:59:59.999999Z"),
        ]
        for (microseconds, text) in cases {
            let time = WallTime(microsecondsSinceEpoch: microseconds)
            XCTAssertEqual(time.rfc3339Microseconds, text)
            XCTAssertEqual(time.iso8601, String(text.prefix(23)) + "Z")
            XCTAssertEqual(WallTime(iso8601: text), time)
            XCTAssertEqual(WallTime(iso8601: time.iso8601)?.microsecondsSinceEpoch, microseconds - ((microseconds % 1000) + 1000) % 1000)
        }
        XCTAssertEqual(WallTime(iso8601: "2026-11-18T11:06:40Z"), WallTime(microsecondsSinceEpoch: 1_795_000_000_000_000))
        XCTAssertEqual(WallTime(iso8601: "2026-11-18T11:06:40.1Z"), WallTime(microsecondsSinceEpoch: 1_795_000_000_100_000))
        // A year the fixed layout cannot hold is still written in full.
        XCTAssertEqual(WallTime(microsecondsSinceEpoch: 253_402_300_800_000_000).iso8601, "10000-01-01T00:00:00.000Z")
    }

    func testWallTimeRefusesFieldsOutOfRangeAndOtherLayouts() {
        for text in [
            "2026-13-18T11:06:40Z", "2026-00-18T11:06:40Z", "2026-11-32T11:06:40Z", "2026-11-18T24:06:40Z",
            "2026-11-18T11:60:40Z", "2026-11-18T11:06:61Z", "2026-11-18T11:06:40.Z", "2026-11-18T11:06:40.1234567Z",
            "2026-11-18T11:06:40", "2026-11-18 11:06:40Z", "2026-11-18T11:06:4xZ", "",
        ] {
            XCTAssertNil(WallTime(iso8601: text), text)
        }
    }
}
