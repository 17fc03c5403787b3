import CheckInModels
import DeviceAPI
import UplinkClient
import TestSupport
@testable import UplinkLive
import XCTest

/// The backend's replies are input like a config file or a socket line: a broken proxy, a wrong
/// URL or a hostile server can answer anything. Every reader the uplink applies to a reply gets
/// valid replies damaged byte by byte (seeded, so a failure repeats), extreme numbers and times,
/// and random bytes. None may trap (that would take the daemon down and restart it in a loop),
/// and what one accepts keeps the promises the device acts on.
final class BackendReplyPropertyTests: XCTestCase {
    private static let request = "GET https://backend.invalid/v1/x"
    private static let damagedBodiesPerReader = 3_000

    private static let validReplies: [String] = [
        #"{"acknowledged":["0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0","not-an-id"],"rejected":[{"id":"123e4567-e89b-42d3-a456-426614174000","error":"too old"}]}"#,
        #"{"intervalSeconds":86400,"reminderSeconds":7200,"version":3}"#,
        #"{"pings":[{"id":"p-1","responderId":"r-1","responderName":"Ana","createdAt":"2026-11-22T08:00:00Z"}],"cursor":"c-1"}"#,
        #"{"notifications":[{"id":"n-1","type":"ping","createdAt":"2026-11-22T08:00:00.5Z","isRead":false,"title":"Ana pinged you","body":"ok?"},"#
            + #"{"id":"n-2","type":"alert","createdAt":"2026-11-22T08:00:01Z","isRead":true,"cleared":true,"title":""}],"cursor":"7","hasMore":true}"#,
        #"{"error":"slow down"}"#,
    ]

    /// Bytes that make JSON interesting: structure, digits and signs, escapes, control bytes,
    /// broken UTF-8.
    private static let interestingBytes = Array(#"{}[]",:\/"0123456789-+.eETZtfnrubx "#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xFF]

    /// Every reader the live client applies to a response, with the invariants of what it accepts.
    private func readEveryWay(_ response: HTTPResponse) {
        let request = Self.request
        if case let .success(outcome) = UplinkClient.uploadOutcome(response, url: request) {
            XCTAssertTrue((200..<300).contains(response.status), "a \(response.status) counted as an acknowledgement")
            // Ids come out parsed: an acknowledged id is always a real check-in id.
            for id in outcome.acknowledged { XCTAssertNotNil(CheckInID(id.description)) }
        }
        _ = UplinkClient.acknowledgedIDs(response, url: request)
        if case let .success(remote) = UplinkClient.settings(response, request: request) {
            // What reaches the feature can be judged by the policy without trapping.
            _ = SettingsPolicy.standard.validate(remote.settings)
            _ = DurationText.format(remote.settings.interval)
        }
        if case let .success(poll) = UplinkClient.pingPoll(response, request: request) {
            XCTAssertTrue((200..<300).contains(response.status))
            _ = poll.pings.map(\.createdAt)
        }
        if case let .success(page) = UplinkClient.notificationPage(response, request: request) {
            for notification in page.notifications { _ = notification.createdAt.iso8601 }
        }
        let failure = UplinkClient.failure(response, request: request)
        XCTAssertFalse(failure.message.contains("\n"), "a server's message is shown on one line")
        if let wait = failure.retryAfter { XCTAssertGreaterThanOrEqual(wait, .zero) }
    }

    func testDamagedRepliesNeverTrapAndWhatIsAcceptedIsSound() {
        var generator = SeededRandom(state: 0x0BAD_5EED)
        var accepted = 0
        for reply in Self.validReplies {
            let body = Array(reply.utf8)
            for round in 0..<Self.damagedBodiesPerReader {
                var damaged = body
                for _ in 0...(round % 3) where !damaged.isEmpty {
                    let index = Int.random(in: 0..<damaged.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: damaged[index] = Self.interestingBytes.randomElement(using: &generator)!
                    case 1: damaged.remove(at: index)
                    default: damaged.insert(Self.interestingBytes.randomElement(using: &generator)!, at: index)
                    }
                }
                let status = [200, 201, 204, 400, 401, 409, 429, 500, 503].randomElement(using: &generator)!
                let response = HTTPResponse(status: status, headers: [:], body: damaged)
                readEveryWay(response)
                if (try? APICoding.decode(CheckInAcknowledgement.self, from: damaged).get()) != nil { accepted += 1 }
            }
        }
        // Damage that leaves valid JSON must happen, or the readers' accepting paths went untested.
        XCTAssertGreaterThan(accepted, 0)
    }

    func testRandomBytesAndEmptyBodiesNeverTrap() {
        var generator = SeededRandom(state: 0x5EED_0001)
        for length in [0, 1, 2, 16, 200, 4_096] {
            for _ in 0..<200 {
                let body = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                readEveryWay(HTTPResponse(status: Int.random(in: 100..<600, using: &generator), headers: [:], body: body))
            }
        }
    }

    /// Numbers and times at the edges of what JSON can carry: each is refused with a message or
    /// accepted soundly, never a trap (an overflow in microsecond arithmetic would be one).
    func testExtremeNumbersAndTimesAreRefusedNotTrappedOn() throws {
        let extremes = ["9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e300", "-1", "0"]
        for value in extremes {
            readEveryWay(HTTPResponse(status: 200, headers: [:], body: Array(
                #"{"intervalSeconds":\#(value),"reminderSeconds":\#(value),"version":\#(value)}"#.utf8)))
            readEveryWay(HTTPResponse(status: 200, headers: [:], body: Array(
                #"{"intervalSeconds":86400,"reminderSeconds":\#(value),"version":1}"#.utf8)))
        }
        let settings = UplinkClient.settings(HTTPResponse(status: 200, headers: [:], body: Array(
            #"{"intervalSeconds":9223372036854775807,"reminderSeconds":7200,"version":1}"#.utf8)), request: Self.request)
        guard case let .failure(failure) = settings else { return XCTFail("an interval of Int64.max seconds was accepted") }
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertTrue(failure.message.contains("intervalSeconds 9223372036854775807"), failure.message)

        for year in ["300000", "99999999999999", "9223372036854775807", "0", "10000", "-2026"] {
            let createdAt = "\(year)-01-01T00:00:00Z"
            let page = UplinkClient.notificationPage(HTTPResponse(status: 200, headers: [:], body: Array(
                #"{"notifications":[{"id":"n","type":"ping","createdAt":"\#(createdAt)","isRead":false,"title":"t"}],"hasMore":false}"#.utf8)),
                request: Self.request)
            if case let .success(accepted) = page {
                let time = try XCTUnwrap(accepted.notifications.first?.createdAt)
                XCTAssertLessThanOrEqual(abs(time.microsecondsSinceEpoch / 31_556_952_000_000), WallTime.yearLimit,
                                         "\(createdAt) was accepted as \(time.microsecondsSinceEpoch) µs")
            }
            if year != "0" {
                XCTAssertNil(WallTime(iso8601: "\(year)000-01-01T00:00:00Z"), "a year beyond ±\(WallTime.yearLimit) must not parse")
            }
            let retryAfter = ["retry-after": "Sun, 06 Nov \(year) 08:49:37 GMT"]
            readEveryWay(HTTPResponse(status: 503, headers: retryAfter, body: []))
        }
    }
}
