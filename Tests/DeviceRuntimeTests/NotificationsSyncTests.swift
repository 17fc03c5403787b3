import ControlProtocol
import DevServer
import DeviceAPI
import DeviceConfig
@testable import DeviceRuntime
import TestSupport
import XCTest

/// The whole device keeping its notifications in step with the reference backend over loopback:
/// the server's reach the device, and what the person does on the device reaches the server.
final class NotificationsSyncTests: BackendDeviceTestCase {
    override class var directoryPrefix: String { "lifesignal-notifications" }

    @discardableResult
    private func create(_ type: String, _ title: String) throws -> WireNotification {
        try backend.server.createNotification(NewNotification(type: type, title: title, relatedContactId: "c-1"),
                                              device: LoopbackBackend.device)
    }

    private func change(_ device: RunningDevice, _ command: ControlRequest.Command, _ id: String) async throws {
        let response = try await device.request(ControlRequest(command, notificationID: id))
        XCTAssertTrue(response.ok, response.error ?? "")
    }

    func testNotificationsAreSyncedBothWaysBetweenTheDevicesStoreAndTheServer() async throws {
        let ping = try create("ping", "Anna pinged you")
        let added = try create("added", "Bob added you")
        var configuration = DeviceConfiguration.forTests(in: directory)
        try configuration.upload(to: backend)
        configuration.uplink?.notificationsRefresh = .milliseconds(100)
        let device = try await RunningDevice.started(configuration)
        self.device = device
        try await waitUntil("the server's notifications reach the device") { device.state.notifications.notifications.count == 2 }

        try await change(device, .notificationRead, ping.id)
        try await change(device, .notificationClear, String(added.id.prefix(8)))
        try await waitUntil("the device's changes reach the server") {
            try self.backend.server.notifications(device: LoopbackBackend.device).map(\.cleared) == [nil, true]
        }
        let fresh = try create("alert", "Carol needs help")
        try await waitUntil("the new one reaches the device") {
            device.state.notifications.notifications.contains { $0.id == fresh.id }
        }

        let server = try backend.server.notifications(device: LoopbackBackend.device)
        XCTAssertEqual(server.map(\.isRead), [true, false, false])
        XCTAssertEqual(server.map(\.cleared), [nil, true, nil])
        let notifications = device.state.notifications.notifications
        XCTAssertEqual(notifications.map(\.id), [fresh.id, ping.id], "newest first; the cleared one is gone")
        XCTAssertEqual(notifications.map(\.isRead), [false, true])
        let reportAnswer = try await device.request(ControlRequest(.notifications, type: "all", unreadOnly: false)).notifications
        let report = try XCTUnwrap(reportAnswer)
        XCTAssertEqual(report.pendingChanges, 0, "every change was acknowledged")
        XCTAssertEqual(report.total, 2)
        // What the device's store holds, read back: the same, so a restart shows the same list.
        let stored = try await device.storeClients.notifications.load()
        XCTAssertEqual(stored.notifications.map(\.id), [fresh.id, ping.id])
        XCTAssertEqual(stored.pendingChangeCount, 0)
    }
}
