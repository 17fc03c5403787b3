import ControlProtocol
import DevServer
import Foundation
import XCTest

/// The real daemon, a long press on the simulated button, and the reference backend over loopback:
/// the help alert reaches the server exactly once, or not at all when a press cancels it.
final class AlertEndToEndTests: XCTestCase {
    static let deviceID = "alert-device"
    static let token = "alert-token-0123456789"

    private func makeServer() throws -> DevServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifesignal-e2e-alert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return try DevServer(DevServer.Options(databasePath: directory.appendingPathComponent("server.sqlite").path,
                                               tokens: [Self.token: Self.deviceID]))
    }

    /// A daemon with a 1 s long press and a 6 s cancel window (margins for a loaded CI machine), uploading to `server` (or offline).
    private func makeDevice(server: DevServer?) throws -> DaemonHarness {
        var uplink = ""
        if let server {
            let tokenPath = FileManager.default.temporaryDirectory.appendingPathComponent("lifesignal-e2e-token-\(UUID().uuidString)").path
            try "\(Self.token)\n".write(toFile: tokenPath, atomically: false, encoding: .utf8)
            XCTAssertEqual(chmod(tokenPath, 0o600), 0)
            addTeardownBlock { try? FileManager.default.removeItem(atPath: tokenPath) }
            uplink = """
                [uplink]
                url = "\(server.baseURL)"
                token_file = "\(tokenPath)"
                retry_max = "1s"
                timeout = "5s"
                """
        }
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
        let server = try makeServer()
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
        let server = try makeServer()
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

    func testWithoutAnUplinkTheDeviceSaysTheAlertWasNotSent() throws {
        let device = try makeDevice(server: nil)
        try device.start()
        XCTAssertEqual(try longPress(device).indicator, "alert_cancel_window")
        try device.waitUntil("the alert is stored") { try device.status().alert?.state == "not_sent" }
        let status = try device.status()
        XCTAssertEqual(status.indicator, "fault", "never 'sending' when nothing can send it")
        XCTAssertTrue(status.error?.contains("NOT sent") == true, status.error ?? "")
        XCTAssertEqual(status.alert?.uplinkConfigured, false)
        XCTAssertEqual(status.alert?.waiting, 1)
        let text = try device.ctl(["status"]).standardOutput
        XCTAssertTrue(text.contains("no uplink is configured"), text)
        XCTAssertEqual(device.stop(), 0)
    }
}
