import ControlProtocol
import DevServer
import DeviceConfig
@testable import DeviceRuntime
import TestSupport
import XCTest

/// The whole device sending a help alert to the reference backend over loopback HTTP: exactly once
/// through faults, and a refusal that the device shows instead of "delivered".
final class AlertDeliveryTests: BackendDeviceTestCase {
    static let send = "POST /v1/alerts"
    override class var directoryPrefix: String { "lifesignal-alert" }

    /// A device with alerts on, a short cancel window, uploading with `token`.
    private func start(token: String = LoopbackBackend.token) async throws -> RunningDevice {
        var configuration = DeviceConfiguration.forTests(in: directory)
        try configuration.upload(to: backend, token: token)
        configuration.alert = AlertConfiguration(enabled: true, cancelWindow: .milliseconds(50), deliveredDisplay: .seconds(60))
        let running = try await RunningDevice.started(configuration)
        device = running
        return running
    }

    private func sendAlert(_ device: RunningDevice) async throws {
        let response = try await device.request(ControlRequest(.alertSend))
        XCTAssertTrue(response.ok, response.error ?? "")
    }

    func testAnAlertIsDeliveredThroughFaultsExactlyOnceAndShownDeliveredOnlyOnceAcknowledged() async throws {
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503, operation: Self.send), Fault(.drop, operation: Self.send),
                                                     Fault(.dropAfterStore, operation: Self.send)]))
        let device = try await start()
        try await sendAlert(device)
        try await waitUntil("the alert is acknowledged") { device.state.checkIn.alert.delivered != nil }
        let status = try await device.status()
        XCTAssertEqual(status.alert?.state, "delivered")
        XCTAssertEqual(status.indicator, "alert_delivered")
        XCTAssertEqual(status.alert?.waiting, 0)

        let stored = try backend.server.storedAlerts(device: LoopbackBackend.device)
        XCTAssertEqual(stored.map(\.alert.id), [device.state.checkIn.alert.delivered?.description], "stored once")
        XCTAssertEqual(stored.first?.receipts, 2, "it arrived twice: once before the lost acknowledgement")
        XCTAssertEqual(backend.server.stats.requestsByOperation[Self.send], 4)
        let failures = device.actions.filter {
            if case let .alertUpload(.delegate(.failed(failure))) = $0 { failure.kind == .transient } else { false }
        }
        XCTAssertEqual(failures.count, 3)
    }

    func testARefusedAlertStaysQueuedAndIsAFaultNamingTheRefusal() async throws {
        let device = try await start(token: "revoked-token")
        try await sendAlert(device)
        try await waitUntil("the refusal is the device's condition") {
            device.state.conditions.contains { $0.kind == .alertNotSent }
        }
        let condition = try XCTUnwrap(device.state.conditions.first { $0.kind == .alertNotSent })
        XCTAssertTrue(condition.isFault)
        XCTAssertTrue(condition.message.contains("401"), condition.message)
        let status = try await device.status()
        XCTAssertEqual(status.indicator, "fault")
        XCTAssertEqual(status.alert?.state, "not_sent")
        XCTAssertEqual(status.alert?.waiting, 1, "the alert stays queued")
        XCTAssertTrue(status.conditions?.contains { $0.kind == "alert_not_sent" } == true)
        XCTAssertEqual(try backend.server.storedAlerts(), [])
    }
}
