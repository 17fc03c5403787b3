import CheckInModels
import ComposableCore
import UploadFeature
import UplinkClient
import XCTest

/// What the uploader tells the operator: the same lines the runtime class logged.
final class LogTests: XCTestCase {
    typealias Uploader = UploadFeature<CheckInRecord>
    let base = Uploader.State(noun: "alerts", endpoint: "https://backend.example/")

    func testATransientFailureSaysWhenItIsRetriedAndHowManyFailuresInARow() {
        var after = base
        after.consecutiveFailures = 3
        after.lastResult = .transientFailure
        after.lastMessage = "HTTP 503: maintenance"
        after.retryDelay = .milliseconds(7500)
        let failure = UplinkFailure(.transient, "HTTP 503: maintenance")
        var before = base
        before.consecutiveFailures = 2
        XCTAssertEqual(Uploader.log(.batchSent(.failure(failure)), before: before, after: after), [
            LogEntry(.warning, "alerts upload failed, retrying in 7 s: HTTP 503: maintenance", metadata: ["failures": "3"]),
        ])
    }

    func testAPermanentFailureSaysTheRowsStayQueuedUntilTheNextOneOrARestart() {
        var after = base
        after.consecutiveFailures = 1
        after.lastResult = .permanentFailure
        after.lastMessage = "HTTP 401: token revoked"
        XCTAssertEqual(Uploader.log(.batchSent(.failure(UplinkFailure(.permanent, "HTTP 401: token revoked"))),
                                    before: base, after: after), [
            LogEntry(.error, "alerts upload refused, not retrying until the next one is stored or a restart; "
                     + "the alerts stay queued: HTTP 401: token revoked"),
        ])
    }

    func testRoutineStepsAndANetworkChangeWithNoBackoffLogNothing() {
        var reading = base
        reading.step = .readingQueue
        XCTAssertEqual(Uploader.log(.start, before: base, after: reading), [])
        XCTAssertEqual(Uploader.log(.batchRead(.success([])), before: reading, after: base), [])
        XCTAssertEqual(Uploader.log(.networkChanged, before: base, after: base), [])
        XCTAssertEqual(Uploader.log(.itemStored, before: base, after: reading), [])
        XCTAssertEqual(Uploader.log(.delegate(.reconnected), before: base, after: base), [])
        // An answer arriving when nothing was being recorded (dropped by the reducer) is not logged.
        XCTAssertEqual(Uploader.log(.answerRecorded(.success(1)), before: base, after: base), [])
    }

    func testAFullyAcknowledgedBatchIsOneInfoLineWithItsCounts() {
        var before = base
        let id = CheckInID(high: 1, low: 2)
        before.step = .recording(Uploader.Answer(sent: 1, acknowledged: [id], refused: []))
        XCTAssertEqual(Uploader.log(.answerRecorded(.success(1)), before: before, after: base), [
            LogEntry(.info, "uploaded alerts", metadata: ["sent": "1", "acknowledged": "1", "endpoint": "https://backend.example/"]),
        ])
    }
}
