import ControlProtocol
import DevServer
import Foundation
import TestSupport
import XCTest

/// The real daemon, a long press on the simulated button, and the reference backend over loopback:
/// the help alert reaches the server exactly once, or not at all when a press cancels it.
final class AlertEndToEndTests: XCTestCase {
    static let deviceID = "alert-device"
    static let token = "alert-token-0123456789"

    /// A daemon with a 1 s long press and a 6 s cancel window (margins for a loaded CI machine), uploading to `server` (or offline).
    private func makeDevice(server: DevServer?) throws -> DaemonHarness {
        let uplink = try server.map { try uplinkSection(to: $0.baseURL, token: Self.token) } ?? ""
        return try DaemonHarness(interval: "1h", reminder: "10m", config: """

            [button]
            long_press = "1s"

            [alert]
            cancel_window = "6s"
            delivered_display = "1m"
            \(uplink)
            """)
    }

    private func longPress(_ device: DaemonHarness) throws -> StatusReport {
        try device.decode(StatusReport.self, device.ctl(["sim", "press", "--hold", "2500ms", "--json"]))
    }

    func testALongPressReachesTheServerExactlyOnceAndShowsDeliveredOnlyAfterTheAcknowledgement() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        defer { server.stop() }
        let device = try makeDevice(server: server)
        try device.start()

        let afterPress = try longPress(device)
        XCTAssertEqual(afterPress.indicator, "alert_cancel_window")
        XCTAssertEqual(afterPress.alert?.state, "cancel_window")
        XCTAssertEqual(try server.storedAlerts(), [], "nothing is sent inside the cancel window")

        try device.waitUntil("the backend acknowledged the alert") { try device.status().alert?.state == "delivered" }
        let status = try device.status()
        XCTAssertEqual(status.indicator, "alert_delivered")
        XCTAssertEqual(status.alert?.waiting, 0)
        let stored = try server.storedAlerts(device: Self.deviceID)
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(stored.first?.receipts, 1)
        XCTAssertEqual(stored.first?.alert.source, "button")
        XCTAssertEqual(server.stats.requestsByOperation["POST /v1/alerts"], 1)
        let history = try device.decode([CheckInReport].self, device.ctl(["history", "--json"]))
        XCTAssertEqual(history, [], "a long press is not a check-in")
        XCTAssertTrue(device.log.contains("help alert stored"), device.log)
        XCTAssertEqual(device.stop(), 0)
    }

    func testAPressInsideTheWindowCancelsAndNothingReachesTheServer() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        defer { server.stop() }
        let device = try makeDevice(server: server)
        try device.start()

        XCTAssertEqual(try longPress(device).alert?.state, "cancel_window")
        let afterCancel = try device.decode(StatusReport.self, device.ctl(["sim", "press", "--hold", "150ms", "--json"]))
        XCTAssertEqual(afterCancel.alert?.state, "idle")
        XCTAssertEqual(afterCancel.indicator, "never_checked_in", "the cancelling press is not a check-in")

        // The CLI opens and cancels a window the same way.
        XCTAssertEqual(try device.decode(StatusReport.self, device.ctl(["alert", "send", "--json"])).alert?.state, "cancel_window")
        XCTAssertEqual(try device.decode(StatusReport.self, device.ctl(["alert", "cancel", "--json"])).alert?.state, "idle")
        let nothingToCancel = try device.ctl(["alert", "cancel"])
        XCTAssertEqual(nothingToCancel.exitCode, 1)
        XCTAssertTrue(nothingToCancel.standardError.contains("no alert is waiting"), nothingToCancel.standardError)

        // Past the end of both windows: still nothing stored, nothing sent.
        Thread.sleep(forTimeInterval: 6.5)
        XCTAssertEqual(try server.storedAlerts(), [])
        XCTAssertNil(server.stats.requestsByOperation["POST /v1/alerts"])
        XCTAssertEqual(try device.status().alert?.waiting, 0)
        XCTAssertEqual(try device.decode([CheckInReport].self, device.ctl(["history", "--json"])), [])
        XCTAssertTrue(device.log.contains("help alert cancelled"), device.log)
        XCTAssertEqual(device.stop(), 0)
    }

    /// Without anything that can deliver a help alert, a long press asks nobody: it shows its own
    /// pattern and stores nothing (a request for help nobody receives was a fault nobody could clear).
    func testWithoutAnUplinkALongPressAsksNobodyAndLeavesNoFault() throws {
        let device = try makeDevice(server: nil)
        try device.start()
        XCTAssertNotEqual(try longPress(device).indicator, "alert_cancel_window")
        XCTAssertTrue(device.log.contains("long press (alerts are off"), device.log)
        // Said at start-up, before anyone presses: nothing here reaches a person.
        XCTAssertTrue(device.log.contains("a long press reaches nobody"), device.log)
        XCTAssertTrue(device.log.contains("nobody is told when a check-in is missed"), device.log)
        let status = try device.status()
        XCTAssertEqual(status.alert?.state, "off")
        XCTAssertEqual(status.alert?.waiting, 0, "nothing stored that nobody can send")
        XCTAssertNil(status.error)
        let refused = try device.ctl(["alert", "send"])
        XCTAssertEqual(refused.exitCode, 1)
        XCTAssertTrue(refused.standardError.contains("alerts are off"), refused.standardError)
        XCTAssertEqual(device.stop(), 0)
    }
}
