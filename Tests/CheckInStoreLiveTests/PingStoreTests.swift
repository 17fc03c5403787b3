import CheckInModels
import CheckInStoreClient
import CheckInStoreLive
import TestSupport
import XCTest

/// Pings and the answers to them on a real SQLite file: kept across restarts, and answered in the
/// same transaction as the check-in that answers them.
final class PingStoreTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    private let alice = PendingPing(id: "7d0c5a1e-0000-4000-8000-000000000001", responderID: "r-alice",
                                    responderName: "Alice", createdAt: "2026-11-22T21:55:19.042137Z")
    private let bob = PendingPing(id: "7d0c5a1e-0000-4000-8000-000000000002", responderID: "r-bob",
                                  responderName: "Bob", createdAt: "2026-11-22T21:56:00Z")

    private func press(at seconds: Int64) -> NewCheckIn {
        NewCheckIn(id: .random(), at: DeviceInstant(wall: WallTime(secondsSinceEpoch: seconds), uptime: .seconds(seconds % 10_000),
                                                    bootID: "boot", wallClockSynchronized: true), source: .button)
    }

    private func responses(to pings: [PendingPing], by checkIn: NewCheckIn) -> [PingResponse] {
        pings.map { PingResponse(id: .random(), pingID: $0.id, checkInID: checkIn.id, at: checkIn.at.wall) }
    }

    func testPendingPingsSurviveARestartAndArriveOnce() async throws {
        do {
            let database = try await CheckInDatabase.open(path: path)
            let first = try await database.savePings([alice])
            XCTAssertEqual(first, [alice])
            let second = try await database.savePings([alice, bob])
            XCTAssertEqual(second, [alice, bob], "a ping sent again is kept once, in arrival order")
        }
        let reopened = try await CheckInDatabase.open(path: path)
        let pending = try await reopened.pendingPings()
        XCTAssertEqual(pending, [alice, bob])
    }

    func testACheckInAnsweringPingsStoresBothAndThePingsAreNoLongerPendingEvenWhenSentAgain() async throws {
        let database = try await CheckInDatabase.open(path: path)
        _ = try await database.savePings([alice, bob])
        let checkIn = press(at: 1_795_000_000)
        let answers = responses(to: [alice, bob], by: checkIn)
        let stored = try await database.record(checkIn, answering: answers)
        XCTAssertEqual(stored.id, checkIn.id)

        let pendingAfter = try await database.pendingPings()
        XCTAssertEqual(pendingAfter, [])
        let queued = try await database.pendingPingResponses(limit: 10)
        XCTAssertEqual(queued, answers, "queued for upload, oldest first")
        // After a restart the backend sends every unanswered ping again (no cursor yet): the ones the
        // device answered, but whose answers are not uploaded, must not light up again.
        let resent = try await database.savePings([alice])
        XCTAssertEqual(resent, [])
        let checkIns = try await database.count()
        XCTAssertEqual(checkIns, 1)
    }

    func testWhenAResponseCannotBeStoredNeitherIsTheCheckIn() async throws {
        let database = try await CheckInDatabase.open(path: path)
        _ = try await database.savePings([alice, bob])
        let earlier = press(at: 1_795_000_000)
        let earlierAnswer = responses(to: [alice], by: earlier)
        _ = try await database.record(earlier, answering: earlierAnswer)

        // The second response reuses a stored response id: its INSERT fails after the check-in's
        // and the first response's rows were written, so the whole transaction must roll back.
        let checkIn = press(at: 1_795_000_100)
        var answers = responses(to: [bob, bob], by: checkIn)
        answers[1].id = earlierAnswer[0].id
        do {
            _ = try await database.record(checkIn, answering: answers)
            XCTFail("a response id that is already stored must fail the write")
        } catch {
            XCTAssertFalse(error.message.isEmpty)
        }
        let history = try await database.history(limit: 10)
        XCTAssertEqual(history.map(\.id), [earlier.id], "the check-in was not stored without its responses")
        let queued = try await database.pendingPingResponses(limit: 10)
        XCTAssertEqual(queued, earlierAnswer, "no response of the failed write remains")
        let pending = try await database.pendingPings()
        XCTAssertEqual(pending, [bob], "Bob's ping still waits for an answer")
    }

    func testResponsesAreMarkedUploadedOnlyByAcknowledgedIDs() async throws {
        let database = try await CheckInDatabase.open(path: path)
        _ = try await database.savePings([alice, bob])
        let checkIn = press(at: 1_795_000_000)
        let answers = responses(to: [alice, bob], by: checkIn)
        _ = try await database.record(checkIn, answering: answers)
        let marked = try await database.markPingResponsesUploaded(ids: [answers[1].id, .random()], at: WallTime(secondsSinceEpoch: 1))
        XCTAssertEqual(marked, 1)
        let waiting = try await database.pendingPingResponseCount()
        XCTAssertEqual(waiting, 1)
        let queued = try await database.pendingPingResponses(limit: 10)
        XCTAssertEqual(queued, [answers[0]])
        let checkInsWaiting = try await database.pendingUploadCount()
        XCTAssertEqual(checkInsWaiting, 1, "the check-in has its own queue")
    }

    func testTheClientInterfaceAnswersPings() async throws {
        let client = try await CheckInDatabase.open(path: path).client
        let pending = try await client.savePings([alice])
        XCTAssertEqual(pending, [alice])
        let checkIn = press(at: 1_795_000_000)
        _ = try await client.recordAnsweringPings(checkIn, responses(to: [alice], by: checkIn))
        let after = try await client.pendingPings()
        XCTAssertEqual(after, [])
    }
}
