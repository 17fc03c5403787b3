import CheckInModels
import ControlProtocol
import TestSupport
import XCTest

/// Properties of the control-socket decoders, on seeded random input (the libFuzzer target in
/// Fuzz/ explores the same properties with coverage feedback; this runs in every test run):
/// decoding never traps, a refusal always says why, and whatever decodes survives a round trip.
final class ControlCodingPropertyTests: XCTestCase {
    func testRandomAndMutatedLinesDecodeOrAreRefusedWithAReason() {
        var random = SeededRandom(state: 0xC0DE_2026)
        let corpus = Self.validRequests(using: &random).map { ControlCoding.encode($0) }
            + Self.validResponses(using: &random).map { ControlCoding.encode($0) }
        var decodedRequests = 0, decodedResponses = 0, refused = 0
        for round in 0..<5000 {
            let line: String
            if round % 5 == 4 {
                let length = Int.random(in: 0...120, using: &random)
                line = String(String.UnicodeScalarView((0..<length).map { _ in Self.alphabet.randomElement(using: &random)! }))
            } else {
                line = mutate(corpus.randomElement(using: &random)!, using: &random)
            }
            switch checkRoundTrip(ControlRequest.self, line, round: round) {
            case true: decodedRequests += 1
            case false: refused += 1
            }
            if checkRoundTrip(ControlResponse.self, line, round: round) { decodedResponses += 1 }
        }
        // Both outcomes must be exercised, or this test proves nothing.
        XCTAssertGreaterThan(decodedRequests, 300)
        XCTAssertGreaterThan(decodedResponses, 10)
        XCTAssertGreaterThan(refused, 1000)
    }

    func testEveryValidMessageSurvivesARoundTripOnOneLine() {
        var random = SeededRandom(state: 0x0DD_BA11)
        for request in Self.validRequests(using: &random) {
            let line = ControlCoding.encode(request)
            XCTAssertFalse(line.contains("\n"))
            XCTAssertEqual(try ControlCoding.decode(ControlRequest.self, from: line).get(), request)
        }
        for response in Self.validResponses(using: &random) {
            let line = ControlCoding.encode(response)
            XCTAssertFalse(line.contains("\n"))
            XCTAssertEqual(try ControlCoding.decode(ControlResponse.self, from: line).get(), response)
        }
    }

    func testRefusalsNameTheProblem() {
        let cases: [(String, String)] = [
            ("", "not valid JSON"),
            ("{\"command\":\"reboot\"}", "invalid value at 'command'"),
            ("{}", "missing field 'command'"),
            ("{\"command\":\"history\",\"limit\":\"ten\"}", "limit"),
            ("{\"command\":\"history\",\"limit\":1e400}", "invalid value at 'limit': Number 1e400 does not fit in Int"),
            ("[\"status\"]", "a message is one JSON object"),
            ("{\"command\":\"status\"", "not valid JSON"),
        ]
        for (line, expected) in cases {
            guard case let .failure(problem) = ControlCoding.decode(ControlRequest.self, from: line) else {
                XCTFail("\(line) must be refused")
                continue
            }
            XCTAssertFalse(problem.message.isEmpty, line)
            XCTAssertTrue(problem.message.contains(expected), "\(line): \(problem.message)")
        }
    }

    // MARK: Helpers

    /// Decodes `line` as `type`; on success checks the round trip, on failure checks the message.
    private func checkRoundTrip<T: Codable & Equatable>(_ type: T.Type, _ line: String, round: Int) -> Bool {
        switch ControlCoding.decode(type, from: line) {
        case let .success(value):
            let encoded = ControlCoding.encode(value)
            XCTAssertFalse(encoded.contains("\n"), "round \(round)")
            XCTAssertEqual(try? ControlCoding.decode(type, from: encoded).get(), value, "round \(round): \(line)")
            return true
        case let .failure(problem):
            XCTAssertFalse(problem.message.isEmpty, "round \(round): \(line)")
            return false
        }
    }

    static let alphabet: [Unicode.Scalar] = Array("{}[]\":,0123456789-+.eEtrufalsn \\/u\t\ncommandlimit".unicodeScalars)
        + ["\u{0}", "\u{1F}", "é", "\u{1F600}", "\u{FEFF}", "\u{2028}", "\u{D7FF}"]

    private func mutate(_ text: String, using random: inout SeededRandom) -> String {
        var scalars = Array(text.unicodeScalars)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = scalars.isEmpty ? 0 : Int.random(in: 0..<scalars.count, using: &random)
            switch random.next() % 4 {
            case 0 where !scalars.isEmpty: scalars.remove(at: position)
            case 1: scalars.insert(Self.alphabet.randomElement(using: &random)!, at: position)
            case 2 where !scalars.isEmpty: scalars[position] = Self.alphabet.randomElement(using: &random)!
            default:  // duplicate a slice: repeated keys, nested structures
                let end = min(scalars.count, position + Int.random(in: 1...12, using: &random))
                scalars.insert(contentsOf: scalars[position..<end], at: position)
            }
        }
        return String(String.UnicodeScalarView(scalars))
    }

    static func validRequests(using random: inout SeededRandom) -> [ControlRequest] {
        ControlRequest.Command.allCases.flatMap { command in
            (0..<4).map { _ in
                ControlRequest(command,
                               limit: random.next() % 2 == 0 ? nil : Int(truncatingIfNeeded: random.next()),
                               interval: random.next() % 2 == 0 ? nil : text(using: &random),
                               reminder: random.next() % 2 == 0 ? nil : text(using: &random),
                               hold: random.next() % 2 == 0 ? nil : text(using: &random),
                               notificationID: random.next() % 2 == 0 ? nil : text(using: &random),
                               type: random.next() % 2 == 0 ? nil : text(using: &random),
                               unreadOnly: random.next() % 2 == 0 ? nil : random.next() % 2 == 0)
            }
        }
    }

    static func validResponses(using random: inout SeededRandom) -> [ControlResponse] {
        let settings = SettingsReport(CheckInSettings.default, version: 3)
        let checkIn = CheckInReport(id: CheckInID.random(using: &random).description, time: "2026-11-22T21:55:19.042Z",
                                    wallClockSynchronized: false, source: "button", uploaded: false, bootID: text(using: &random))
        let status = StatusReport(phase: "reminder", indicator: "fault", lastCheckIn: checkIn, deadline: nil,
                                  secondsLeft: -42, settings: settings,
                                  leds: [LEDReport(name: "red", colour: "red", on: true)], queueDepth: 7,
                                  error: text(using: &random), isCheckingIn: false, button: "released",
                                  gpioBackend: "simulated", wallClockSynchronized: false, now: "1970-01-01T00:00:30.000Z",
                                  elapsedTimeUnknown: true)
        return [
            .failure(text(using: &random)),
            ControlResponse(status: status),
            ControlResponse(checkIn: checkIn),
            ControlResponse(history: [checkIn, checkIn]),
            ControlResponse(settings: settings),
            ControlResponse(notifications: NotificationsReport(
                filter: "ping", unreadOnly: true,
                notifications: [NotificationReport(AppNotification(
                    id: text(using: &random), type: .ping, createdAt: WallTime(secondsSinceEpoch: 1_795_000_000),
                    title: text(using: &random), body: text(using: &random)))],
                total: 3, unread: 1, pendingChanges: 2,
                sync: NotificationSyncReport(syncing: false, lastAttempt: nil, lastSuccess: "2026-11-22T21:55:19.042Z",
                                             lastFailure: text(using: &random), consecutiveFailures: 1, nextAttempt: nil),
                error: nil)),
        ]
    }

    /// Text with the characters JSON must escape.
    static func text(using random: inout SeededRandom) -> String {
        let pieces = ["16h", "90m", "\"", "\\", "\n", "\u{0}", "é", "\u{1F600}", "/", " ", "\u{2028}"]
        return (0..<Int.random(in: 0...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }
}
