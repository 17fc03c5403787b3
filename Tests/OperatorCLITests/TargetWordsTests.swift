import ControlProtocol
@testable import OperatorCLI
import XCTest

/// `status`, `history` and `queue` speak per target: "queued" and "upload queue" only where there
/// is something to upload to, and "nobody is told" where there is nothing.
final class TargetWordsTests: XCTestCase {
    static let checkIn = CheckInReport(id: "0b7e1c2a-1111-4222-8333-444455556666", time: "2026-11-22T21:55:19Z",
                                       wallClockSynchronized: true, source: "button", uploaded: false, bootID: "b")

    func status(uplink: UplinkReport? = nil, healthchecks: UplinkReport? = nil, depth: Int? = nil) -> StatusReport {
        var report = StatusReport(
            phase: "checked_in", indicator: "checked_in", lastCheckIn: Self.checkIn, deadline: nil, secondsLeft: nil,
            settings: SettingsReport(interval: "24h", reminder: "2h", intervalSeconds: 86_400, reminderSeconds: 7200, version: 1,
                                     offeredIntervals: [], offeredReminders: []),
            leds: [], queueDepth: 8, error: nil, isCheckingIn: false, button: "released", gpioBackend: "simulated",
            wallClockSynchronized: true, now: "2026-11-22T22:00:00Z", uplink: uplink)
        report.healthchecks = healthchecks
        report.healthchecksQueueDepth = depth
        return report
    }

    static func target(_ endpoint: String) -> UplinkReport {
        UplinkReport(endpoint: endpoint, state: "idle", lastResult: "ok", lastMessage: nil, lastAttempt: nil, lastSuccess: nil,
                     nextRetry: nil, consecutiveFailures: 0, uploadedSinceStart: 8)
    }

    func testWithOnlyAHealthchecksCheckNothingIsQueuedForUploadAndEveryRowSaysItWasPinged() {
        let text = Formatting.status(status(healthchecks: Self.target("https://hc-ping.com/…6a10"), depth: 0))
        XCTAssertFalse(text.lowercased().contains("upload queue"), text)
        XCTAssertFalse(text.contains("8 check-ins"), "the backend's queue is nobody's: \(text)")
        XCTAssertTrue(text.contains("Healthchecks check-in check: https://hc-ping.com/…6a10 · up to date (every check-in pinged)"), text)

        var row = Self.checkIn
        row.deliveries = [DeliveryReport(target: "healthchecks", state: "pinged")]
        XCTAssertFalse(Formatting.checkIn(row).contains("queued"), Formatting.checkIn(row))
        XCTAssertTrue(Formatting.checkIn(row).contains("check pinged"), Formatting.checkIn(row))

        var queue = QueueReport(depth: 8, oldestPending: Self.checkIn, uplink: nil)
        queue.hasBackend = false
        queue.healthchecks = TargetQueueReport(depth: 0, refused: [], state: Self.target("https://hc-ping.com/…6a10"))
        let queueText = Formatting.queue(queue)
        XCTAssertFalse(queueText.contains("waiting for upload"), queueText)
        XCTAssertTrue(queueText.contains("0 check-ins waiting for their ping to the healthchecks check"), queueText)
    }

    func testWithNothingConfiguredStatusSaysNobodyIsToldAndHistoryHasNoUploadColumn() {
        let text = Formatting.status(status())
        XCTAssertTrue(text.contains("Nobody is told of a missed check-in"), text)
        XCTAssertFalse(text.lowercased().contains("upload queue"), text)
        var row = Self.checkIn
        row.deliveries = []
        XCTAssertFalse(Formatting.checkIn(row).contains("queued"), Formatting.checkIn(row))
        var queue = QueueReport(depth: 3, oldestPending: Self.checkIn, uplink: nil)
        queue.hasBackend = false
        XCTAssertTrue(Formatting.queue(queue).hasPrefix("Nothing to upload to"), Formatting.queue(queue))
    }

    func testWithTheBackendItsQueueIsNamedAndEachRowSaysUploadedOrQueued() {
        let text = Formatting.status(status(uplink: Self.target("https://api.example.org")))
        XCTAssertTrue(text.contains("Backend upload queue: 8 check-ins waiting"), text)
        XCTAssertFalse(text.contains("Nobody is told"), text)
        var row = Self.checkIn
        row.deliveries = [DeliveryReport(target: "backend", state: "queued"), DeliveryReport(target: "healthchecks", state: "pinged")]
        let line = Formatting.checkIn(row)
        XCTAssertTrue(line.contains("backend queued") && line.contains("check pinged"), line)
    }

    func testAHeartbeatPeriodReadsAsPeopleSayIt() {
        let line = Formatting.heartbeat(HeartbeatReport(endpoint: "x", periodSeconds: 900, lastAttempt: nil, lastSuccess: nil,
                                                        lastError: nil))
        XCTAssertTrue(line.contains("every 15 min"), line)
    }
}
