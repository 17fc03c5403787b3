import CheckInModels
import XCTest

/// Wall times are written and read by hand (no Foundation): RFC 3339 to the microsecond, UTC.
final class WallTimeTests: XCTestCase {
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
